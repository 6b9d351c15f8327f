# Copyright (c) robustdet contributors. All rights reserved.
"""tools/compare_results.py: generated robustness results beside the
published rows, and its one-line errors."""
import csv
import io
import json

from robustdet.apis.results import new_results, refresh_summary, save_results
from robustdet.baselines import default_baseline
from robustdet.corruptions import CORRUPTION_NAMES, SEVERITIES
from robustdet.evaluation.functional.run_results import compact_cells
from robustdet.utils.cli import parse_run_args
from tests.conftest import REPO
from tests.tool_process import run_tool

FRCNN = 'michaelis2019/coco/faster-rcnn_r50_fpn/standard/bbox'


def _results(path, clean, cell, metric='coco/bbox_mAP', drop=(),
             **extra):
    """Write a results file: clean metric ``clean``, every image cell
    ``cell(name, severity)`` but the keys in ``drop``."""
    r = new_results(
        dict(config_sha256=None, checkpoint_sha256=None, seed=0,
             backend='fast', channel_order='rgb'), **extra)
    r['clean'] = {metric: clean}
    r['cells'] = {
        name: {
            str(s): {metric: cell(name, s)}
            for s in SEVERITIES if f'{name}/{s}' not in drop
        }
        for name in CORRUPTION_NAMES
    }
    r['cells'] = {k: v for k, v in r['cells'].items() if v}
    refresh_summary(r)
    path.parent.mkdir(parents=True, exist_ok=True)
    save_results(r, str(path))
    return r


def _run(*args):
    return run_tool('tools/compare_results.py', *args, cwd=REPO)


def _one_line_error(proc, *expect):
    assert proc.returncode == 2, proc.stderr[-2000:]
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith('error: '), proc.stderr
    assert 'Traceback' not in proc.stderr
    for text in expect:
        assert text in lines[0], lines[0]


def test_helpers(tmp_path):
    assert compact_cells([]) == ''
    assert compact_cells(['fog/5', 'fog/1', 'fog/2', 'fog/3', 'fog/4',
                          'snow/3', 'frost/4', 'frost/1', 'frost/2']) == (
                              'snow/3, frost/1-2,4, fog/1-5')
    existing = tmp_path / 'a=b.json'
    existing.write_text('{}')
    assert parse_run_args(['x=y/r.json', 'r.json', str(existing)]) == [
        ('x', 'y/r.json'), (None, 'r.json'), (None, str(existing))
    ]
    assert default_baseline('coco', 'bbox').name == FRCNN
    # no Faster R-CNN row: the standard R-50-FPN one
    for dataset in ('coco', 'cityscapes'):
        assert default_baseline(dataset, 'segm').name == (
            f'michaelis2019/{dataset}/mask-rcnn_r50_fpn/standard/segm')


