# Copyright (c) robustdet contributors. All rights reserved.
"""RandomCorrupt: training-time corruptions drawn per (seed, epoch,
position in the epoch, image) with a stable hash: reproducible pixels at
any worker count and start method, persistent workers and resume
included, a fresh draw for every sample of an epoch, without touching the
global RNGs."""
import copy
import glob
import hashlib
import multiprocessing
import os.path as osp
import random

import numpy as np
import pytest
import torch
from mmcv.transforms import LoadImageFromFile
from mmdet.registry import DATASETS, HOOKS, TRANSFORMS
from mmdet.structures.bbox import HorizontalBoxes
from mmdet.structures.mask import BitmapMasks
from mmengine.dataset import ConcatDataset, RepeatDataset
from mmengine.hooks import Hook
from mmengine.runner import Runner

from demo_data import image_stem
from robustdet.corruptions import HOLDOUT_CORRUPTIONS, SELECTIONS
from robustdet.datasets import (CorruptImage, EpochPositionDataset,
                                RandomCorrupt)
from robustdet.datasets.transforms import current_sample
from robustdet.datasets.transforms.random_corrupt import iter_random_corrupts
from robustdet.engine import RandomCorruptHook, run_seed
from robustdet.utils.checkpoint import _allowed_globals
from robustdet.utils.errors import RobustDetError
from tests.conftest import DEMO_CONFIGS, small_config
from tests.tool_process import PRELOAD

RANDCORRUPT_DEMO = osp.join(
    DEMO_CONFIGS, 'faster-rcnn_r18-c16_fpn-c64_3e_demo-coco-randcorrupt.py')


@TRANSFORMS.register_module(force=True)
class RecordCorruptedDigest:
    """Test transform: a digest of the image as RandomCorrupt left it."""

    def __call__(self, results):
        results['corrupt_digest'] = _digest(results['img'])
        return results


def _digest(img):
    return hashlib.blake2b(img.tobytes(), digest_size=8).hexdigest()


def _load(path, color_type='color'):
    return LoadImageFromFile(color_type=color_type)(dict(img_path=path))


@pytest.fixture
def images(demo_dir):
    return sorted(glob.glob(osp.join(demo_dir, 'coco', 'train2017', '*')))


def _one_line(excinfo):
    assert '\n' not in str(excinfo.value)
    return str(excinfo.value)


def test_default_and_severity_forms():
    t = RandomCorrupt()
    assert t.corruptions == HOLDOUT_CORRUPTIONS
    assert t.severities == (1, 2, 3, 4, 5)
    assert t.prob == 0.5 and t.seed is None and t.channel_order == 'rgb'
    assert RandomCorrupt(severities=(2, 3)).severities == (2, 3)
    assert RandomCorrupt(severities=(4, 4)).severities == (4, )
    assert RandomCorrupt(severities=[2, 5]).severities == (2, 5)
    assert RandomCorrupt(severities=3).severities == (3, )
    t = RandomCorrupt(corruptions=['cbar', 'saturate', '3dcc_depth_free'])
    assert t.corruptions == ('saturate', ) + SELECTIONS['cbar'] + (
        'low_light', 'iso_noise', 'color_quant')
    assert RandomCorrupt(corruptions='spatter').corruptions == ('spatter', )


def test_picks_are_deterministic(images):
    results = [_load(p) for p in images]
    a = RandomCorrupt(seed=3, prob=0.7)
    b = RandomCorrupt(seed=3, prob=0.7)
    out_a = [a(copy.deepcopy(r)) for r in results]
    out_b = [b(copy.deepcopy(r)) for r in results]
    for x, y in zip(out_a, out_b):
        assert (x['corruption'], x['severity']) == (y['corruption'],
                                                    y['severity'])
        np.testing.assert_array_equal(x['img'], y['img'])
    names = [osp.basename(p) for p in images]
    epoch0 = [a.pick(n) for n in names]
    assert [(r['corruption'], r['severity']) for r in out_a] == epoch0
    a.set_epoch(1)
    assert a.epoch == 1
    epoch1 = [a.pick(n) for n in names]
    assert epoch1 != epoch0
    assert [a.pick(n, epoch=0) for n in names] == epoch0
    # A noise image at another epoch gets other noise, not only other
    # picks.
    t = RandomCorrupt('speckle_noise', severities=3, prob=1, seed=3)
    first = t(copy.deepcopy(results[0]))['img']
    t.set_epoch(1)
    assert not np.array_equal(first, t(copy.deepcopy(results[0]))['img'])
    assert [RandomCorrupt(seed=4, prob=0.7).pick(n)
            for n in names] != epoch0


