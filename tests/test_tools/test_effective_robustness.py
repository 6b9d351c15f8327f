# Copyright (c) robustdet contributors. All rights reserved.
"""tools/effective_robustness.py on hand-made COCO-O shift.json files (their
summaries made by the benchmark's own shift_summary)."""
import json
import os.path as osp

import pytest

from robustdet.apis.shift import COCO_O_DOMAINS
from tests.conftest import REPO
from tests.shift_results import shift_json
from tests.tool_process import run_tool

STEM = 'effective_robustness'
# COCO mAP and the six domains per run (fractions, as mmdet's metrics).
# In points: x = 30, 40, 50 and y (the means) = 12, 16, 23 give the line
# y = 0.55 x - 5 and ER = 0.5, -1, 0.5; `new` (45, 25) is 5.25 above it.
RUNS = dict(
    a=(0.30, (0.07, 0.17, 0.12, 0.12, 0.10, 0.14)),
    b=(0.40, (0.16, ) * 6),
    c=(0.50, (0.20, 0.26, 0.23, 0.23, 0.22, 0.24)),
    new=(0.45, (0.25, ) * 6),
)


def run(*args):
    return run_tool('tools/effective_robustness.py', *args, cwd=REPO)


@pytest.fixture
def runs(tmp_path):
    return {name: shift_json(tmp_path / name / 'shift.json', coco, doms,
                              config=f'configs/{name}.py')
            for name, (coco, doms) in RUNS.items()}


def test_fit_table_json_and_plot(runs, tmp_path):
    out = tmp_path / 'er'
    proc = run(*(f'{n}={p}' for n, p in runs.items()), '--fit', 'a', 'b',
               'c', '--out-dir', str(out))
    assert proc.returncode == 0, proc.stderr[-3000:]
    data = json.loads((out / f'{STEM}.json').read_text())
    assert data['domains'] == list(COCO_O_DOMAINS)
    assert data['line']['fitted'] == ['a', 'b', 'c']
    assert data['line']['slope'] == pytest.approx(0.55, rel=1e-9)
    assert data['line']['intercept'] == pytest.approx(-5.0, rel=1e-9)
    rows = {r['name']: r for r in data['runs']}
    assert list(rows) == ['a', 'b', 'c', 'new']
    assert {n: r['er'] for n, r in rows.items()} == pytest.approx(
        dict(a=0.5, b=-1.0, c=0.5, new=5.25), abs=1e-9)
    assert rows['c']['coco'] == pytest.approx(50.0)
    assert rows['c']['coco_o'] == pytest.approx(23.0)
    assert rows['a']['domains']['sketch'] == pytest.approx(7.0)
    assert [r['fitted'] for r in rows.values()] == [True, True, True, False]
    md = (out / f'{STEM}.md').read_text()
    assert 'fitted by least squares over 3 run(s): `a`, `b`, `c`' in md
    assert '0.5500 × COCO mAP − 5.00' in md
    assert ('| run | COCO mAP | COCO-O mAP | sketch | cartoon | painting | '
            'weather | handmake | tattoo | ER | fitted |') in md
    assert '| a | 30.0 | 12.0 | 7.0 | 17.0 | 12.0 | 12.0 | 10.0 | 14.0 | ' \
        '+0.50 | yes |' in md
    assert '| new | 45.0 | 25.0 |' in md and '| +5.25 | no |' in md
    assert md in proc.stdout
    png = (out / f'{STEM}.png').read_bytes()
    assert png.startswith(b'\x89PNG') and len(png) > 5000

    # Without --fit the line is fitted over every run; runs are named by
    # their config file.
    proc = run(*runs.values(), '--out-dir', str(out))
    assert proc.returncode == 0, proc.stderr[-3000:]
    data = json.loads((out / f'{STEM}.json').read_text())
    assert data['line']['fitted'] == ['a', 'b', 'c', 'new']
    assert sum(r['er'] for r in data['runs']) == pytest.approx(0, abs=1e-9)


@pytest.mark.parametrize('case,expect', [
    ('one', 'at least 2 runs with different x'),
    ('same_x', 'at least 2 runs with different x'),
    ('bdd', "holds a 'bdd100k-weather' shift benchmark, not 'coco-o'"),
    ('incomplete', "no COCO-O coco/bbox_mAP: split 'tattoo' is not "
     'evaluated'),
    ('duplicate', "two runs are named 'a'"),
    ('fit', "unknown run 'z' to fit the line over"),
    ('not_json', 'not a readable shift results file'),
])
def test_errors_are_one_line_and_write_nothing(runs, tmp_path, case,
                                               expect):
    args = {
        'one': [runs['a']],
        'same_x': [runs['a'], shift_json(tmp_path / 'x' / 'shift.json',
                                          0.30, (0.2, ) * 6,
                                          config='x.py')],
        'bdd': [runs['a'], shift_json(tmp_path / 'bdd' / 'shift.json',
                                       0.4, (0.3, 0.2),
                                       benchmark='bdd100k-weather',
                                       config='bdd.py')],
        'incomplete': [runs['a'], shift_json(
            tmp_path / 'i' / 'shift.json', 0.4, (0.1, ) * 5,
            config='i.py')],
        'duplicate': [f'a={runs["a"]}', f'a={runs["b"]}'],
        'fit': [runs['a'], runs['b'], '--fit', 'z'],
        'not_json': [runs['a'], str(tmp_path / 'a' / 'nothing.txt')],
    }[case]
    (tmp_path / 'a' / 'nothing.txt').write_text('x')
    out = tmp_path / 'er'
    proc = run(*args, '--out-dir', str(out))
    assert proc.returncode == 2, proc.stderr[-2000:]
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and expect in lines[0], lines
    assert not osp.exists(out)
