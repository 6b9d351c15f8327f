# Copyright (c) robustdet contributors. All rights reserved.
"""Every config loads, inherits mmdet:: bases, imports robustdet, and the -C
configs wrap exactly their test set."""
import glob
import os.path as osp
import re

import pytest

from robustdet.apis.job_configs import unwrap_corrupted
from tests.conftest import REPO
from tests.test_configs import load_config

# The leaf configs (configs/<folder>/*.py, not the _base_ parts) and the -C
# dataset parts.
CONFIGS = sorted(
    glob.glob(osp.join(REPO, 'configs', '[!_]*', '*.py')) +
    glob.glob(osp.join(REPO, 'configs', '_base_', 'datasets', '*-c*.py')))
# The -C configs: 'coco-c.py', 'coco-c_detection.py', 'pascal-c.py' (not
# e.g. 'bdd100k-clear.py').
C_CONFIGS = [c for c in CONFIGS if re.search(r'-c[._]', osp.basename(c))
             and 'demo' not in osp.basename(c)]


# Configs that only test (no training set).
TEST_ONLY = ('faster-rcnn_r18-c16_fpn-c64_3e_demo-vid-pmk.py',
             'faster-rcnn_r18-c16_fpn-c64_3e_demo-vid.py',
             'faster-rcnn_r50_fpn_1x_imagenet-vid.py',
             # bench_coco_scale.py's
             'faster-rcnn_r50_fpn_coco-scale.py', 'replay_coco-scale.py')


@pytest.mark.parametrize('path', CONFIGS, ids=osp.basename)
def test_config_loads_with_custom_imports(path):
    cfg = load_config(path)
    assert cfg.custom_imports == dict(
        imports=['robustdet'], allow_failed_imports=False)
    assert cfg.test_dataloader is not None and cfg.test_evaluator
    if osp.basename(path) not in TEST_ONLY:
        assert cfg.train_dataloader.dataset


@pytest.mark.parametrize('path', C_CONFIGS, ids=osp.basename)
def test_c_configs_wrap_only_the_test_set(path):
    cfg = load_config(path)
    test = cfg.test_dataloader.dataset
    assert test.type == 'CorruptedDataset'
    assert test.dataset.test_mode
    assert cfg.val_dataloader.dataset.type != 'CorruptedDataset'
    names = [t['type'] for t in test.dataset.pipeline]
    assert names[0] == 'LoadImageFromFile'
    clean = unwrap_corrupted(cfg)
    assert clean.test_dataloader.dataset == test.dataset
    assert cfg.test_dataloader.dataset.type == 'CorruptedDataset'


def test_paper_settings():
    coco = load_config(
        f'{REPO}/configs/robustness/mask-rcnn_r50_fpn_1x_coco-c.py')
    assert coco.test_evaluator.metric == ['bbox', 'segm']
    voc = load_config(
        f'{REPO}/configs/robustness/faster-rcnn_r50_fpn_1x_voc0712-c.py')
    assert voc.test_evaluator.type == 'VOCMetric'
    assert voc.test_dataloader.dataset.dataset.ann_file.endswith(
        'VOC2007/ImageSets/Main/test.txt')
    city = load_config(
        f'{REPO}/configs/robustness/mask-rcnn_r50_fpn_1x_cityscapes-c.py')
    resize = [t for t in city.test_dataloader.dataset.dataset.pipeline
              if t['type'] == 'Resize']
    assert len(resize) == 1 and resize[0]['scale'] == (2048, 1024)
    assert city.test_evaluator.type == 'CocoMetric'


def test_imagenet_vid_video_config():
    cfg = load_config(
        f'{REPO}/configs/robustness/faster-rcnn_r50_fpn_1x_imagenet-vid.py')
    assert cfg.model.roi_head.bbox_head.num_classes == 30
    test = cfg.test_dataloader.dataset
    assert len(test.metainfo['classes']) == 30
    assert test.ann_file == 'annotations/imagenet_vid_val.json'
    assert test.data_prefix == dict(img='Data/VID/')
    from robustdet.datasets import IMAGENET_VID_CLASSES
    assert tuple(test.metainfo['classes']) == IMAGENET_VID_CLASSES


def test_coco_o_config_is_mmdets_coco_config():
    """The COCO-O config is mmdet's Faster R-CNN R50-FPN 1x COCO config as
    it is (its reference split is COCO val2017); test_shift.py points the
    test set and the evaluator at each domain."""
    from robustdet.apis.shift import (COCO_O_DOMAINS, get_benchmark,
                                      split_dataloader_cfg,
                                      split_evaluator_cfg)
    cfg = load_config(
        f'{REPO}/configs/shift/faster-rcnn_r50_fpn_1x_coco-o.py')
    mmdet = load_config(osp.join(
        osp.dirname(__import__('mmdet').__file__), '.mim', 'configs',
        'faster_rcnn', 'faster-rcnn_r50_fpn_1x_coco.py'))

    def unscoped(node):  # mmdet:: bases add _scope_='mmdet'
        if isinstance(node, dict):
            return {k: unscoped(v) for k, v in node.items()
                    if k != '_scope_'}
        if isinstance(node, (list, tuple)):
            return [unscoped(v) for v in node]
        return node

    for key in ('model', 'test_dataloader', 'test_evaluator',
                'train_dataloader', 'optim_wrapper', 'param_scheduler'):
        assert unscoped(cfg[key]) == unscoped(mmdet[key]), key
    assert cfg.test_dataloader.dataset.type == 'CocoDataset'
    assert cfg.test_evaluator.type == 'CocoMetric'
    bench = get_benchmark('coco-o')
    for domain in COCO_O_DOMAINS:
        dl = split_dataloader_cfg(cfg.test_dataloader, bench, domain, 'x',
                                  '/ood_coco')
        assert dl['dataset']['data_root'] == f'/ood_coco/{domain}/'
        assert dl['dataset']['pipeline'] == \
            cfg.test_dataloader.dataset.pipeline
        ev = split_evaluator_cfg(cfg.test_evaluator, bench, domain, 'x',
                                 '/ood_coco')
        assert ev['ann_file'] == \
            f'/ood_coco/{domain}/annotations/instances_val2017.json'
