# Copyright (c) robustdet contributors. All rights reserved.
"""Shared fixtures: a small generated demo dataset and demo configs
pointed at it. Everything is CPU-only and small."""
import copy
import hashlib
import os
import os.path as osp
import sys

import pytest

REPO = osp.dirname(osp.dirname(osp.abspath(__file__)))
# The demo's data generators (demo/demo_data), as demo/*.py import them.
DEMO_SCRIPTS = osp.join(REPO, 'demo')
if DEMO_SCRIPTS not in sys.path:
    sys.path.insert(0, DEMO_SCRIPTS)
DEMO_CONFIGS = osp.join(REPO, 'configs', 'demo')
FRCNN_DEMO = osp.join(DEMO_CONFIGS,
                      'faster-rcnn_r18-c16_fpn-c64_3e_demo-coco.py')
MASK_DEMO = osp.join(DEMO_CONFIGS, 'mask-rcnn_r18-c16_fpn-c64_3e_demo-coco.py')
# Small variant of the demo data used by the tests.
SMALL_DEMO = dict(seed=0, num_train=8, num_val=4, size=(128, 96))
# Epochs (of one batch of the 4 val images) of `overfit_config`.
OVERFIT_EPOCHS = 40
# The weights that recipe gave (fp16, state dict only), and their hash.
DEMO_CHECKPOINT = osp.join(REPO, 'tests', 'data',
                           'faster-rcnn_r18-c16_fpn-c64_overfit-demo.pth')
DEMO_CHECKPOINT_SHA256 = (
    '88f4e94f673f096492594b90e2dd4a7aefdbd9ad79bb2b1ddde2f8e591e32cad')
# sha256_tree of the small demo data (all three layouts) that it was
# trained on; tests/test_demo/test_demo_data.py checks the generator.
SMALL_DEMO_SHA256 = (
    '4d64146c6da8486906aee560de59a097966d49ef866aef9a2ff6b9c30d006cdb')


@pytest.fixture(scope='session', autouse=True)
def _registered():
    from robustdet.utils import register_all_modules
    from robustdet.utils.cli import freeze_imports
    register_all_modules()
    # What the imports and the collection made lives as long as the
    # session: the collector stops scanning it, as in the tools, so
    # mmengine's gc.collect() per dataset built here takes milliseconds,
    # not half a second (and a tool's main called in-process later does
    # not freeze again).
    freeze_imports()


@pytest.fixture(scope='session')
def demo_dir(tmp_path_factory):
    """The small demo dataset in all three layouts (generated once)."""
    from demo_data import generate_demo_data
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
    """A demo config on the small demo data, with no dataloader workers.

    Its text is formatted once per content
    (:class:`~robustdet.utils.config_text.FormattedOnceConfig`, as the
    tools load configs): mmengine's ``Runner`` and ``dump`` ask for it
    several times, each a yapf run of about a second here."""
    from robustdet.utils.cli import load_config
    from robustdet.utils.config_text import format_once
    cfg = format_once(replace_data_root(load_config(path), demo_dir))
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
    # Keep torch to the machine's two cores: two threads in one process,
    # one in each of pytest-xdist's workers (`make test` runs two) and what
    # it starts. The xdist controller runs no test and sets nothing, so
    # that its workers do not inherit its setting; a user's is kept.
    if os.environ.get('PYTEST_XDIST_WORKER'):
        os.environ.setdefault('OMP_NUM_THREADS', '1')
    elif not config.getoption('numprocesses', None):
        os.environ.setdefault('OMP_NUM_THREADS', '2')
    else:
        return
    import torch
    torch.set_num_threads(int(os.environ['OMP_NUM_THREADS']))


# Test files whose tests run longest (tens of seconds to minutes each:
# the pages' shell blocks, the fuzz run, mmdet's own script). They are
# collected first, so that pytest-xdist starts them early and the two
# workers finish together (`make test` runs `--dist worksteal`).
SLOW_FIRST = ('test_docs/test_docs.py', 'test_utils/test_fuzz_safe_pickle.py',
              'test_tools/test_import_results_mmdet.py')


def pytest_collection_modifyitems(session, config, items):
    """The tests marked ``waits`` first, then those of :data:`SLOW_FIRST`.

    ``--dist worksteal`` hands each worker a contiguous half of this
    order, so the waiting tests (a core idle for seconds each) run one
    after another on the first worker while the second works, and early,
    while the niced held-back run of `make test` can use that core; none
    is left for the end, where nothing would.
    """

    def rank(item):
        if item.get_closest_marker('waits') is not None:
            return 0
        return 1 if any(
            item.nodeid.startswith(f'tests/{f}') for f in SLOW_FIRST) else 2

    items.sort(key=rank)  # stable: file order within each rank


def pytest_report_header(config):
    import torch
    held_back = os.environ.get('ROBUSTDET_CPU_HELD_BACK') or 'no'
    return (f'cpu: torch {torch.backends.cpu.get_cpu_capability()}, '
            f'held back to: {held_back} (tools/dev/held_back_cpu.py)')


def overfit_config(demo_dir, work_dir):
    """The recipe of the committed demo checkpoint (`DEMO_CHECKPOINT`):
    the tiny Faster R-CNN trained for `OVERFIT_EPOCHS` epochs of one batch
    on the small demo val split, so that clean and corrupted scores are
    non-trivial and differ per cell (a random-weight model scores 0
    everywhere, and tests of resume or sharding could not fail)."""
    cfg = small_config(FRCNN_DEMO, demo_dir, work_dir)
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
    return cfg


def sha256_file(path):
    """The sha256 hex digest of a file."""
    with open(path, 'rb') as f:
        return hashlib.sha256(f.read()).hexdigest()


def sha256_tree(root):
    """One sha256 over every file below ``root``: relative paths and
    contents, in sorted order."""
    digest = hashlib.sha256()
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        for name in sorted(filenames):
            path = osp.join(dirpath, name)
            digest.update(osp.relpath(path, root).encode() + b'\0')
            digest.update(sha256_file(path).encode())
    return digest.hexdigest()


@pytest.fixture(scope='session')
def demo_checkpoint(demo_dir, tmp_path_factory):
    """The committed demo checkpoint and the demo config pointed at the
    small demo data: ``(config_path, checkpoint_path)``.

    Training is not reproducible across CPU generations (the same seeded
    run gives other weights with AVX-512 than with AVX2), so the weights
    are trained once (`tests/data/make_demo_checkpoint.py`) and committed;
    their hash is checked here, so every machine tests the same model.
    """
    found = sha256_file(DEMO_CHECKPOINT)
    assert found == DEMO_CHECKPOINT_SHA256, (
        f'{DEMO_CHECKPOINT} has sha256 {found}, expected '
        f'{DEMO_CHECKPOINT_SHA256}: regenerate it with '
        'tests/data/make_demo_checkpoint.py and update both')
    work = tmp_path_factory.mktemp('ckpt')
    config_path = str(work / 'small_demo_config.py')
    overfit_config(demo_dir, work).dump(config_path)
    return config_path, DEMO_CHECKPOINT
