# Copyright (c) robustdet contributors. All rights reserved.
"""tools/import_results.py on a real mmdet 3.3 result pickle: mmdet's own
``tools/analysis_tools/test_robustness.py`` (shipped in the mmdet wheel)
runs the committed demo checkpoint on the small demo data, robustdet
imports its ``X_results.pkl``, and the imported numbers must be those of
``tools/test_robust.py --backend reference --channel-order bgr`` (mmdet's
own corruption code on mmdet's BGR arrays) on the same deterministic
cells, exactly, including a cell without any detection.

mmdet's script runs on this stack only with ``PYTHONPATH=<mmdet>/.mim``,
``TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD=1`` (in its own process only, for our
own checkpoint) and a backbone ``init_cfg`` that is not None. It saves a
cell without any detection as ``{}`` (mmdet's CocoMetric returns no
metrics then), and its final aggregation, after every cell was saved,
fails on such a cell with ``KeyError: 'bbox_mAP'``.
"""
import os
import os.path as osp

import pytest

from robustdet.apis.results import RESULTS_FILE, load_results
from robustdet.corruptions import CORRUPTIONS_BY_NAME
from robustdet.utils.safe_pickle import load_pickle
from tests.conftest import REPO, sha256_file
from tests.tool_process import ToolProcess, run_tool

# Deterministic corruptions whose cells all differ from clean and from
# each other on the demo checkpoint, so that a cell read into the wrong
# place changes a number.
CORRUPTIONS = ['defocus_blur', 'brightness']
SEVERITIES = [0, 2, 5]
# The demo checkpoint detects nothing at any contrast severity: mmdet's
# CocoMetric then returns no metrics, and its script saves the cell as {}.
EMPTY = ('contrast', 5)
EMPTY_SEVERITIES = [0, EMPTY[1]]
METRIC = 'coco/bbox_mAP'


def _mmdet_dir():
    import mmdet
    return osp.dirname(mmdet.__file__)


def _start_mmdet(config, ckpt, work, corruptions, severities):
    """Start mmdet's test_robustness.py (in a process forked from the
    tools' forkserver); returns the process and the pickle of per-cell
    results it writes."""
    mim = osp.join(_mmdet_dir(), '.mim')
    env = dict(
        os.environ, PYTHONPATH=mim, TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD='1')
    os.makedirs(work)
    out = osp.join(work, 'out.pkl')
    proc = ToolProcess(
        osp.join(mim, 'tools', 'analysis_tools', 'test_robustness.py'), [
            config, ckpt, '--out', out, '--work-dir', work, '--corruptions',
            *corruptions, '--severities', *map(str, severities),
            '--cfg-options', 'model.backbone.init_cfg._delete_=True',
            'model.backbone.init_cfg.type=None'
        ], cwd=work, env=env)
    return proc, osp.join(work, 'out_results.pkl')


def _finish_mmdet(proc, pkl, corruptions, severities):
    """Wait for mmdet's script; it must have saved every requested cell,
    and fail only in its final aggregation, where a cell is empty. Returns
    what it saved."""
    done = proc.wait(timeout=300)
    stderr = done.stderr
    assert osp.isfile(pkl), f'no {pkl}:\n{stderr[-3000:]}'
    saved = load_pickle(pkl)
    wanted = {n: sorted(severities) for n in corruptions}
    assert {n: sorted(v) for n, v in saved.items()} == wanted, \
        stderr[-3000:]
    if all(cell for per_sev in saved.values() for cell in per_sev.values()):
        assert done.returncode == 0, stderr[-3000:]
        return saved
    # mmdet 3.3's robustness_eval looks up 'bbox_mAP' in every cell after
    # the last one was saved; nothing else may go wrong.
    lines = stderr.strip().splitlines()
    assert done.returncode == 1, stderr[-3000:]
    assert lines[-1] == "KeyError: 'bbox_mAP'", stderr[-3000:]
    frames = [line for line in lines if line.lstrip().startswith('File ')]
    assert 'robustness_eval.py' in frames[-1], stderr[-3000:]
    assert 'in get_coco_style_results' in frames[-1], stderr[-3000:]
    assert sum(line.startswith('Traceback') for line in lines) == 1
    return saved


def _import(*args):
    return run_tool('tools/import_results.py', *args, cwd=REPO)


@pytest.fixture(scope='module')
def runs(demo_checkpoint, tmp_path_factory):
    """mmdet's script on the grid and, at the same time, on the empty
    cell; then robustdet's test_robust.py on both grids at once, and the
    grid's pickle imported.

    Returns a dict: ``mmdet`` (what mmdet saved), ``pickle`` (its path),
    ``native`` (test_robust.py's results), ``imported`` (the import's
    results), ``stdout`` (the import's), ``empty`` and ``empty_pickle``
    (what mmdet saved on the clean and the empty cell, and its path).
    """
    config, ckpt = demo_checkpoint
    root = tmp_path_factory.mktemp('import_mmdet')
    for name in CORRUPTIONS + [EMPTY[0]]:
        assert not CORRUPTIONS_BY_NAME[name].stochastic, name
    started = []
    try:
        grid = _start_mmdet(config, ckpt, str(root / 'mmdet'), CORRUPTIONS,
                            SEVERITIES)
        started.append(grid[0])
        empty = _start_mmdet(config, ckpt, str(root / 'mmdet_empty'),
                             [EMPTY[0]], EMPTY_SEVERITIES)
        started.append(empty[0])
        saved = _finish_mmdet(*grid, CORRUPTIONS, SEVERITIES)
        empty_saved = _finish_mmdet(*empty, [EMPTY[0]], EMPTY_SEVERITIES)
    finally:
        for proc in started:
            proc.close()
    native_dir = root / 'native'
    done = run_tool(
        'tools/test_robust.py', config, ckpt, '--work-dir', native_dir,
        '--corruptions', *CORRUPTIONS, EMPTY[0], '--severities',
        *SEVERITIES, '--backend', 'reference', '--channel-order', 'bgr',
        cwd=REPO)
    assert done.returncode == 0, done.stderr[-3000:]
    imported_dir = root / 'imported'
    proc = _import(grid[1], '--dataset', 'coco', '--work-dir', imported_dir)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return dict(
        mmdet=saved,
        pickle=grid[1],
        native=load_results(str(native_dir / RESULTS_FILE)),
        imported=load_results(str(imported_dir / RESULTS_FILE)),
        stdout=proc.stdout,
        empty=empty_saved,
        empty_pickle=empty[1],
        root=root)