def test_compare_coco_runs(tmp_path):
    full = tmp_path / 'full-run' / 'robustness.json'
    _results(full, 0.40, lambda n, s: 0.20)
    partial = tmp_path / 'work' / 'robustness.json'
    drop = {f'fog/{s}' for s in SEVERITIES} | {'snow/3'}
    # severity s scores 0.25 - 0.02 s: 0.19 on average over 1-5
    _results(partial, 0.30, lambda n, s: 0.25 - 0.02 * s, drop=drop,
             name='partial-run')
    named = tmp_path / 'other' / 'robustness.json'
    _results(named, 0.50, lambda n, s: 0.30)
    out = tmp_path / 'out'
    out.mkdir()
    (out / 'compare.md').write_text('old report')  # replaced

    proc = _run(full, partial, f'mine={named}', '--out-dir', out)
    assert proc.returncode == 0, proc.stderr[-3000:]
    for ext in ('json', 'md', 'csv', 'png'):
        assert str(out / f'compare.{ext}') in proc.stdout
    assert (out / 'compare.png').read_bytes()[:8] == b'\x89PNG\r\n\x1a\n'
    md = (out / 'compare.md').read_text()
    assert md.startswith('# Corruption robustness')
    # stdout: the first table, as in the Markdown
    lines = proc.stdout.splitlines()
    row = next(line for line in lines if line.startswith('| full-run |'))
    cols = [c.strip() for c in row.strip('|').split('|')]
    assert cols == ['full-run', '40.0', '20.0', '50.0', '+3.7', '+1.8',
                    '-0.2', f'`{full}`']
    assert row in md
    row = next(line for line in lines if line.startswith('| partial-run |'))
    cols = [c.strip() for c in row.strip('|').split('|')]
    assert cols[1:4] == ['30.0', '19.0*', '63.3']
    footnote = next(line for line in lines
                    if line.startswith('\\* partial-run'))
    assert '69 of 75' in footnote and 'snow/3, fog/1-5' in footnote
    assert any(line.startswith('| mine | 50.0 | 30.0 | 60.0 |')
               for line in lines)
    baseline = next(line for line in lines if '(baseline)' in line)
    assert '**Faster R-CNN R-50-FPN (standard)**' in baseline
    assert baseline.split('|')[2:8] == [
        ' 36.3 ', ' 18.2 ', ' 50.2 ', ' 0.0 ', ' 0.0 ', ' 0.0 '
    ]
    assert 'arxiv.org/abs/1907.07484' in md
    assert '12.4' in md and '†' in md  # the DCN row's note

    data = json.loads((out / 'compare.json').read_text())
    assert (data['dataset'], data['task'], data['metric'],
            data['baseline']) == ('coco', 'bbox', 'coco/bbox_mAP', FRCNN)
    runs = [r for r in data['rows'] if r['kind'] == 'run']
    published = [r for r in data['rows'] if r['kind'] == 'published']
    assert [r['name'] for r in runs] == ['full-run', 'partial-run', 'mine']
    assert data['rows'][:3] == runs
    assert len(published) == 14
    mpcs = [r['mPC'] for r in published]
    assert mpcs == sorted(mpcs, reverse=True) and mpcs[0] == 32.7
    first = runs[0]
    assert (first['P'], first['mPC'], first['rPC']) == (40.0, 20.0, 50.0)
    assert (first['dP'], first['dmPC'], first['drPC']) == (3.7, 1.8, -0.2)
    assert first['incomplete'] is False and first['missing'] == []
    assert first['source'] == str(full)
    assert first['per_corruption']['fog'] == 20.0
    second = runs[1]
    assert second['incomplete'] is True
    assert second['missing'] == ['snow/3'] + [f'fog/{s}' for s in SEVERITIES]
    assert second['benchmark_cells'] == [69, 75]
    assert 'fog' not in second['per_corruption']
    assert abs(second['per_corruption']['snow'] - 19.0) < 1e-9
    assert second['per_corruption_severities']['snow'] == 4
    assert data['corruptions'] == list(CORRUPTION_NAMES)

    # per-corruption table: runs only, partial means marked
    per = md[md.index('## coco/bbox_mAP per corruption'):]
    assert '| corruption | group | full-run | partial-run | mine |' in per
    assert '| snow | weather | 20.0 | 19.0* | 30.0 |' in per
    assert '| fog | weather | 20.0 | – | 30.0 |' in per

    table = list(csv.DictReader(io.StringIO(
        (out / 'compare.csv').read_text())))
    assert len(table) == 3 + 14
    assert table[0]['name'] == 'full-run'
    assert float(table[0]['dmPC']) == 1.8
    assert float(table[0]['mPC_gaussian_noise']) == 20.0
    assert table[1]['missing'] == 'snow/3, fog/1-5'
    assert table[1]['incomplete'] == '1'
    assert table[3]['kind'] == 'published'
    assert table[3]['source'] == 'michaelis2019'
    assert table[3]['mPC_gaussian_noise'] == ''
    assert [t['baseline'] for t in table].count('1') == 1