def test_prob(images):
    results = _load(images[0])
    clean = RandomCorrupt(prob=0, seed=1)
    for epoch in range(5):
        clean.set_epoch(epoch)
        out = clean(copy.deepcopy(results))
        assert out['corruption'] is None and out['severity'] is None
        np.testing.assert_array_equal(out['img'], results['img'])
    always = RandomCorrupt(prob=1, seed=1)
    for epoch in range(5):
        always.set_epoch(epoch)
        out = always(copy.deepcopy(results))
        assert out['corruption'] in HOLDOUT_CORRUPTIONS
        assert out['severity'] in range(1, 6)
        assert not np.array_equal(out['img'], results['img'])
    # Over many images: the fraction corrupted is near prob, every
    # corruption and severity is drawn, about as often.
    t = RandomCorrupt(prob=0.3, seed=5)
    picks = [t.pick(f'img_{i:05d}.jpg') for i in range(4000)]
    applied = [p for p in picks if p[0] is not None]
    assert abs(len(applied) / len(picks) - 0.3) < 0.03
    for name in HOLDOUT_CORRUPTIONS:
        share = sum(p[0] == name for p in applied) / len(applied)
        assert abs(share - 0.25) < 0.05, name
    assert sorted({p[1] for p in applied}) == [1, 2, 3, 4, 5]
    t = RandomCorrupt(prob=1, seed=5, severities=[2, 4])
    assert {t.pick(f'{i}.jpg')[1] for i in range(200)} == {2, 4}


def test_global_rngs_untouched(images):
    results = [_load(p) for p in images[:4]]
    t = RandomCorrupt(['speckle_noise', 'spatter', 'cbar'], prob=1, seed=2)

    def run():
        return [t(copy.deepcopy(r))['img'] for r in results]

    np.random.seed(11)
    random.seed(11)
    torch.manual_seed(11)
    before = (np.random.get_state(), random.getstate(),
              torch.get_rng_state())
    first = run()
    after = (np.random.get_state(), random.getstate(), torch.get_rng_state())
    assert before[0][0] == after[0][0]
    np.testing.assert_array_equal(before[0][1], after[0][1])
    assert before[0][2:] == after[0][2:]
    assert before[1] == after[1]
    assert torch.equal(before[2], after[2])
    # Nor read: other global states give the same pixels.
    np.random.seed(12)
    random.seed(12)
    torch.manual_seed(12)
    for x, y in zip(first, run()):
        np.testing.assert_array_equal(x, y)


def test_benchmark_corruptions_refused_unless_allowed(images):
    for corruptions in ('gaussian_noise', 'benchmark', 'all', ['fog'],
                        ['holdout', 'weather']):
        with pytest.raises(RobustDetError) as e:
            RandomCorrupt(corruptions)
        assert 'invalidates mPC' in _one_line(e)
        assert 'allow_benchmark=True' in str(e.value)
    t = RandomCorrupt('gaussian_noise', prob=1, seed=0, allow_benchmark=True)
    results = _load(images[0])
    out = t(copy.deepcopy(results))
    assert out['corruption'] == 'gaussian_noise'
    assert not np.array_equal(out['img'], results['img'])
    assert len(RandomCorrupt('all', allow_benchmark=True).corruptions) == 19


@pytest.mark.parametrize('kwargs,message', [
    (dict(corruptions='gaussian_noize'), "unknown corruption 'gaussian_n"),
    (dict(corruptions=['holdout', 'rain']), 'valid: all, benchmark'),
    (dict(corruptions=[]), 'at least one corruption'),
    (dict(corruptions='fog_3d'), 'fog_3d needs a depth map'),
    (dict(corruptions='3dcc'), '3dcc_depth_free'),
    (dict(severities=(0, 5)), 'severity 0 is out of range'),
    (dict(severities=(1, 6)), 'severity 6 is out of range'),
    (dict(severities=(4, 2)), 'needs lo <= hi'),
    (dict(severities=[]), 'severities must be'),
    (dict(severities='3'), 'severities must be'),
    (dict(severities=[1, 9]), 'severity 9 is out of range'),
    (dict(severities=0), 'severity 0 is out of range'),
    (dict(prob=-0.1), 'prob must be in [0, 1]'),
    (dict(prob=1.5), 'prob must be in [0, 1]'),
    (dict(prob=float('nan')), 'prob must be in [0, 1]'),
    (dict(prob='0.5'), 'prob must be in [0, 1]'),
    (dict(prob=True), 'prob must be in [0, 1]'),
    (dict(seed=-1), 'seed must be None or an integer'),
    (dict(seed=1.5), 'seed must be None or an integer'),
    (dict(seed=2**32), 'seed must be None or an integer in [0, 2**32)'),
    (dict(backend='gpu'), "unknown corruption backend 'gpu'"),
    (dict(backend='torch'), 'valid: reference, fast'),
    (dict(channel_order='rgba'), "unknown channel order 'rgba'"),
])
def test_bad_input(kwargs, message):
    with pytest.raises(RobustDetError) as e:
        RandomCorrupt(**kwargs)
    assert message in _one_line(e)


