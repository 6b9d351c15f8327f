# Copyright (c) robustdet contributors. All rights reserved.
"""Importing other tools' robustness results: every layout, the paper's
P / mPC / rPC (both VOC conventions), partial grids, merging, and one
line for each kind of bad input, with nothing written."""
import json
import os
import pickle

import numpy as np
import pytest

from robustdet.apis import import_results, load_results
from robustdet.apis.import_results import LAYOUTS, VOC_CLASSES
from robustdet.apis.results import new_results, refresh_summary, save_results
from robustdet.baselines import get_baseline
from robustdet.corruptions import BENCHMARK_CORRUPTIONS, IMAGENET_C_CORRUPTIONS
from robustdet.reports import markdown_report, summary_text, write_reports
from robustdet.utils.errors import RobustDetError
from tests.conftest import REPO
from tests.py2_pickle import dumps_py2
from tests.result_pickles import (coco_eval, paper_grid, published_like,
                                  write_file)
from tests.tool_process import run_tool


def test_paper_coco_pickle_gives_the_published_row(tmp_path):
    row = get_baseline('michaelis2019/coco/faster-rcnn_r50_fpn/standard/bbox')
    assert (row.P, row.mPC, row.rPC) == (36.3, 18.2, 50.2)
    path = published_like(tmp_path, row)
    results = import_results([path], 'coco', str(tmp_path / 'run'))
    s = results['summary']['coco/bbox_mAP']
    assert round(100 * s['P'], 1) == row.P
    assert round(100 * s['mPC'], 1) == row.mPC
    assert round(100 * s['rPC'], 1) == row.rPC
    assert s['mPC_holdout'] == pytest.approx(0.9)  # never in mPC
    assert results['coverage']['complete']
    # mmdet 3.x metric names; recall (other maxDets in mmdet 3) left out.
    assert set(results['clean']) == {
        'coco/bbox_mAP', 'coco/bbox_mAP_50', 'coco/bbox_mAP_75',
        'coco/bbox_mAP_s', 'coco/bbox_mAP_m', 'coco/bbox_mAP_l'
    }
    assert results['clean']['coco/bbox_mAP_l'] == pytest.approx(0.463)
    assert list(results['cells']) == list(IMAGENET_C_CORRUPTIONS)
    assert results['imported']['files'][0]['layout'] == 'mmdet2-coco'
    assert results['backend'] == 'reference'
    assert results['channel_order'] == 'bgr'
    on_disk = load_results(str(tmp_path / 'run' / 'robustness.json'))
    assert on_disk['summary'] == results['summary']


def _voc_grid(rng, num_classes=20):
    p = rng.uniform(0.3, 0.95, num_classes).astype(np.float32)
    # Hard classes lose more: the two rPC conventions differ.
    keep = p * rng.uniform(0.8, 1.0, num_classes)

    def cell(name, sev):
        return [{'ap': np.float32(pc * k * (1 - 0.05 * sev))}
                for pc, k in zip(p, keep)]

    clean = [{'ap': pc} for pc in p]
    return paper_grid(clean, cell), p


def test_voc_pickle_both_rpc_conventions(tmp_path):
    grid, _ = _voc_grid(np.random.default_rng(0))
    path = write_file(tmp_path / 'voc_results.pkl', dumps_py2(grid))
    results = import_results([path], 'voc', str(tmp_path / 'run'))
    # Computed here from the arrays, as the paper's analysis code does.
    aps = np.array([[[c['ap'] for c in grid[n][s]] for s in range(6)]
                    for n in IMAGENET_C_CORRUPTIONS], dtype=np.float64)
    p = aps[0, 0]
    mpc = aps[:15, 1:].mean(axis=(0, 1))
    paper = mpc.mean() / p.mean()
    mmdet = (mpc / p).mean()
    assert abs(paper - mmdet) > 0.005
    for metric in ('pascal_voc/mAP', 'pascal_voc/AP50'):
        s = results['summary'][metric]
        assert s['P'] == pytest.approx(p.mean(), abs=1e-12)
        assert s['mPC'] == pytest.approx(mpc.mean(), abs=1e-12)
        assert s['rPC'] == pytest.approx(paper, abs=1e-12)
        assert s['rPC_class_mean'] == pytest.approx(mmdet, abs=1e-12)
    per_class = results['per_class']
    assert per_class['classes'] == list(VOC_CLASSES)
    assert len(per_class['cells']['fog']['3']) == 20
    text = summary_text(results)
    assert f'rPC {100 * paper:.1f} %' in text
    assert f'robustness_eval: {100 * mmdet:.1f} %' in text
    md = markdown_report(results)
    assert "mmdet's `robustness_eval`" in md


