# Copyright (c) robustdet contributors. All rights reserved.
"""tools/test_robust.py with the newer families (C-bar, 3DCC, depth) and
``--region``, end to end on the small demo data and the committed tiny
detector, and their one-line errors."""
import json
import os
import os.path as osp
import sys

import numpy as np
import pytest
from PIL import Image

from robustdet.apis.results import RESULTS_FILE, load_results
from tests.conftest import REPO
from tests.tool_process import run_tool

GRID = ['--corruptions', 'sparkles', 'color_quant', '--severities', '0', '5']


def _run(config, ckpt, work_dir, *extra):
    return run_tool('tools/test_robust.py', config, ckpt, '--work-dir',
                    str(work_dir), *extra, cwd=REPO)


def _one_line_error(proc, expect):
    assert proc.returncode == 2, proc.stderr[-2000:]
    lines = proc.stderr.strip().splitlines()
    assert lines[-1].startswith('error: '), proc.stderr[-2000:]
    assert 'Traceback' not in proc.stderr
    assert expect in lines[-1], lines[-1]


@pytest.fixture(scope='module')
def regions_run(demo_checkpoint, tmp_path_factory):
    config, ckpt = demo_checkpoint
    work = tmp_path_factory.mktemp('regions')
    proc = _run(config, ckpt, work, *GRID, '--region', 'all', 'objects',
                'background')
    assert proc.returncode == 0, proc.stderr[-3000:]
    return work, proc.stdout


def _results(work, region):
    return load_results(str(work / f'region-{region}' / RESULTS_FILE))


def test_one_run_per_region_with_family_summaries(regions_run):
    work, stdout = regions_run
    runs = {r: _results(work, r) for r in ('all', 'objects', 'background')}
    for region, results in runs.items():
        assert results['region'] == region
        assert set(results['cells']) == {'sparkles', 'color_quant'}
        # Neither depends on the CPU with the fast backend: no mark.
        assert results['cpu_dependent'] == []
        row = results['summary']['coco/bbox_mAP']
        # No benchmark cell: the 15's mPC is undefined, the families' are
        # the means of their own cells.
        assert row['mPC'] is None
        cells = results['cells']
        assert row['mPC_cbar'] == cells['sparkles']['5']['coco/bbox_mAP']
        assert row['mPC_3dcc'] == cells['color_quant']['5']['coco/bbox_mAP']
        assert row['rPC_cbar'] == row['mPC_cbar'] / row['P']
        assert results['coverage']['cbar'] == [1, 50]
        assert results['coverage']['3dcc'] == [1, 30]
        md = (work / f'region-{region}' / 'robustness.md').read_text()
        # Only the families the run has: not the 15's columns.
        assert ('| metric | P | mPC_cbar | rPC_cbar | mPC_3dcc | rPC_3dcc |'
                in md)
        assert ('region `objects`' in md) == (region == 'objects')
        assert 'depend on the CPU' not in md
    # Clean is the same image set in every region; the corrupted cells are
    # not (color_quant at severity 5 leaves one bit per channel).
    assert len({json.dumps(r['clean']) for r in runs.values()}) == 1
    q5 = {r: runs[r]['cells']['color_quant']['5']['coco/bbox_mAP']
          for r in runs}
    assert len(set(q5.values())) > 1, q5
    regions_md = (work / 'regions.md').read_text()
    for region in runs:
        assert f'| {region} |' in regions_md
    assert 'region all:' in stdout and 'mPC_cbar' in stdout