def test_epoch_and_run_seed():
    t = RandomCorrupt()
    assert (t.epoch, t.effective_seed) == (0, 0)
    t.set_epoch(4)
    t.set_run_seed(21)
    assert (t.epoch, t.effective_seed) == (4, 21)
    t.set_run_seed(None)
    assert t.effective_seed == 0
    fixed = RandomCorrupt(seed=3)
    fixed.set_run_seed(21)
    assert fixed.effective_seed == 3
    for bad in (-1, 1.0, True):
        with pytest.raises(RobustDetError, match='epoch must be'):
            t.set_epoch(bad)


def test_grayscale_and_any_size(images):
    gray = _load(images[0], color_type='grayscale')
    assert gray['img'].ndim == 2
    t = RandomCorrupt(prob=1, seed=0)
    out = t(copy.deepcopy(gray))
    assert out['img'].shape == gray['img'].shape
    assert out['img'].dtype == np.uint8
    assert not np.array_equal(out['img'], gray['img'])
    single = dict(img_path='x.jpg', img=gray['img'][..., None])
    assert t(copy.deepcopy(single))['img'].shape == single['img'].shape
    rng = np.random.default_rng(0)
    for shape in ((32, 200, 3), (333, 57, 3), (64, 64)):
        img = rng.integers(0, 256, shape, dtype=np.uint8)
        out = t(dict(img_path='y.png', img=img.copy()))
        assert out['img'].shape == shape and out['img'].dtype == np.uint8
        assert not np.array_equal(out['img'], img)


@pytest.mark.parametrize('channel_order', ['rgb', 'bgr'])
def test_bgr_semantics_as_corrupt_image(images, channel_order):
    """Forced to one corruption and severity, the pixels are
    CorruptImage's under the epoch's seed, for either channel order; the
    annotations are left alone."""
    results = _load(images[1])
    results['gt_bboxes'] = HorizontalBoxes(
        torch.tensor([[1., 2., 30., 40.]]))
    results['gt_masks'] = BitmapMasks(
        np.ones((1, ) + results['img'].shape[:2], np.uint8),
        *results['img'].shape[:2])
    outs = {}
    for name in ('saturate', 'spatter', 'caustic_refraction'):
        t = RandomCorrupt(name, severities=4, prob=1, seed=9,
                          channel_order=channel_order,
                          allow_benchmark=False)
        t.set_epoch(2)
        out = t(copy.deepcopy(results))
        assert (out['corruption'], out['severity']) == (name, 4)
        ref = CorruptImage(name, 4, seed=t.draw_seed(2),
                           channel_order=channel_order)(
                               copy.deepcopy(results))
        np.testing.assert_array_equal(out['img'], ref['img'])
        assert torch.equal(out['gt_bboxes'].tensor,
                           results['gt_bboxes'].tensor)
        assert np.array_equal(out['gt_masks'].masks,
                              results['gt_masks'].masks)
        outs[name] = out['img']
    # The channel order matters: saturation on reversed channels differs.
    other = 'bgr' if channel_order == 'rgb' else 'rgb'
    t = RandomCorrupt('saturate', severities=4, prob=1, seed=9,
                      channel_order=other)
    t.set_epoch(2)
    assert not np.array_equal(t(copy.deepcopy(results))['img'],
                              outs['saturate'])


def test_builds_from_registry(images):
    t = TRANSFORMS.build(
        dict(type='RandomCorrupt', corruptions=('holdout', 'cbar'),
             severities=[1, 3], prob=1.0, seed=4))
    assert isinstance(t, RandomCorrupt)
    assert t.severities == (1, 3) and t.seed == 4
    out = t(_load(images[2]))
    assert out['corruption'] in t.corruptions and out['severity'] in (1, 3)
    assert isinstance(
        HOOKS.build(dict(type='RandomCorruptHook')), RandomCorruptHook)
    assert 'RandomCorrupt(corruptions=' in repr(t)


