# Copyright (c) robustdet contributors. All rights reserved.
"""tools/check_published_results.py on generated Python 2 pickles in the
layout of the paper's benchmark repository (no network here to fetch the
real ones): rows that match pass, a file that does not is named."""
import os.path as osp

from robustdet.baselines import get_baseline
from tests.conftest import REPO
from tests.py2_pickle import dumps_py2
from tests.result_pickles import (coco_eval, paper_grid, published_like,
                                  voc_like)
from tests.tool_process import run_tool

FASTER = 'michaelis2019/coco/faster-rcnn_r50_fpn/standard/bbox'
VOC = 'michaelis2019/voc/faster-rcnn_r50_fpn/standard/bbox'


def test_published_layout(tmp_path):
    repo = tmp_path / 'robust-detection-benchmark'
    (repo / 'results' / 'coco').mkdir(parents=True)
    (repo / 'raw-data' / 'pascal_voc').mkdir(parents=True)
    (repo / 'results' / 'cityscapes').mkdir(parents=True)
    coco = published_like(repo / 'results' / 'coco', get_baseline(FASTER))
    assert osp.basename(coco) == 'faster_rcnn_r50_fpn_1x_coco_results.pkl'
    voc_like(repo / 'raw-data' / 'pascal_voc' /
              'faster_rcnn_r50_fpn_1x_voc0712_results.pkl', get_baseline(VOC))
    # Cityscapes Faster R-CNN published 36.4 / 12.2: this one is not.
    city = repo / 'results' / 'cityscapes' / \
        'faster_rcnn_r50_fpn_1x_city_results.pkl'
    city.write_bytes(dumps_py2(
        paper_grid(coco_eval(0.364), lambda n, s: coco_eval(0.15))))
    proc = run_tool('tools/check_published_results.py', repo, cwd=REPO)
    assert proc.returncode == 1, proc.stderr
    lines = proc.stdout.splitlines()
    assert f'ok   {FASTER}: imported (36.3, 18.2, 50.2), published ' \
        '(36.3, 18.2, 50.2)' in proc.stdout
    assert f'ok   {VOC}: imported (80.5, 48.6, 60.4)' in proc.stdout
    assert any(line.startswith('DIFF michaelis2019/cityscapes/faster-rcnn')
               and str(city) in line for line in lines), proc.stdout
    assert lines[-1] == '3 files: some differ'
    # Without the wrong file every row is as published.
    city.unlink()
    proc = run_tool('tools/check_published_results.py', repo, cwd=REPO)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.splitlines()[-1] == '2 files: all as published'