def test_corruption_errors_against_a_baseline_run(regions_run, tmp_path,
                                                 demo_checkpoint):
    """--ce-baseline: CE per family of the objects run against the run
    that corrupts everything, in the JSON, the report and the summary."""
    work, _ = regions_run
    config, ckpt = demo_checkpoint
    base = work / 'region-all' / RESULTS_FILE
    proc = _run(config, ckpt, tmp_path / 'w', '--corruptions', 'color_quant',
                '--severities', '0', '5', '--region', 'objects',
                '--ce-baseline', str(base))
    assert proc.returncode == 0, proc.stderr[-3000:]
    results = load_results(str(tmp_path / 'w' / RESULTS_FILE))
    # The same cell as the objects run of the fixture.
    objects = _results(work, 'objects')
    m = 'coco/bbox_mAP'
    assert results['cells']['color_quant'] == objects['cells']['color_quant']
    entry = results['corruption_errors']
    assert entry['baseline']['kind'] == 'run'
    assert entry['baseline']['source'] == str(base)
    row = entry['metrics'][m]['3dcc']
    ap = results['cells']['color_quant']['5'][m]
    base_ap = load_results(str(base))['cells']['color_quant']['5'][m]
    assert row['CE'] == {'color_quant': (1 - ap) / (1 - base_ap)}
    assert row['mCE'] == row['CE']['color_quant']
    md = (tmp_path / 'w' / 'robustness.md').read_text()
    assert '## Corruption errors' in md and 'region-all' in md
    assert f'| color_quant | {100 * row["mCE"]:.1f} |' in md
    assert f'3dcc mCE {100 * row["mCE"]:.1f} % over 1' in proc.stdout
    # The family's mean says it covers one corruption.
    assert f'| 3DCC | {100 * row["mCE"]:.1f} (1) |' in md
    # The report tool: the recorded baseline with --mce, none without.
    again = run_tool('tools/robustness_report.py',
                     str(tmp_path / 'w' / RESULTS_FILE), '--mce',
                     '--out-dir', str(tmp_path / 'r'), cwd=REPO)
    assert again.returncode == 0, again.stderr[-2000:]
    assert '## Corruption errors' in (tmp_path / 'r' /
                                      'robustness.md').read_text()
    none = run_tool('tools/robustness_report.py', str(base), '--mce',
                    '--out-dir', str(tmp_path / 'r2'), cwd=REPO)
    _one_line_error(none, '--mce needs a baseline')
    # A baseline without the run's cells, or a published row for C-bar.
    proc = _run(config, ckpt, tmp_path / 'x', '--corruptions', 'sparkles',
                'fog', '--severities', '0', '5', '--ce-baseline', str(base))
    _one_line_error(proc, 'lacks cells the run has: fog/5')
    proc = _run(config, ckpt, tmp_path / 'x', '--corruptions', 'sparkles',
                '--ce-baseline',
                'michaelis2019/coco/faster-rcnn_r50_fpn/standard/bbox')
    _one_line_error(proc, 'no numbers for sparkles')
    assert not (tmp_path / 'x').exists()


def test_region_needs_ground_truth(demo_checkpoint, tmp_path):
    from robustdet.utils.cli import load_config
    config, ckpt = demo_checkpoint
    cfg = load_config(config)
    ds = cfg.test_dataloader.dataset
    # The same test set with every annotation dropped.
    with open(osp.join(ds.data_root, ds.ann_file)) as f:
        coco = json.load(f)
    coco['annotations'] = []
    ann = tmp_path / 'empty.json'
    ann.write_text(json.dumps(coco))
    ds.ann_file = str(ann)
    ds.filter_cfg = None
    cfg.test_evaluator.ann_file = str(ann)
    cfg.dump(str(tmp_path / 'no_gt.py'))
    proc = _run(str(tmp_path / 'no_gt.py'), ckpt, tmp_path / 'w', *GRID,
                '--region', 'objects')
    _one_line_error(proc, '--region objects needs ground-truth boxes')
    assert not (tmp_path / 'w' / RESULTS_FILE).exists()