def test_hook_finds_transforms_through_wrappers(demo_dir):
    """The hook reaches the transforms of every leaf of a combined
    (ConcatDataset of clean and StylizedDataset) set inside a
    RepeatDataset, the VOC / Cityscapes combined layout."""
    pipeline = [dict(type='LoadImageFromFile'), dict(type='RandomCorrupt'),
                dict(type='PackDetInputs')]
    clean = dict(type='CocoDataset', data_root=osp.join(demo_dir, 'coco/'),
                 ann_file='annotations/instances_train2017.json',
                 data_prefix=dict(img='train2017/'), pipeline=pipeline)
    stylized = dict(type='StylizedDataset', dataset=clean,
                    stylized_root=osp.join(demo_dir, 'coco/'),
                    require_manifest=False)
    dataset = DATASETS.build(
        dict(type='RepeatDataset', times=2,
             dataset=dict(type='ConcatDataset',
                          datasets=[clean, stylized])))
    assert isinstance(dataset, RepeatDataset)
    assert isinstance(dataset.dataset, ConcatDataset)
    found = list(iter_random_corrupts(dataset))
    assert len(found) == 2 and found[0] is not found[1]


class _Record(Hook):
    """Test hook: what RandomCorrupt did to every training sample."""

    def __init__(self):
        self.rows = []

    def after_train_iter(self, runner, batch_idx, data_batch=None,
                         outputs=None):
        for sample in data_batch['data_samples']:
            meta = sample.metainfo
            self.rows.append(
                (runner.epoch, osp.basename(meta['img_path']),
                 meta['corruption'], meta['severity'],
                 meta['corrupt_digest']))


def _train(cfg, workers, work_dir, epochs=2, resume_from=None):
    cfg = copy.deepcopy(cfg)
    cfg.work_dir = str(work_dir)
    cfg.train_dataloader.num_workers = workers
    cfg.train_dataloader.persistent_workers = workers > 0
    cfg.train_cfg.max_epochs = epochs
    if resume_from:
        cfg.resume = True
        cfg.load_from = resume_from
    runner = Runner.from_cfg(cfg)
    record = _Record()
    runner.register_hook(record)
    # mmengine resumes with torch.load's weights_only default: robustdet's
    # allow-list of the checkpoint's harmless globals.
    with torch.serialization.safe_globals(_allowed_globals()):
        runner.train()
    # Shut the persistent workers down now: torch's garbage-collected
    # iterator waits 5 s for each of them.
    runner.train_dataloader._iterator = None
    return sorted(record.rows)


def test_training_workers_persistent_workers_and_resume(demo_dir, tmp_path):
    """The demo detector trained 2 epochs with the RandomCorrupt demo
    config: the same pixels with 0 workers and with 2 persistent workers,
    after a resume at epoch 1, and as the training set gives on its own
    told the epoch and the config's seed; the draws change between
    epochs."""
    cfg = small_config(RANDCORRUPT_DEMO, demo_dir)
    cfg.randomness = dict(seed=7)
    assert cfg.train_dataloader.dataset.type == 'EpochPositionDataset'
    pipeline = cfg.train_dataloader.dataset.dataset.pipeline
    assert [t['type'] for t in pipeline[:2]] == [
        'LoadImageFromFile', 'RandomCorrupt'
    ]
    pipeline.insert(2, dict(type='RecordCorruptedDigest'))
    # The small demo images as they are: the model's cost is beside the
    # point.
    resize, = [t for t in pipeline if t['type'] == 'Resize']
    resize['scale'] = (128, 96)
    pipeline[-1]['meta_keys'] = ('img_id', 'img_path', 'ori_shape',
                                 'img_shape', 'scale_factor', 'flip',
                                 'flip_direction', 'corruption', 'severity',
                                 'corrupt_digest')
    cfg.val_dataloader = cfg.val_cfg = cfg.val_evaluator = None
    cfg.default_hooks.checkpoint.max_keep_ckpts = -1
    cfg.default_hooks.logger.interval = 100

    main = _train(cfg, 0, tmp_path / 'w0')
    workers = _train(cfg, 2, tmp_path / 'w2')
    resumed = _train(cfg, 2, tmp_path / 'resumed', resume_from=str(
        tmp_path / 'w0' / 'epoch_1.pth'))
    assert len(main) == 16  # 8 images x 2 epochs
    assert workers == main
    assert resumed == [row for row in main if row[0] == 1]
    picks = {e: [row[1:4] for row in main if row[0] == e] for e in (0, 1)}
    assert picks[0] != picks[1]
    assert {row[2] is None for row in main} == {True, False}

    # The training set on its own, told the epoch and the config's seed.
    dataset = DATASETS.build(copy.deepcopy(cfg.train_dataloader.dataset))
    alone = []
    for epoch in (0, 1):
        dataset.set_epoch(epoch, 7)
        for position in range(len(dataset)):
            meta = dataset[position]['data_samples'].metainfo
            alone.append((epoch, osp.basename(meta['img_path']),
                          meta['corruption'], meta['severity'],
                          meta['corrupt_digest']))
    assert sorted(alone) == main
    dataset.set_epoch(0, 0)
    assert [dataset[p]['data_samples'].metainfo['corruption']
            for p in range(len(dataset))] != [
                row[2] for row in sorted(alone) if row[0] == 0], (
                    'the run seed must reach the transform')