def _mmdet3_grid(prefix='coco/bbox_', clean=0.4, cell=0.2):
    """mmdet 3.x test_robustness.py: flat metric dicts of python floats,
    the clean cell repeated under every corruption."""
    def metrics(v):
        return {f'{prefix}mAP': v, f'{prefix}mAP_50': min(1, 2 * v),
                f'{prefix}mAP_l': -1.0}

    return {
        n: {0: metrics(clean), **{s: metrics(cell) for s in (1, 3)}}
        for n in ('gaussian_noise', 'fog')
    }


def test_mmdet3_pickle_partial_grid_names_what_is_missing(tmp_path):
    path = write_file(tmp_path / 'x_results.pkl',
                  pickle.dumps(_mmdet3_grid(), protocol=2))
    results = import_results([path], 'coco', str(tmp_path / 'run'),
                             name='mine')
    assert results['name'] == 'mine'
    assert results['imported']['files'][0]['layout'] == 'mmdet3'
    assert results['clean']['coco/bbox_mAP_l'] == -1.0  # undefined, kept
    s = results['summary']['coco/bbox_mAP']
    assert (s['P'], s['mPC']) == (0.4, 0.2)
    cov = results['coverage']
    assert cov['benchmark'] == [4, 75] and not cov['complete']
    text = summary_text(results)
    assert 'incomplete grid: 4 of 75' in text
    assert 'gaussian_noise/2,4-5' in text and 'shot_noise/1-5' in text
    md = markdown_report(results)
    assert 'fog/2,4-5' in md and 'jpeg_compression/1-5' in md


def test_corruptions_go_by_name_not_position(tmp_path):
    """mmdet's robustness_eval averages the first 15 corruptions of a
    file; robustdet the benchmark's, wherever they are."""
    order = list(IMAGENET_C_CORRUPTIONS[15:]) + list(
        IMAGENET_C_CORRUPTIONS[:15])
    grid = paper_grid(
        coco_eval(0.4),
        lambda n, s: coco_eval(0.1 if n in BENCHMARK_CORRUPTIONS else 0.3),
        names=order)
    path = write_file(tmp_path / 'holdout_first.pkl', dumps_py2(grid))
    results = import_results([path], 'coco', str(tmp_path / 'run'))
    summary = results['summary']['coco/bbox_mAP']
    assert summary['mPC'] == pytest.approx(0.1)
    assert summary['mPC_holdout'] == pytest.approx(0.3)
    assert list(results['cells']) == list(IMAGENET_C_CORRUPTIONS)


def test_files_of_one_model_merge(tmp_path):
    def cell(name, sev):
        return coco_eval(0.1 * sev / 5 + 0.05)

    noise = paper_grid(coco_eval(0.4), cell, names=BENCHMARK_CORRUPTIONS[:3])
    rest = paper_grid(coco_eval(0.4), cell, names=BENCHMARK_CORRUPTIONS[3:])
    paths = [
        write_file(tmp_path / 'noise.pkl', pickle.dumps(noise, protocol=2)),
        write_file(tmp_path / 'rest.pkl', dumps_py2(rest))
    ]
    results = import_results(paths, 'coco', str(tmp_path / 'run'))
    assert results['coverage']['complete']
    assert [f['layout'] for f in results['imported']['files']] == [
        'mmdet2-coco', 'mmdet2-coco'
    ]
    # The same cell with other numbers in a second file is refused.
    other = paper_grid(coco_eval(0.4), lambda n, s: coco_eval(0.3),
                        names=BENCHMARK_CORRUPTIONS[:1])
    clash = write_file(tmp_path / 'clash.pkl', pickle.dumps(other, protocol=2))
    with pytest.raises(RobustDetError, match='gaussian_noise/1 results '
                       'differ from those in .*noise.pkl'):
        import_results([paths[0], clash], 'coco', str(tmp_path / 'run2'))
    assert not (tmp_path / 'run2').exists()