def test_depth_corruptions_need_depth(demo_checkpoint, tmp_path):
    config, ckpt = demo_checkpoint
    proc = _run(config, ckpt, tmp_path / 'w', '--corruptions', 'fog_3d',
                '--severities', '1')
    _one_line_error(proc, 'fog_3d need(s) a depth map per image')
    proc = _run(config, ckpt, tmp_path / 'w', '--corruptions', 'fog_3d',
                '--severities', '1', '--depth-folder', 'depth',
                '--depth-suffix', '.npy', '--depth-scale', '1')
    _one_line_error(proc, 'no depth map for image')
    assert 'depth/val2017/100001.npy does not exist' in proc.stderr
    proc = _run(config, ckpt, tmp_path / 'w', '--corruptions', 'sparkles',
                '--region', 'objects', '--backend', 'torch')
    _one_line_error(proc, 'use --backend fast')
    proc = _run(config, ckpt, tmp_path / 'w', '--corruptions', 'cbarr')
    _one_line_error(proc, "unknown corruption 'cbarr'")
    assert 'cbar' in proc.stderr and '3dcc_depth_free' in proc.stderr
    assert not (tmp_path / 'w').exists()


@pytest.mark.cpu_sensitive
def test_depth_folder_run(demo_checkpoint, tmp_path):
    """fog_3d with depth maps named like the images: the far images are
    fogged more than a depth-free run could tell."""
    config, ckpt = demo_checkpoint
    from robustdet.utils.cli import load_config
    ds = load_config(config).test_dataloader.dataset
    img_dir = osp.join(ds.data_root, ds.data_prefix['img'])
    depth_dir = tmp_path / 'depth'
    for name in os.listdir(img_dir):
        h, w = np.asarray(Image.open(osp.join(img_dir, name))).shape[:2]
        sub = depth_dir / ds.data_prefix['img']
        sub.mkdir(parents=True, exist_ok=True)
        # 2 m at the bottom row to 60 m at the top, in millimetres.
        depth = np.linspace(60000, 2000, h)[:, None].repeat(w, axis=1)
        Image.fromarray(depth.astype(np.uint16)).save(
            sub / (osp.splitext(name)[0] + '.png'))
    proc = _run(config, ckpt, tmp_path / 'w', '--corruptions', 'fog_3d',
                '--severities', '0', '5', '--depth-folder', str(depth_dir),
                '--depth-suffix', '.png', '--depth-scale', '0.001')
    assert proc.returncode == 0, proc.stderr[-3000:]
    results = load_results(str(tmp_path / 'w' / RESULTS_FILE))
    assert results['depth']['kind'] == 'folder'
    assert results['depth']['scale'] == 0.001
    # The calibration: the source's by default, in the JSON and the report.
    assert results['depth']['calibration'] == 'taskonomy'
    md = (tmp_path / 'w' / 'robustness.md').read_text()
    assert "'calibration': 'taskonomy'" in md
    row = results['summary']['coco/bbox_mAP']
    assert row['mPC_3dcc'] < row['P']
    # Another depth is another run: not mixed into these results.
    proc = _run(config, ckpt, tmp_path / 'w', '--corruptions', 'fog_3d',
                '--severities', '0', '5', '--depth-folder', str(depth_dir),
                '--depth-suffix', '.png', '--depth-scale', '0.002')
    _one_line_error(proc, 'holds results of another run')
    proc = _run(config, ckpt, tmp_path / 'w', '--corruptions', 'fog_3d',
                '--severities', '0', '5', '--depth-folder', str(depth_dir),
                '--depth-suffix', '.png', '--depth-scale', '0.001',
                '--depth-calibration', 'percentile')
    _one_line_error(proc, 'holds results of another run')
    # The source's inverse-depth convention on metric depth: refused.
    proc = _run(config, ckpt, tmp_path / 'w2', '--corruptions', 'fog_3d',
                '--depth-folder', str(depth_dir), '--depth-suffix', '.png',
                '--depth-scale', '0.001', '--depth-calibration', 'midas')
    _one_line_error(proc, "depth calibration 'midas' is for a folder of "
                    'inverse depth')
    proc = _run(config, ckpt, tmp_path / 'w2', '--corruptions', 'fog_3d',
                '--depth-calibration', 'taskonomy')
    _one_line_error(proc, '--depth-calibration needs --depth or '
                    '--depth-folder')


if __name__ == '__main__':
    sys.exit(pytest.main([__file__]))