def _loader_rows(dataset, workers, context, persistent, epochs=(0, 1)):
    """(epoch, position, corruption, severity, digest) of every sample a
    torch DataLoader gives over ``epochs``, the epoch set on the dataset
    before each as RandomCorruptHook does."""
    if context == 'forkserver':
        # The suite's forkserver (tests/tool_process.py), started once per
        # test process with torch and mmdet imported.
        context = multiprocessing.get_context('forkserver')
        context.set_forkserver_preload(PRELOAD)
    loader = torch.utils.data.DataLoader(
        dataset, batch_size=2, num_workers=workers, collate_fn=list,
        multiprocessing_context=context if workers else None,
        persistent_workers=persistent and workers > 0, shuffle=False)
    rows = []
    for epoch in epochs:
        dataset.set_epoch(epoch, 11)
        for batch in loader:
            rows += [(epoch, r['position'], r['corruption'], r['severity'],
                      r['corrupt_digest']) for r in batch]
    loader._iterator = None
    return rows


@TRANSFORMS.register_module(force=True)
class RecordPosition:
    """Test transform: the position the outermost dataset gave."""

    def __call__(self, results):
        results['position'] = current_sample().position
        return results


def _repeated(demo_dir, split, times, pipeline):
    """The demo split ``times`` over, in an EpochPositionDataset."""
    return DATASETS.build(dict(
        type='EpochPositionDataset',
        dataset=dict(type='RepeatDataset', times=times, dataset=dict(
            type='CocoDataset', data_root=osp.join(demo_dir, 'coco/'),
            ann_file=f'annotations/instances_{split}.json',
            data_prefix=dict(img=f'{split}/'), pipeline=pipeline))))


@pytest.mark.parametrize('context', ['fork', 'spawn', 'forkserver'])
def test_epoch_reaches_workers_on_every_start_method(demo_dir, context):
    """The epoch set in the main process reaches the dataloader workers
    however they start, persistent or not: the draws of the workers are
    those of 0 workers, epoch by epoch (workers restarted every epoch are
    checked at epoch 1, the one a stale copy would get wrong). Two forked
    workers share the samples between them; spawn and forkserver start
    one each (a spawned worker imports torch and mmdet anew, about 8 s
    here), which is enough to see whether the epoch reached it."""
    pipeline = [dict(type='LoadImageFromFile'),
                dict(type='RandomCorrupt', prob=0.75),
                dict(type='RecordCorruptedDigest'),
                dict(type='RecordPosition')]
    dataset = _repeated(demo_dir, 'val2017', 2, pipeline)
    alone = _loader_rows(dataset, 0, None, False)
    assert len(alone) == 16 and [r[1] for r in alone[:8]] == list(range(8))
    assert [r[2:4] for r in alone[:8]] != [r[2:4] for r in alone[8:]]
    workers = 2 if context == 'fork' else 1
    assert _loader_rows(dataset, workers, context, True) == alone
    assert _loader_rows(dataset, workers, context, False, (1, )) == alone[8:]


