# Copyright (c) robustdet contributors. All rights reserved.
"""Shared fixtures: a small generated demo dataset and demo configs
pointed at it. Everything is CPU-only and small."""
import copy
import os
import os.path as osp

import pytest

REPO = osp.dirname(osp.dirname(osp.abspath(__file__)))
DEMO_CONFIGS = osp.join(REPO, 'configs', 'demo')
FRCNN_DEMO = osp.join(DEMO_CONFIGS,
                      'faster-rcnn_r18-c16_fpn-c64_3e_demo-coco.py')
MASK_DEMO = osp.join(DEMO_CONFIGS, 'mask-rcnn_r18-c16_fpn-c64_3e_demo-coco.py')
# Small variant of the demo data used by the tests.
SMALL_DEMO = dict(seed=0, num_train=8, num_val=4, size=(128, 96))
# Epochs (of one batch of the 4 val images) for `demo_checkpoint`.
OVERFIT_EPOCHS = 40


@pytest.fixture(scope='session', autouse=True)
def _registered():
    from robustdet.utils import register_all_modules
    register_all_modules()


@pytest.fixture(scope='session')
def demo_dir(tmp_path_factory):
    """The small demo dataset in all three layouts (generated once)."""
    from robustdet.demo import generate_demo_data
    out = str(tmp_path_factory.mktemp('demo') / 'demo')
    generate_demo_data(out, **SMALL_DEMO)
    return out


def replace_data_root(cfg, new_root, old_root='data/demo/'):
    """Point every path under ``old_root`` in a config at ``new_root``."""
    new_root = new_root.rstrip('/') + '/'

    def walk(node):
        if isinstance(node, dict):
            return type(node)({k: walk(v) for k, v in node.items()})
        if isinstance(node, (list, tuple)):
            return type(node)(walk(v) for v in node)
        if isinstance(node, str) and node.startswith(old_root):
            return new_root + node[len(old_root):]
        return node

    from mmengine.config import Config
    return Config(walk(copy.deepcopy(cfg.to_dict())))


def small_config(path, demo_dir, work_dir=None):
    """A demo config on the small demo data, with no dataloader workers."""
    from mmengine.config import Config
    cfg = replace_data_root(Config.fromfile(path), demo_dir)
    for key in ('train_dataloader', 'val_dataloader', 'test_dataloader'):
        if cfg.get(key) is not None:
            cfg[key].num_workers = 0
            cfg[key].persistent_workers = False
            cfg[key].batch_size = 2
    cfg.default_hooks.logger.interval = 1
    if work_dir is not None:
        cfg.work_dir = str(work_dir)
    return cfg


@pytest.fixture
def small_cfg_factory(demo_dir, tmp_path):
    def factory(path=FRCNN_DEMO):
        return small_config(path, demo_dir, tmp_path / 'work')
    return factory


def pytest_configure(config):
    # Keep torch to the machine's two cores and quiet.
    os.environ.setdefault('OMP_NUM_THREADS', '2')


@pytest.fixture(scope='session')
def demo_checkpoint(demo_dir, tmp_path_factory):
    """A tiny Faster R-CNN overfitted on the small demo val split, so that
    clean and corrupted scores are non-trivial and differ per cell (a
    random-weight model scores 0 everywhere, and tests of resume or
    sharding could not fail). Returns ``(config_path, checkpoint_path)``
    with the config pointed at the small demo data."""
    from mmengine.runner import Runner
    work = tmp_path_factory.mktemp('ckpt')
    cfg = small_config(FRCNN_DEMO, demo_dir, work)
    train = cfg.train_dataloader.dataset
    train.ann_file = 'annotations/instances_val2017.json'
    train.data_prefix = dict(img='val2017/')
    cfg.train_dataloader.batch_size = 4
    cfg.train_cfg = dict(
        type='EpochBasedTrainLoop', max_epochs=OVERFIT_EPOCHS,
        val_interval=OVERFIT_EPOCHS + 1)
    cfg.param_scheduler = []
    cfg.default_hooks.checkpoint = dict(
        type='CheckpointHook', interval=OVERFIT_EPOCHS)
    cfg.default_hooks.logger.interval = 10
    Runner.from_cfg(cfg).train()
    config_path = str(work / 'small_demo_config.py')
    cfg.dump(config_path)
    return config_path, str(work / f'epoch_{OVERFIT_EPOCHS}.pth')
