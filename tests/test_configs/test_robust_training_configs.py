# Copyright (c) robustdet contributors. All rights reserved.
"""The robust-training configs: each is its standard or combined training
config with RandomCorrupt right after the image loading step of every
training pipeline, the training set wrapped in an EpochPositionDataset,
and RandomCorruptHook, and nothing else changed."""
import copy
import glob
import os.path as osp

import pytest
from mmdet.registry import HOOKS, TRANSFORMS

from robustdet.corruptions import HOLDOUT_CORRUPTIONS
from robustdet.datasets import RandomCorrupt
from robustdet.engine import RandomCorruptHook
from tests.conftest import REPO
from tests.test_configs import load_config

CONFIGS = osp.join(REPO, 'configs')
ROBUST = osp.join(CONFIGS, 'robust_training')
DEMO = 'demo/faster-rcnn_r18-c16_fpn-c64_3e_demo-coco'
# (config with RandomCorrupt, the config it adds RandomCorrupt to, the
# number of training pipelines)
PAIRS = [(f'robust_training/faster-rcnn_r50_fpn_1x_{tag}-randcorrupt',
          f'stylized/faster-rcnn_r50_fpn_1x_{tag}', pipelines)
         for tag, pipelines in (('coco', 1), ('cocoscoco', 2),
                                ('voc0712', 2), ('vocsvoc0712', 4),
                                ('city', 1), ('cityscity', 2))]
PAIRS.append((f'{DEMO}-randcorrupt', DEMO, 1))


def _load(name):
    return load_config(osp.join(CONFIGS, name + '.py'))


def _train_pipelines(dataset):
    """Every pipeline of a training set config, wrappers looked through."""
    if 'pipeline' in dataset:
        return [dataset['pipeline']]
    inner = dataset.get('datasets', [dataset.get('dataset')])
    return [p for d in inner if d for p in _train_pipelines(d)]


def _without_random_corrupt(node):
    """A config dict with every RandomCorrupt transform taken out."""
    if isinstance(node, dict):
        return {k: _without_random_corrupt(v) for k, v in node.items()}
    if isinstance(node, (list, tuple)):
        return type(node)(
            _without_random_corrupt(v) for v in node
            if not (isinstance(v, dict) and v.get('type') == 'RandomCorrupt'))
    return node


def test_every_config_is_covered():
    names = {
        osp.splitext(osp.basename(p))[0]
        for p in glob.glob(osp.join(ROBUST, '*.py'))
    }
    assert names == {osp.basename(robust) for robust, _, _ in PAIRS[:-1]}


@pytest.mark.parametrize('pair', PAIRS, ids=lambda p: osp.basename(p[0]))
def test_random_corrupt_right_after_loading(pair):
    robust, _, count = pair
    cfg = _load(robust)
    assert cfg.train_dataloader.dataset.type == 'EpochPositionDataset'
    assert set(cfg.train_dataloader.dataset) == {'type', 'dataset'}
    pipelines = _train_pipelines(cfg.train_dataloader.dataset)
    assert len(pipelines) == count
    for pipeline in pipelines:
        types = [t['type'] for t in pipeline]
        assert types[:2] == ['LoadImageFromFile', 'RandomCorrupt'], types
        assert types.count('RandomCorrupt') == 1
        assert pipeline[1] == cfg.random_corrupt
    # Only the training set is corrupted.
    for key in ('val_dataloader', 'test_dataloader'):
        assert 'RandomCorrupt' not in str(cfg[key])
    assert cfg.custom_hooks == [dict(type='RandomCorruptHook')]
    assert isinstance(HOOKS.build(cfg.custom_hooks[0]), RandomCorruptHook)
    transform = TRANSFORMS.build(copy.deepcopy(cfg.random_corrupt))
    assert isinstance(transform, RandomCorrupt)
    assert transform.corruptions == HOLDOUT_CORRUPTIONS
    assert transform.severities == (1, 2, 3, 4, 5)
    assert transform.prob == 0.5 and transform.seed is None


@pytest.mark.parametrize('pair', PAIRS, ids=lambda p: osp.basename(p[0]))
def test_only_the_training_pipelines_change(pair):
    robust, base, _ = pair
    cfg = copy.deepcopy(_load(robust).to_dict())
    assert cfg.pop('random_corrupt')['type'] == 'RandomCorrupt'
    assert cfg.pop('custom_hooks') == [dict(type='RandomCorruptHook')]
    assert 'custom_hooks' not in _load(base)
    outer = cfg['train_dataloader']['dataset']
    assert outer['type'] == 'EpochPositionDataset'
    cfg['train_dataloader']['dataset'] = outer['dataset']
    assert _without_random_corrupt(cfg) == _load(base).to_dict()
