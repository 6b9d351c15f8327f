# Copyright (c) robustdet contributors. All rights reserved.
"""CorruptingDataPreprocessor (backend torch) against the CPU path: the
image corrupted by CorruptImage at its original resolution, resized by the
pipeline's Resize (OpenCV), preprocessed by the model's own preprocessor.

The small demo data has 4 images of 128x96, resized to 320x240 (x2.5).
The two paths differ by OpenCV's fixed-point bilinear resize against
torch's float one, at most 1 grey level apart (see ``TOLERANCE``), and by
the corruption where the CPU path runs the fast backend (within a grey
level of the torch backend). Measured over 8 seeds and all 19
corruptions × 5 severities (saturate in both channel orders), the CPU path
running the torch backend or, but for the noises, the fast one: 3.3-13.7 %
of the resized values differ (10.1-12.8 % in the five cells tested here),
by 1 grey level except with frost 3 and 4 from the fast backend (2); the
same with AVX-512 held back.
"""
import copy

import pytest
import torch
from mmdet.registry import DATASETS, MODELS
from mmengine.dataset import pseudo_collate

from robustdet.models import (CorruptingDataPreprocessor,
                              find_corrupting_preprocessor, resize_like_cv2)
from robustdet.utils import RobustDetError

# Resizes (torch against OpenCV) and corrupts: run again held back.
pytestmark = pytest.mark.cpu_sensitive

# Grey levels (0-255) the device path may differ by from the CPU path.
# The resize of one image: OpenCV's INTER_LINEAR on uint8 (resize.cpp,
# HResizeLinear and VResizeLinear) rounds each weight to 1/2048
# (INTER_RESIZE_COEF_BITS = 11), the two of an axis still summing to 1,
# which moves a value by at most 2**-12 * 255 = 0.062 per axis. Its
# horizontal pass is exact in integers; its vertical pass rounds half up
# exactly in scalar code, but its vector code (VResizeLinearVec_32s8u)
# floors twice first (each row value shifted right by 4, each product cut
# to its high 16 bits), up to (2 + 0.03) / 4 = 0.51 grey levels lower.
# torch rounds its float32 value (off by < 1e-4) to nearest. Rounding
# numbers less than 0.125 + 0.51 < 1 apart gives values at most 1 apart.
# Where both paths run the torch backend (clean, gaussian_noise) the
# corrupted images are equal, so this is the bound. With the fast backend
# the corruption may differ by MAX_DIFF too (test_torch_backend), and a
# bilinear resize (a convex combination) keeps that difference: see
# `max_diff`. Measured here: fog and saturate give the torch backend's
# pixels, defocus_blur differs by 1 at 5 values, and all stay within 1
# (frost 3 and 4 reach 2).
TOLERANCE = 1


def max_diff(corruption, backend):
    """Grey levels the device path may differ by from the CPU path that
    corrupts with ``backend``: the resize's `TOLERANCE`, plus the fast
    backend's difference from the torch one (`MAX_DIFF`)."""
    if backend == 'torch' or corruption == 'clean':
        return TOLERANCE
    from tests.test_corruptions.test_torch_backend import MAX_DIFF
    return TOLERANCE + MAX_DIFF[corruption]


@pytest.fixture(scope='module')
def setup(demo_dir):
    from tests.conftest import FRCNN_DEMO, small_config
    cfg = small_config(FRCNN_DEMO, demo_dir)
    dataset_cfg = cfg.test_dataloader.dataset.to_dict()
    deferred = DATASETS.build(
        dict(type='DeferredCorruptionDataset',
             dataset=copy.deepcopy(dataset_cfg)))
    batch = pseudo_collate([deferred[i] for i in range(len(deferred))])
    return cfg.model.data_preprocessor.to_dict(), dataset_cfg, batch


def _cpu_batch(dataset_cfg, cell, backend='fast', channel_order='rgb'):
    name, severity = cell
    dataset = copy.deepcopy(dataset_cfg)
    if severity:
        dataset = dict(type='CorruptedDataset', dataset=dataset,
                       corruption=name, severity=severity, seed=3,
                       backend=backend, channel_order=channel_order)
    dataset = DATASETS.build(dataset)
    return pseudo_collate([dataset[i] for i in range(len(dataset))])


