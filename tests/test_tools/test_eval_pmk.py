# Copyright (c) robustdet contributors. All rights reserved.
"""tools/eval_pmk.py end to end on a tiny generated dataset."""
import importlib.util
import json
import os.path as osp
import sys

import pytest

from tests.conftest import REPO
from tests.test_evaluation.test_pmk import random_dataset
from tests.tool_process import run_tool


def _write(tmp_path, sets, gt, preds):
    paths = []
    for name, obj in (('sets', sets), ('gt', gt), ('preds', preds)):
        path = tmp_path / f'{name}.json'
        path.write_text(json.dumps(obj))
        paths.append(str(path))
    return paths


def _run(*args):
    return run_tool('tools/eval_pmk.py', *args, cwd=REPO)


def test_report_and_one_line_errors(tmp_path):
    sets, gt, preds = random_dataset(0)
    s, g, p = _write(tmp_path, sets, gt, preds)
    out = tmp_path / 'out' / 'report.json'
    proc = _run('--sets', s, '--ann', g, '--pred', p, '--k', '4', '--out',
                str(out), '--judge', 'anchor')
    assert proc.returncode == 0, proc.stderr
    assert 'report:' in proc.stdout
    report = json.loads(out.read_text())
    for key in ('map', 'delta', 'worst_frames', 'localization',
                'classification', 'error_vs_offset', 'counts',
                'skipped_anchors', 'empty_predictions'):
        assert key in report, key
    assert sorted(report['map'], key=int) == ['0', '1', '2', '3', '4']
    assert set(report['worst_frames']) == set(report['map'])
    assert set(report['localization']['map']) == set(report['map'])
    acc = report['classification']['accuracy']['4']
    assert set(acc) == {'acc', 'low', 'high', 'n', 'correct'}
    assert report['classification']['judge'] == 'anchor'
    assert report['counts']['anchors'] == len(sets)
    assert report['empty_predictions'] is False
    anchor = next(iter(report['worst_frames']['4']))
    assert anchor in sets
    assert (tmp_path / 'out' / 'report.md').read_text().startswith('# pm-k')
    png = (tmp_path / 'out' / 'report.png').read_bytes()
    assert png[:8] == b'\x89PNG\r\n\x1a\n'

    # bad input: one line, exit status 2, nothing written
    anchor = next(iter(sets))
    other = next(k for k in sets if k.split('/')[1] != anchor.split('/')[1])
    bad = dict(sets)
    bad[anchor] = sets[anchor] + [other]
    (tmp_path / 'bad').mkdir()
    s2, _, _ = _write(tmp_path / 'bad', bad, gt, preds)
    out2 = tmp_path / 'bad.json'
    proc = _run('--sets', s2, '--ann', g, '--pred', p, '--out', str(out2))
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith('error: '), proc.stderr
    assert other in lines[0] and anchor in lines[0]
    assert not out2.exists()


def _tool():
    spec = importlib.util.spec_from_file_location(
        'eval_pmk', osp.join(REPO, 'tools', 'eval_pmk.py'))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _main(monkeypatch, *args):
    """Run the tool's main in this process; its exit status."""
    monkeypatch.setattr(sys, 'argv', ['eval_pmk.py', *args])
    with pytest.raises(SystemExit) as exc:
        _tool().main()
    return exc.value.code


def test_empty_predictions_and_bad_k(tmp_path, monkeypatch, capsys):
    sets, gt, _ = random_dataset(1)
    s, g, p = _write(tmp_path, sets, gt, [])
    out = tmp_path / 'r.json'
    assert _main(monkeypatch, '--sets', s, '--ann', g, '--pred', p, '--out',
                 str(out), '--class-agnostic') == 0
    assert 'EMPTY' in capsys.readouterr().out
    report = json.loads(out.read_text())
    assert report['empty_predictions'] is True
    assert report['class_agnostic'] is True
    assert set(report['map'].values()) == {0.0}
    assert _main(monkeypatch, '--sets', s, '--ann', g, '--pred', p, '--k',
                 '-1') == 2
    assert capsys.readouterr().err == 'error: --k must be >= 0, got -1\n'
    (tmp_path / 'dict.json').write_text('{}')
    assert _main(monkeypatch, '--sets', s, '--ann', g, '--pred',
                 str(tmp_path / 'dict.json')) == 2
    assert 'must be a JSON list' in capsys.readouterr().err
    assert _main(monkeypatch, '--sets', s, '--ann', g, '--pred', p,
                 '--judge', 'video') == 2
    assert capsys.readouterr().err.startswith('error: argument --judge')