def test_draws_per_image_over_repeats(demo_dir):
    """One epoch of a RepeatDataset x8 of the demo train set: the number
    of distinct draws (corruption, severity, or clean) per image is that
    of 8 independent draws from the configured distribution."""
    images = sorted(glob.glob(osp.join(demo_dir, 'coco', 'train2017', '*')))
    t = RandomCorrupt(prob=0.5)  # 4 corruptions x 5 severities
    # The draws of the transform in the pipeline, for all 64 samples.
    pipeline = [dict(type='LoadImageFromFile'), dict(type='RandomCorrupt'),
                dict(type='RecordPosition')]
    dataset = _repeated(demo_dir, 'train2017', 8, pipeline)
    # Looked at outside training before any epoch was set (as mmdet's
    # browse_dataset.py does): the transform's own epoch 0 and seed 0.
    browsed = [dataset[p]['corruption'] for p in range(8)]
    dataset.set_epoch(0, 0)
    assert [dataset[p]['corruption'] for p in range(8)] == browsed
    seen = {}
    for position in range(len(dataset)):
        out = dataset[position]
        name = osp.basename(out['img_path'])
        assert (out['corruption'], out['severity']) == t.pick(
            name, 0, position, 0)
        seen.setdefault(name, []).append((out['corruption'],
                                          out['severity']))
    assert len(seen) == len(images) and all(
        len(v) == 8 for v in seen.values())

    # The same draws for the 400 images of the full demo train set, by
    # their names (the transform's own pick, which the pipeline was just
    # shown to follow).
    def distinct(names, repeats=8):
        return np.array([
            len({t.pick(n, 0, k * len(names) + i, 0)
                 for k in range(repeats)}) for i, n in enumerate(names)])

    names = [f'{image_stem("train", i)}.jpg' for i in range(400)]
    found = distinct(names).mean()
    # Independent draws: clean with 1/2, each of 20 (corruption, severity)
    # with 1/40. E[distinct of 8] = sum over outcomes of 1 - (1 - q)^8.
    q = np.array([0.5] + [0.5 / 20] * 20)
    expected = float((1 - (1 - q) ** 8).sum())
    # Its spread per image, from the same distribution (seeded numpy).
    rng = np.random.default_rng(0)
    sim = [len(set(rng.choice(21, 8, p=q))) for _ in range(20000)]
    bound = 4 * np.std(sim) / np.sqrt(len(names))
    assert abs(found - expected) < bound, (found, expected, bound)
    assert expected == pytest.approx(np.mean(sim), abs=0.02)
    # Before the position was in the seed, the 8 repeats shared a draw:
    # 1 distinct draw per image.
    assert found > 3


def test_training_set_must_be_wrapped(demo_dir, tmp_path):
    """RandomCorrupt in training without an EpochPositionDataset, or
    outside the outermost dataset, is refused in one line by the hook;
    in a dataloader worker without one it refuses too."""
    cfg = small_config(RANDCORRUPT_DEMO, demo_dir, tmp_path)
    cfg.train_dataloader.dataset = cfg.train_dataloader.dataset.dataset
    cfg.val_dataloader = cfg.val_cfg = cfg.val_evaluator = None
    runner = Runner.from_cfg(cfg)
    with pytest.raises(RobustDetError) as e:
        RandomCorruptHook().before_train(runner)
    assert 'EpochPositionDataset' in _one_line(e)
    loader = torch.utils.data.DataLoader(
        DATASETS.build(copy.deepcopy(cfg.train_dataloader.dataset)),
        num_workers=1, collate_fn=list)
    with pytest.raises(Exception, match='EpochPositionDataset'):
        next(iter(loader))


def test_training_without_hook_fails(demo_dir, tmp_path):
    """Without RandomCorruptHook a training run would repeat epoch 0's
    draws: refused. The hook's seed is the config's, or 0 without one."""
    cfg = small_config(RANDCORRUPT_DEMO, demo_dir, tmp_path)
    cfg.custom_hooks = []
    cfg.pop('randomness')
    cfg.val_dataloader = cfg.val_cfg = cfg.val_evaluator = None
    runner = Runner.from_cfg(cfg)
    try:
        with pytest.raises(RobustDetError) as e:
            runner.train()
        assert 'RandomCorruptHook' in _one_line(e)
    finally:
        # The failed run leaves its message hub in the training stage.
        runner.message_hub.pop_info('loop_stage')
    assert run_seed(runner) == 0
    dataset = runner.train_dataloader.dataset
    assert isinstance(dataset, EpochPositionDataset)
    dataset.set_epoch(3, 5)
    RandomCorruptHook().before_train_epoch(runner)
    assert (dataset.seed, dataset.epoch) == (0, runner.epoch)
    cfg.randomness = dict(seed=13)
    assert run_seed(Runner.from_cfg(cfg)) == 13