def test_task_selects_segm(tmp_path):
    grid = paper_grid(coco_eval(0.4, segm=0.35),
                       lambda n, s: coco_eval(0.2, segm=0.15),
                       names=BENCHMARK_CORRUPTIONS)
    path = write_file(tmp_path / 'mask.pkl', dumps_py2(grid))
    results = import_results([path], 'coco', str(tmp_path / 'a'), task='segm')
    assert set(results['summary']) == {
        f'coco/segm_{k}' for k in ('mAP', 'mAP_50', 'mAP_75', 'mAP_s',
                                   'mAP_m', 'mAP_l')
    }
    assert results['summary']['coco/segm_mAP']['rPC'] == pytest.approx(
        0.15 / 0.35)
    both = import_results([path], 'cityscapes', str(tmp_path / 'b'))
    assert {'coco/bbox_mAP', 'coco/segm_mAP'} <= set(both['summary'])


def test_robustdet_json_round_trip(tmp_path):
    native = new_results(
        dict(config_sha256='c' * 64, checkpoint_sha256='k' * 64, seed=0,
             backend='fast', channel_order='rgb'),
        config='configs/x.py', checkpoint='x.pth')
    native['clean'] = {'coco/bbox_mAP': 0.5}
    native['cells'] = {'fog': {'1': {'coco/bbox_mAP': 0.25}},
                       'h264_crf': {'3': {'coco/bbox_mAP': 0.4}}}
    refresh_summary(native)
    path = str(tmp_path / 'robustness.json')
    save_results(native, path)
    results = import_results([path], 'coco', str(tmp_path / 'run'))
    for key in ('clean', 'cells', 'summary', 'video_summary', 'backend',
                'seed', 'config_sha256', 'config'):
        assert results[key] == native[key], key
    assert results['imported']['files'][0]['layout'] == 'robustdet'
    # Imported runs are interchangeable with native ones.
    again = import_results([str(tmp_path / 'run' / 'robustness.json')],
                           'coco', str(tmp_path / 'again'))
    assert again['summary'] == native['summary']


class _Evil:

    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return os.system, (f'touch {self.marker}', )


