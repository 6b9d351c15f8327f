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
             'faster-rcnn_r50_fpn_1x_imagenet-vid.py')


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