@pytest.mark.parametrize('cell,backend,channel_order', [
    (('clean', 0), 'fast', 'rgb'),
    (('fog', 3), 'fast', 'rgb'),
    (('defocus_blur', 3), 'fast', 'rgb'),
    (('saturate', 4), 'fast', 'bgr'),
    # The same corruptions with the torch backend on the CPU path too: the
    # corrupted images are then equal and only the resize differs.
    (('fog', 3), 'torch', 'rgb'),
    (('defocus_blur', 3), 'torch', 'rgb'),
    (('saturate', 4), 'torch', 'bgr'),
    # Same seeds, same generator (torch on the CPU): the noise is the CPU
    # path's, pixel for pixel up to the resize.
    (('gaussian_noise', 3), 'torch', 'rgb'),
])
def test_equals_cpu_path(setup, cell, backend, channel_order):
    preprocessor_cfg, dataset_cfg, batch = setup
    cpu = _cpu_batch(dataset_cfg, cell, backend, channel_order)
    original = MODELS.build(copy.deepcopy(preprocessor_cfg))
    wrapped = MODELS.build(
        dict(type='CorruptingDataPreprocessor',
             data_preprocessor=copy.deepcopy(preprocessor_cfg), seed=3,
             channel_order=channel_order))
    wrapped.set_cell(*cell)
    assert wrapped.cell == cell

    device = wrapped.corrupt_and_resize(copy.deepcopy(batch))['inputs']
    diffs = []
    for a, b in zip(cpu['inputs'], device):
        assert a.shape == b.shape and b.dtype == torch.uint8
        diffs.append((a.int() - b.int()).abs().flatten())
    diff = torch.cat(diffs)
    assert diff.max() <= max_diff(cell[0], backend)
    # Rounding alone leaves most values equal (3.3-13.7 % differ in the
    # 1,440 batches of the module docstring); a path that truncated instead
    # of rounding would differ in about half of them (44 % for a photo
    # resized x2.5 the same way: the fractional parts spread over [0, 1)).
    assert (diff > 0).float().mean() < 0.25

    # The whole preprocessing: normalised, padded, stacked alike.
    expected = original(copy.deepcopy(cpu))
    got = wrapped(copy.deepcopy(batch))
    assert got['inputs'].shape == expected['inputs'].shape
    # A grey level is 1 / std after normalising; 1e-5 covers the float32
    # rounding of (x - mean) / std (values under 3: ulp 2.4e-7).
    std = torch.tensor(preprocessor_cfg['std']).min()
    assert (got['inputs'] - expected['inputs']).abs().max() <= \
        max_diff(cell[0], backend) / std + 1e-5
    for a, b in zip(expected['data_samples'], got['data_samples']):
        meta = dict(b.metainfo)
        meta.pop('img_identity')
        assert meta == a.metainfo
        assert meta['scale_factor'] == (2.5, 2.5)


@pytest.mark.parametrize('channel_order', ['rgb', 'bgr'])
def test_cpu_part_from_the_workers_gives_the_same_pixels(
        setup, channel_order):
    # The dataset computes each cell's CPU part where it loads the sample
    # (a dataloader worker); the device then uses it: the same pixels as
    # computing it in the preprocessor. As in a pass, each cell gets a copy
    # of the batch that shares the inputs, and takes its own out.
    from robustdet.datasets import HOST_KEY
    preprocessor_cfg, dataset_cfg, batch = setup
    cells = [('fog', 2), ('snow', 3), ('jpeg_compression', 4),
             ('glass_blur', 1), ('elastic_transform', 5), ('spatter', 2),
             ('frost', 3), ('brightness', 3)]

    def hosted_batch():
        deferred = DATASETS.build(
            dict(type='DeferredCorruptionDataset',
                 dataset=copy.deepcopy(dataset_cfg), host_cells=cells,
                 seed=3, channel_order=channel_order))
        return pseudo_collate([deferred[i] for i in range(len(deferred))])

    hosted = hosted_batch()
    shared = [s.get(HOST_KEY) for s in hosted['data_samples']]
    for inputs in shared:
        # brightness has no CPU part.
        assert sorted(inputs) == sorted(
            f'{n}/{s}' for n, s in cells if n != 'brightness')
    wrapped = MODELS.build(
        dict(type='CorruptingDataPreprocessor',
             data_preprocessor=copy.deepcopy(preprocessor_cfg), seed=3,
             channel_order=channel_order))
    for cell in cells:
        wrapped.set_cell(*cell)
        want = wrapped.corrupt_and_resize(copy.deepcopy(batch))['inputs']
        copied = copy.deepcopy(hosted, {id(d): d for d in shared})
        got = wrapped.corrupt_and_resize(copied)
        for a, b in zip(want, got['inputs']):
            assert torch.equal(a, b), cell
        # The cell's samples go on without the inputs.
        assert all(HOST_KEY not in s for s in got['data_samples'])
    assert shared == [{}] * len(shared)
    # The device really uses them: a blank fog fractal leaves image 0
    # unfogged, the others as computed.
    poisoned = hosted_batch()
    fractal = poisoned['data_samples'][0].get(HOST_KEY)['fog/2']['fractal']
    fractal[...] = 0
    wrapped.set_cell('fog', 2)
    want = wrapped.corrupt_and_resize(copy.deepcopy(batch))['inputs']
    got = wrapped.corrupt_and_resize(poisoned)['inputs']
    assert not torch.equal(want[0], got[0])
    assert all(torch.equal(a, b) for a, b in zip(want[1:], got[1:]))