def test_voc_run_class_mean_and_errors(tmp_path):
    voc = tmp_path / 'voc-run' / 'robustness.json'
    r = _results(voc, 0.80, lambda n, s: 0.50, metric='pascal_voc/mAP')
    r['summary']['pascal_voc/mAP']['rPC_class_mean'] = 0.61
    save_results(r, str(voc))
    out = tmp_path / 'out'
    # the dataset is guessed from the metric keys, the baseline is VOC's
    proc = _run(voc, '--out-dir', out)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert '| rPC (class mean) |' in proc.stdout
    row = next(line for line in proc.stdout.splitlines()
               if line.startswith('| voc-run |'))
    assert [c.strip() for c in row.split('|')[2:9]] == [
        '80.0', '50.0', '62.5', '61.0', '-0.5', '+1.4', '+2.1'
    ]
    data = json.loads((out / 'compare.json').read_text())
    assert data['metric'] == 'pascal_voc/mAP'
    assert data['baseline'] == (
        'michaelis2019/voc/faster-rcnn_r50_fpn/standard/bbox')
    assert data['rows'][0]['rPC_class_mean'] == 61.0
    assert len(data['rows']) == 1 + 3

    # a VOC run compared as COCO: names the file and the metric
    _one_line_error(_run(voc, '--dataset', 'coco', '--out-dir', out),
                    str(voc), 'coco/bbox_mAP')
    # unknown baseline: lists the names for that dataset and task
    _one_line_error(
        _run(voc, '--baseline', 'nope', '--out-dir', out), "'nope'",
        'michaelis2019/voc/faster-rcnn_r50_fpn/combined/bbox')
    # not a results file
    bad = tmp_path / 'bad.json'
    bad.write_text(json.dumps({'format': 'something else'}))
    _one_line_error(_run(bad, '--out-dir', out), str(bad),
                    'robustness results')
    _one_line_error(_run(tmp_path / 'none.json', '--out-dir', out),
                    'not found', str(tmp_path / 'none.json'))


def test_corruption_errors_against_a_run_and_a_published_row(tmp_path):
    # Every cell of the table: the 15, the hold-outs, C-bar and 3DCC.
    base = tmp_path / 'base' / 'robustness.json'
    _results(base, 0.40, lambda n, s: 0.20)
    run = tmp_path / 'run' / 'robustness.json'
    _results(run, 0.50, lambda n, s: 0.35)
    out = tmp_path / 'out'
    proc = _run(str(run), '--ce-baseline', str(base), '--out-dir', str(out))
    assert proc.returncode == 0, proc.stderr[-2000:]
    data = json.loads((out / 'compare.json').read_text())
    assert data['ce_baseline']['kind'] == 'run'
    assert 'cells' not in data['ce_baseline']
    mine = data['rows'][0]['ce']
    assert set(mine) == {'benchmark', 'holdout', 'cbar', '3dcc'}
    # Every cell 0.65 errors against 0.80: CE 81.25 %; drops 0.15 against
    # 0.20: relative CE 75 %.
    for family in mine.values():
        assert family['mCE'] == family['CE_pooled'] == 81.25
        assert family['rmCE'] == family['rCE_pooled'] == 75.0
    # The published rows: pooled CE of the 15 against the run's grid.
    row = next(r for r in data['rows'] if r['name'] == FRCNN)
    assert row['ce']['benchmark']['CE_pooled'] == round(
        100 * (1 - row['mPC'] / 100) / 0.8, 4)
    md = (out / 'compare.md').read_text()
    assert '## Corruption errors against run `base`' in md
    # The means say how many corruptions they cover: the 15, and 10 C-bar.
    assert '| run | 81.2 (15) | 75.0 (15) | 81.2 | 75.0 |' in md
    assert '| 81.2 (10) | 75.0 (10) |' in md
    assert '(n): the corruptions a mean covers' in md
    for family, count in (('benchmark', 15), ('cbar', 10)):
        assert mine[family]['count'] == mine[family]['rcount'] == count
    rows = list(csv.DictReader(io.StringIO(
        (out / 'compare.csv').read_text())))
    assert float(rows[0]['mCE_cbar']) == 81.25
    assert rows[0]['count_cbar'] == rows[0]['rcount_cbar'] == '10'
    # A published row has no C-bar numbers.
    bad = _run(str(run), '--ce-baseline', FRCNN, '--out-dir',
               str(tmp_path / 'bad'))
    _one_line_error(bad, 'no holdout, cbar, 3dcc numbers')
    assert not (tmp_path / 'bad').exists()