@pytest.mark.cpu_sensitive
def test_imported_cells_equal_test_robust(runs):
    imported, native = runs['imported'], runs['native']
    clean = native['clean']
    assert set(imported['clean']) == set(clean)
    assert imported['clean'] == clean
    # The pickle's own numbers, severities as strings.
    assert imported['clean'] == runs['mmdet'][CORRUPTIONS[0]][0]
    assert imported['cells'] == {
        n: {str(s): runs['mmdet'][n][s] for s in SEVERITIES if s}
        for n in CORRUPTIONS}
    assert list(imported['cells']) == CORRUPTIONS
    values = [clean[METRIC]]
    for name in CORRUPTIONS:
        want = [str(s) for s in SEVERITIES if s]
        assert list(imported['cells'][name]) == want, name
        for sev in want:
            got, ref = imported['cells'][name][sev], native['cells'][name][sev]
            assert set(got) == set(ref) and METRIC in got, (name, sev)
            assert got == ref, (name, sev, got, ref)
            values.append(ref[METRIC])
    # Every cell differs from clean and from the others, so a cell read
    # into the wrong corruption or severity would change a number.
    assert len(set(values)) == len(values), values
    assert imported['empty_cells'] == []


def test_imported_summary_and_coverage(runs):
    imported, native = runs['imported'], runs['native']
    cells = {n: native['cells'][n] for n in CORRUPTIONS}
    row = imported['summary'][METRIC]
    values = [cells[n][s][METRIC] for n in CORRUPTIONS for s in ('2', '5')]
    assert row['P'] == native['clean'][METRIC]
    assert row['mPC'] == pytest.approx(sum(values) / len(values))
    assert row['rPC'] == pytest.approx(row['mPC'] / row['P'])
    coverage = imported['coverage']
    assert not coverage['complete']
    assert coverage['benchmark'] == [4, 75]
    assert len(coverage['missing']) == 71
    assert 'defocus_blur/1' in coverage['missing']
    assert 'gaussian_noise/3' in coverage['missing']
    for name in CORRUPTIONS:
        assert f'{name}/2' not in coverage['missing']
        assert f'{name}/5' not in coverage['missing']
    assert f'{METRIC}: P' in runs['stdout']


def test_imported_provenance(runs):
    imported, native = runs['imported'], runs['native']
    info = imported['imported']
    assert info['dataset'] == 'coco'
    assert info['task'] is None
    assert len(info['files']) == 1
    entry = info['files'][0]
    assert entry['layout'] == 'mmdet3'
    assert entry['path'] == osp.abspath(runs['pickle'])
    assert entry['sha256'] == sha256_file(runs['pickle'])
    assert imported['name'] == 'imported'
    # mmdet's Corrupt runs imagecorruptions on BGR arrays, as the native
    # run did.
    assert imported['backend'] == native['backend'] == 'reference'
    assert imported['channel_order'] == native['channel_order'] == 'bgr'


def test_coco_pickle_as_voc_is_refused(runs, tmp_path):
    work = tmp_path / 'voc'
    proc = _import(runs['pickle'], '--dataset', 'voc', '--work-dir', work)
    assert proc.returncode == 2, proc.stderr
    assert 'Traceback' not in proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith('error: '), lines[0]
    assert runs['pickle'] in lines[0]
    assert 'COCO-style results' in lines[0]
    assert not work.exists()


@pytest.mark.cpu_sensitive
def test_cell_without_detections(runs):
    """mmdet saves a cell without any detection as {}; the import records
    it in ``empty_cells`` and gives it the metrics of no detection, as
    test_robust.py does."""
    name, sev = EMPTY
    pkl = runs['empty_pickle']
    assert runs['empty'] == {
        name: {0: runs['mmdet'][CORRUPTIONS[0]][0], sev: {}}}
    native = runs['native']
    assert f'{name}/{sev}' in native['empty_cells']
    work = runs['root'] / 'imported_empty'
    done = _import(pkl, '--dataset', 'coco', '--work-dir', work)
    assert done.returncode == 0, done.stderr
    imported = load_results(str(work / RESULTS_FILE))
    assert imported['clean'] == native['clean']
    assert imported['cells'] == {name: {str(sev): native['cells'][name][
        str(sev)]}}
    assert imported['empty_cells'] == [f'{name}/{sev}']