def test_corruption_really_applied(setup):
    preprocessor_cfg, _, batch = setup
    wrapped = CorruptingDataPreprocessor(copy.deepcopy(preprocessor_cfg))
    clean = wrapped.corrupt_and_resize(copy.deepcopy(batch))['inputs']
    wrapped.set_cell('contrast', 5)
    low = wrapped.corrupt_and_resize(copy.deepcopy(batch))['inputs']
    # Contrast 5 maps a channel x to 0.05 x + 0.95 m (m its mean at the
    # original size), truncated to uint8 (up to 1 lower); the resize is
    # affine and rounds to nearest (0.5), and the clean image compared with
    # was rounded too (0.5, scaled by 0.05). A channel is then 0.05 times
    # the clean one, plus a constant, plus an error in (-1.525, 0.525],
    # whose standard deviation is at most half that range, 1.025 (1.03
    # with float rounding).
    for c, lo in zip(clean, low):
        c, lo = c.flatten(1).double(), lo.flatten(1).double()
        assert (lo.std(1, correction=0) <=
                0.05 * c.std(1, correction=0) + 1.03).all()
    # A stacked batch gives the same.
    stacked = dict(batch, inputs=torch.stack(batch['inputs']))
    again = wrapped.corrupt_and_resize(copy.deepcopy(stacked))['inputs']
    assert all(torch.equal(a, b) for a, b in zip(low, again))


def test_found_in_a_model_and_follows_its_device(setup):
    preprocessor_cfg = setup[0]
    model = torch.nn.Module()
    model.data_preprocessor = CorruptingDataPreprocessor(preprocessor_cfg)
    assert find_corrupting_preprocessor(model) is model.data_preprocessor
    assert find_corrupting_preprocessor(torch.nn.Linear(1, 1)) is None
    inner = model.data_preprocessor.data_preprocessor
    inner._device = None
    model.data_preprocessor.to('cpu')
    assert inner._device == torch.device('cpu')


def test_resize_like_cv2_keeps_a_sized_image():
    img = torch.randint(0, 256, (3, 40, 50), dtype=torch.uint8)
    assert resize_like_cv2(img, (40, 50)) is img
    out = resize_like_cv2(img, (80, 100))
    assert out.shape == (3, 80, 100) and out.dtype == torch.uint8
    assert resize_like_cv2(img.float(), (20, 25)).dtype == torch.float32


def test_bad_input(setup):
    preprocessor_cfg, _, batch = setup
    wrapped = CorruptingDataPreprocessor(preprocessor_cfg)
    with pytest.raises(RobustDetError, match='for testing only'):
        wrapped(copy.deepcopy(batch), training=True)
    wrapped.set_cell('fog', 1)
    no_identity = copy.deepcopy(batch)
    for sample in no_identity['data_samples']:
        sample.set_metainfo(dict(img_identity=None))
    with pytest.raises(RobustDetError, match="needs 'img_identity'"):
        wrapped(no_identity)
    with pytest.raises(RobustDetError, match='one data sample per image'):
        wrapped(dict(batch, data_samples=None))
    gray = dict(copy.deepcopy(batch),
                inputs=[x[:1] for x in batch['inputs']])
    with pytest.raises(RobustDetError, match='3-channel images'):
        wrapped(gray)
    with pytest.raises(RobustDetError, match="unknown corruption 'fgo'"):
        wrapped.set_cell('fgo', 1)
    with pytest.raises(RobustDetError, match='unknown channel order'):
        CorruptingDataPreprocessor(preprocessor_cfg, channel_order='brg')


@pytest.mark.skipif(torch.cuda.is_available(), reason='CUDA is available')
def test_cuda_without_cuda(setup):
    with pytest.raises(RobustDetError, match='CUDA is not available'):
        CorruptingDataPreprocessor(setup[0], device='cuda')