def _bad_inputs(tmp_path):
    """(file content, --dataset, words the one-line error must hold)."""
    coco = paper_grid(coco_eval(0.4), lambda n, s: coco_eval(0.2),
                       names=['fog'])
    voc, _ = _voc_grid(np.random.default_rng(1), 3)
    marker = tmp_path / 'pwned'
    evil = paper_grid(coco_eval(0.4), lambda n, s: _Evil(marker),
                       names=['fog'])

    def with_cell(value, name='fog', sev=1):
        grid = paper_grid(coco_eval(0.4), lambda n, s: coco_eval(0.2),
                           names=[name], severities=[1])
        grid[name].pop(1)
        grid[name][sev] = value
        return dumps_py2(grid)

    def robustdet_json(**entries):
        native = dict(format='robustdet.robustness/1',
                      clean={'coco/bbox_mAP': 0.5},
                      cells={'fog': {'1': {'coco/bbox_mAP': 0.25}}})
        native.update(entries)
        return json.dumps(native).encode()

    voc_json = dict(metrics=['pascal_voc/mAP'], classes=['a', 'b'],
                    clean=[0.5, 'x'], cells={'fog': {'1': [0.2, 0.1]}})
    huge = 10**5000
    return [
        (b'%PDF-1.4 not results', 'coco', 'not a pickle or JSON'),
        (b'GIF89a not results', 'coco', 'not a readable pickle'),
        (b'\n' + pickle.dumps(coco, protocol=2), 'coco',
         'not a pickle or JSON file'),
        (b'{"cells": ', 'coco', 'not a readable JSON'),
        (dumps_py2(coco)[:-40], 'coco', 'truncated'),
        (pickle.dumps(evil, protocol=2), 'coco', 'names the global'),
        (pickle.dumps({'fog': {1: 'x'}}), 'coco', 'unknown layout'),
        (json.dumps({'format': 'other/1'}).encode(), 'coco',
         'unknown layout'),
        (dumps_py2(voc), 'coco', 'holds PASCAL VOC results'),
        (dumps_py2(coco), 'voc', 'holds COCO-style results'),
        (pickle.dumps(_mmdet3_grid('pascal_voc/')), 'coco',
         'holds PASCAL VOC results'),
        (with_cell(coco_eval(0.2), name='rain'), 'coco',
         "unknown corruption 'rain'"),
        (with_cell(coco_eval(0.2), sev=6), 'coco', 'severity 6'),
        (with_cell(coco_eval(0.2), sev=-1), 'coco', 'severity -1'),
        (with_cell(coco_eval(float('nan'))), 'coco', 'is NaN'),
        (with_cell(coco_eval(-0.5)), 'coco', 'is negative'),
        (with_cell(coco_eval(36.3)), 'coco', 'in percent'),
        # Values that are not real numbers: numpy's bool, complex, bytes.
        (pickle.dumps({'fog': {1: {'coco/bbox_mAP': np.True_}}}), 'coco',
         'is bool, not a number'),
        (pickle.dumps({'fog': {1: {'coco/bbox_mAP': np.complex128(0.5 + 3j)
                                   }}}), 'coco', "a numpy dtype 'c16'"),
        (pickle.dumps({'fog': {1: {'coco/bbox_mAP': np.array(b'0.5')}}}),
         'coco', "a numpy dtype 'S3'"),
        (pickle.dumps({'fog': {1: {'coco/bbox_mAP': '0.5'}}}), 'coco',
         'is str, not a number'),
        (b'{"fog": {"1": {"coco/bbox_mAP": ' + b'9' * 5000 + b'}}}', 'coco',
         'not a readable JSON file (Exceeds the limit'),
        (robustdet_json(cells={'fog': {'1': {'coco/bbox_mAP': 10**400}}}),
         'coco', 'an integer too large for a number'),
        # Keys no message can show whole.
        (pickle.dumps({'fog': {huge: {'coco/bbox_mAP': 0.5}}}), 'coco',
         'an integer of 2077 bytes (the cap is 64 bits)'),
        (robustdet_json(cells={'fog': {'9' * 5000: {'coco/bbox_mAP': 0.5}}}),
         'coco', "fog has severity '99999"),
        (b'\x80\x02}N' + b'\x85' * 100_000 + b'K\x01s.', 'coco',
         'nested more than 64 deep'),
        (b'[' * 200_000 + b']' * 200_000, 'coco', 'nested more than 64'),
        (b'[' * 100 + b']' * 100, 'coco', 'nested more than 64'),
        # Names that become file names and titles.
        (pickle.dumps({'fog': {1: {'coco/' + 'b' * 300: 0.5}}}), 'coco',
         'has 305 characters; names have 1 to 100'),
        (pickle.dumps({'fog': {1: {'coco/bbox\nmAP': 0.5}}}), 'coco',
         'not printable'),
        (pickle.dumps({'fog': {1: {'coco/bbox\ud800': 0.5}}}), 'coco',
         'a string that is not utf-8'),
        (robustdet_json(cells={'fog': {'1': {'coco/bbox\ud800': 0.5}}}),
         'coco', 'not printable'),
        (robustdet_json(name='x' * 300), 'coco', 'the run name'),
        (robustdet_json(per_class=voc_json), 'voc',
         'per_class clean class 1 is str, not a number'),
        (robustdet_json(cells={'fog': {'1': {
            f'coco/m{i}': 0.5 for i in range(1001)}}}), 'coco',
         'has 1001 entries; at most 1000'),
    ], marker


