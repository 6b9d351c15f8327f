# Copyright (c) robustdet contributors. All rights reserved.
"""tools/benchmarks/bench_coco_scale.py beside its run in
docs/benchmarks.md (tests/test_docs): the generated COCO-sized set, the
projection formula, and one line for each bad input."""
import importlib.util
import json
import os
import os.path as osp

import numpy as np
import pytest

from robustdet.utils.errors import RobustDetError
from tests.conftest import REPO
from tests.tool_process import run_tool

SCRIPT = osp.join(REPO, 'tools', 'benchmarks', 'bench_coco_scale.py')


@pytest.fixture(scope='module')
def bench():
    spec = importlib.util.spec_from_file_location('bench_coco_scale', SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_generated_set_is_coco_sized_and_reused(bench, tmp_path):
    from mmdet.datasets import CocoDataset

    from robustdet.models import load_detections
    data = str(tmp_path / 'data')
    bench.ensure_data(data, 3, seed=0)
    with open(osp.join(data, 'annotations', 'instances_val.json')) as f:
        coco = json.load(f)
    assert [c['name'] for c in coco['categories']] == list(
        CocoDataset.METAINFO['classes'])
    assert len(coco['images']) == 3 and len(coco['annotations']) > 6
    import cv2
    names = sorted(os.listdir(osp.join(data, 'images')))
    assert names == sorted(i['file_name'] for i in coco['images'])
    img = cv2.imread(osp.join(data, 'images', names[0]))
    assert img.shape == (480, 640, 3)
    dets = load_detections(osp.join(data, 'detections.npz'))
    assert sorted(dets) == names
    assert all(len(d[1]) == 100 and d[2].max() < 80 for d in dets.values())
    # Reused as it is; made again for another size.
    stamp = os.stat(osp.join(data, 'images', names[0])).st_mtime_ns
    bench.ensure_data(data, 3, seed=0)
    assert os.stat(osp.join(data, 'images', names[0])).st_mtime_ns == stamp
    bench.ensure_data(data, 2, seed=0)
    assert len(os.listdir(osp.join(data, 'images'))) == 2


def test_projection(bench):
    # data side 0.2 CPU-s per image-cell on 4 cores: 250 s a cell of
    # 5000 images; the model at 10 images/s: 500 s; evaluation 60 s.
    assert bench.project(0.2, 60, 4, 10, 76) == pytest.approx(76 * 560)
    assert bench.project(0.2, 60, 4, 10, 76, overlap=True) == \
        pytest.approx(76 * 500 + 60)
    # Evaluation slower than the rest: it decides the overlapped time.
    assert bench.project(0.01, 60, 16, 0, 76, overlap=True) == \
        pytest.approx(76 * 60 + 60)
    assert bench.project(0.2, 60, 4, 0, 2, images=100) == \
        pytest.approx(2 * (5 + 60))


@pytest.mark.parametrize('args,words', [
    (['--images', '0'], '--images 0: give at least 1'),
    (['--images', '5', '--r50-images', '6'], '--r50-images 6: from 0 to'),
    (['--cores', '999'], '--cores 999: this machine lets this process use'),
    (['--r50-config', 'nowhere.py'], 'nowhere.py: no such config'),
])
def test_bad_input_one_line(args, words):
    proc = run_tool(SCRIPT, *args, cwd=REPO)
    assert proc.returncode == 2, proc.stderr[-2000:]
    assert proc.stderr.startswith('error: ') and words in proc.stderr
    assert proc.stderr.count('\n') == 1


def test_config_without_test_dataloader(tmp_path):
    config = tmp_path / 'no_test.py'
    config.write_text(
        f"_base_ = ['{REPO}/configs/benchmarks/replay_coco-scale.py']\n"
        'test_dataloader = None\n')
    proc = run_tool(SCRIPT, '--r50-config', config, cwd=REPO)
    assert proc.returncode == 2, proc.stderr[-2000:]
    assert proc.stderr == f'error: {config} has no test_dataloader\n'


def test_missing_mmdet_script(bench, monkeypatch, tmp_path):
    import mmdet
    monkeypatch.setattr(mmdet, '__file__', str(tmp_path / '__init__.py'))
    with pytest.raises(RobustDetError, match="mmdet's .*test_robustness.py "
                       'is missing'):
        bench.mmdet_script()


def test_texture_is_photo_like(bench):
    img = bench._texture(np.random.default_rng(0), 48, 64)
    assert img.shape == (48, 64, 3) and img.dtype == np.uint8
    assert 20 < img.std() < 120


def test_seeded_weights_and_empty_checkpoint(bench, tmp_path):
    """The R50-FPN runs' weights: the config's model initialised from the
    seed (the same bytes again), loadable by robustdet's safe loader; an
    empty state dict for ReplayDetector."""
    import torch

    from robustdet.utils import load_checkpoint_file
    config = tmp_path / 'tiny_coco-scale.py'
    base = osp.join(REPO, 'configs', '_base_')
    config.write_text(
        f"_base_ = ['{base}/models/faster-rcnn_r18-c16_fpn-c64.py',\n"
        f"          '{base}/datasets/coco-scale_detection.py',\n"
        "          'mmdet::_base_/default_runtime.py']\n"
        'model = dict(roi_head=dict(bbox_head=dict(num_classes=80)))\n')
    replay, weights = bench.save_checkpoints(str(tmp_path / 'a'), str(config),
                                             3, True)
    assert load_checkpoint_file(replay)['state_dict'] == {}
    again = bench.save_checkpoints(str(tmp_path / 'b'), str(config), 3,
                                   True)[1]
    first, second = (load_checkpoint_file(p)['state_dict']
                     for p in (weights, again))
    assert osp.basename(weights) == 'tiny_coco-scale_seed3.pth'
    assert first.keys() == second.keys() and len(first) > 50
    assert all(torch.equal(first[k], second[k]) for k in first)
    assert first['roi_head.bbox_head.fc_cls.weight'].shape[0] == 81


def test_report_of_measured_runs(bench, capsys):
    """The table, the ratios and the projection from the runs' timings."""
    import argparse
    runs = dict(mmdet=dict(wall=120.0, cpu=220.0),
                robustdet=dict(wall=40.0, cpu=70.0),
                robustdet_fast=dict(wall=30.0, cpu=50.0),
                model_only=dict(wall=20.0, cpu=30.0))
    results = dict(
        machine=dict(cpu='test CPU', cores=2), harness=runs,
        startup=dict(wall=8.0, cpu=9.0),
        eval_per_cell_quick={'pycocotools': dict(wall=0.5, cpu=0.5),
                             'faster-coco-eval': dict(wall=0.1, cpu=0.1)},
        r50=dict(images=4, cells=3, runs={
            k: dict(wall=v['wall'] * 3, cpu=v['cpu']) for k, v in
            runs.items()}),
        corruptions=dict(fast_vs_reference=12.0, smallest_ratio=2.0,
                         zoom_blur_fast_vs_reference=25.0, variants=75))
    args = argparse.Namespace(images=10, project_cores=16,
                              project_ips=25.0)
    bench.report(results, args, 2, {'pycocotools': 50.0,
                                    'faster-coco-eval': 7.0})
    out = capsys.readouterr().out
    assert '| mmdet | 5.6000 | 30.000 | 1.00x | 6.000 |' in out
    assert '| robustdet | 1.6000 | 10.000 | 3.00x | 2.000 |' in out
    # d = (70 - 9 - 2 x 0.5) / 20 = 3.0 CPU-s per image-cell
    assert results['data_cpu_seconds_per_image_cell']['robustdet'] == \
        pytest.approx(3.0)
    assert results['projected_seconds_full_cococ']['robustdet']['here'] == \
        pytest.approx(2 * (5000 * 3.0 / 2 + 50.0))
    assert results['harness_speedup_vs_mmdet']['measured'] == 3.0
    assert results['fast_vs_reference'] == 12.0
    # On the 16-core host each tool as it runs by default: mmdet's script
    # in line only, robustdet's evaluation beside the model (auto).
    projected = results['projected_seconds_full_cococ']
    assert projected['mmdet']['host_overlapped'] is None
    assert '| mmdet | 10.5000 |' in out and '- (in line only) |' in out
    hours = results['projected_hours_full_cococ']
    assert hours['mmdet'] == pytest.approx(projected['mmdet']['host'] / 3600)
    assert hours['robustdet'] == pytest.approx(
        projected['robustdet']['host_overlapped'] / 3600)
    assert hours['robustdet'] < hours['mmdet']