def test_bad_input_one_line_nothing_written(tmp_path):
    cases, marker = _bad_inputs(tmp_path)
    for i, (content, dataset, words) in enumerate(cases):
        path = write_file(tmp_path / f'bad{i}.pkl', content)
        work = tmp_path / f'run{i}'
        with pytest.raises(RobustDetError) as info:
            import_results([path], dataset, str(work))
        msg = str(info.value)
        assert words in msg, (i, msg)
        assert path in msg and '\n' not in msg, (i, msg)
        assert not work.exists(), i
    assert not marker.exists()
    unknown = str(info.value)
    # The unknown-layout message lists the known layouts.
    with pytest.raises(RobustDetError) as info:
        layout = next(c for c, _, w in cases if w == 'unknown layout')
        import_results([write_file(tmp_path / 'l.pkl', layout)], 'coco',
                       str(tmp_path / 'l'))
    assert all(k in str(info.value) for k in LAYOUTS), unknown


def test_inconsistent_files_refused(tmp_path):
    """Cells that would make a mean average fewer values, or a clean cell
    repeated with other numbers, give one line naming both places."""
    def fail(obj, words, dataset='coco'):
        path = write_file(tmp_path / 'x.pkl', pickle.dumps(obj, protocol=2))
        with pytest.raises(RobustDetError) as info:
            import_results([path], dataset, str(tmp_path / 'run'))
        assert words in str(info.value), str(info.value)
        assert '\n' not in str(info.value)
        assert not (tmp_path / 'run').exists()

    segm_missing = paper_grid(
        coco_eval(0.4, segm=0.3),
        lambda n, s: coco_eval(0.2, segm=None if s == 5 else 0.1),
        names=['fog'])
    fail(segm_missing, 'cell fog/5 has the metrics coco/bbox_mAP')
    voc, _ = _voc_grid(np.random.default_rng(2), 3)
    voc['fog'][2] = voc['fog'][2][:2]
    fail(voc, 'has 2 classes', 'voc')
    voc, _ = _voc_grid(np.random.default_rng(2), 3)
    voc['fog'][1] = [{'ap': np.zeros(3, np.float32)}] * 3
    fail(voc, 'is ndarray, not a number', 'voc')
    clean = paper_grid(coco_eval(0.4), lambda n, s: coco_eval(0.2),
                       names=['fog', 'snow'])
    clean['snow'][0] = coco_eval(0.41)
    fail(clean, '(snow): the clean results differ from those in')
    fail({'format': 'robustdet.robustness/1', 'cells': {'fog': [1]}},
         'are not mappings of metrics')


def test_all_cells_without_detection_and_voc_reimport(tmp_path):
    empty = {'fog': {0: {}, 3: {}}}
    path = write_file(tmp_path / 'empty.pkl', pickle.dumps(empty))
    results = import_results([path], 'coco', str(tmp_path / 'empty'))
    assert results['empty_cells'] == ['clean', 'fog/3']
    # A VOC import imported again keeps its per-class AP and name.
    grid, _ = _voc_grid(np.random.default_rng(3))
    path = write_file(tmp_path / 'voc.pkl', dumps_py2(grid))
    first = import_results([path], 'voc', str(tmp_path / 'a'), name='mine')
    again = import_results([str(tmp_path / 'a' / 'robustness.json')], 'voc',
                           str(tmp_path / 'b'))
    assert again['name'] == 'mine'
    assert again['per_class'] == first['per_class']
    assert again['summary'] == first['summary']
    assert again['summary']['pascal_voc/mAP']['rPC_class_mean'] is not None
    with pytest.raises(RobustDetError, match='bbox AP50 only|no segm'):
        import_results([path], 'voc', str(tmp_path / 'c'), task='segm')


def test_existing_work_dir_needs_overwrite(tmp_path):
    path = write_file(tmp_path / 'x.pkl', pickle.dumps(_mmdet3_grid()))
    work = tmp_path / 'run'
    work.mkdir()
    (work / 'notes.txt').write_text('mine')
    with pytest.raises(RobustDetError, match='--overwrite'):
        import_results([path], 'coco', str(work))
    assert sorted(os.listdir(work)) == ['notes.txt']
    import_results([path], 'coco', str(work), overwrite=True)
    assert (work / 'robustness.json').exists()


def test_overwrite_removes_what_the_replaced_run_wrote(tmp_path):
    """A segm-only import over a bbox + segm one leaves no bbox plot
    behind; the user's own files stay; a work dir whose results cannot be
    read is refused, untouched."""
    grid = paper_grid(coco_eval(0.4, segm=0.35),
                      lambda n, s: coco_eval(0.2, segm=0.15),
                      names=BENCHMARK_CORRUPTIONS[:2])
    path = write_file(tmp_path / 'mask.pkl', dumps_py2(grid))
    work = tmp_path / 'run'
    first = write_reports(import_results([path], 'coco', str(work)),
                          str(work))
    (work / 'notes.txt').write_text('mine')
    names = sorted(os.listdir(work))
    assert 'robustness_coco_bbox_mAP.png' in names
    again = write_reports(
        import_results([path], 'coco', str(work), task='segm',
                       overwrite=True), str(work))
    assert sorted(os.listdir(work)) == sorted(
        ['robustness.json', 'notes.txt'] + [os.path.basename(p)
                                            for p in again])
    assert 'robustness_coco_bbox_mAP.png' not in os.listdir(work)
    assert len(again) < len(first)
    (work / 'robustness.json').write_text('{"format": "other/1"}')
    with pytest.raises(RobustDetError, match='empty the work dir by hand'):
        import_results([path], 'coco', str(work), overwrite=True)
    assert (work / 'robustness_coco_segm_mAP.png').exists()


@pytest.mark.parametrize('protocol', [0, 1])
def test_python2_protocols_0_and_1_import_as_protocol_2(tmp_path, protocol):
    """What Python 2's cPickle.dump writes by default (protocol 0) and
    protocol 1 import with the numbers of the paper's protocol 2."""
    row = get_baseline('michaelis2019/coco/faster-rcnn_r50_fpn/standard/bbox')
    paper = published_like(tmp_path, row)
    with open(paper, 'rb') as f:
        assert f.read(2) == b'\x80\x02'
    want = import_results([paper], 'coco', str(tmp_path / 'p2'))
    grid = pickle.loads(open(paper, 'rb').read(), encoding='latin1')
    path = write_file(tmp_path / f'p{protocol}.pkl',
                      dumps_py2(grid, protocol))
    got = import_results([path], 'coco', str(tmp_path / 'p'))
    assert got['summary'] == want['summary']
    assert got['cells'] == want['cells'] and got['clean'] == want['clean']


def test_directory_and_missing_file(tmp_path):
    with pytest.raises(RobustDetError, match='is a directory, not a result'):
        import_results([str(tmp_path)], 'coco', str(tmp_path / 'run'))
    with pytest.raises(RobustDetError, match='no such file'):
        import_results([str(tmp_path / 'x.pkl')], 'coco',
                       str(tmp_path / 'run'))


def test_cli(tmp_path):
    path = write_file(tmp_path / 'x_results.pkl', pickle.dumps(_mmdet3_grid()))
    proc = run_tool('tools/import_results.py', path, '--dataset', 'coco',
                    '--work-dir', tmp_path / 'run', cwd=REPO)
    assert proc.returncode == 0, proc.stderr
    assert 'coco/bbox_mAP: P 40.0  mPC 20.0  rPC 50.0 %' in proc.stdout
    for name in ('robustness.json', 'robustness.md',
                 'robustness_coco_bbox_mAP.png'):
        assert (tmp_path / 'run' / name).stat().st_size > 0, name
    proc = run_tool('tools/import_results.py', path, '--dataset', 'voc',
                    '--work-dir', tmp_path / 'voc', cwd=REPO)
    assert proc.returncode == 2
    assert proc.stderr.startswith(f'error: {path} holds COCO-style')
    assert proc.stderr.count('\n') == 1 and 'Traceback' not in proc.stderr
    assert not (tmp_path / 'voc').exists()
    # A metric name too long for a plot's file name: nothing written.
    long = write_file(tmp_path / 'long.pkl', pickle.dumps(
        {'fog': {0: {'coco/bbox_mAP': 0.4, 'coco/' + 'm' * 300: 0.1}}}))
    proc = run_tool('tools/import_results.py', long, '--dataset', 'coco',
                    '--work-dir', tmp_path / 'long', cwd=REPO)
    assert proc.returncode == 2 and 'has 305 characters' in proc.stderr
    assert proc.stderr.count('\n') == 1 and 'Traceback' not in proc.stderr
    assert not (tmp_path / 'long').exists()
