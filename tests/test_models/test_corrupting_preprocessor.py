# Copyright (c) robustdet contributors. All rights reserved.
"""CorruptingDataPreprocessor (backend torch) against the CPU path: the
image corrupted by CorruptImage at its original resolution, resized by the
pipeline's Resize (OpenCV), preprocessed by the model's own preprocessor.

Measured on the small demo data (4 images of 128x96, Resize to 320x240,
i.e. x2.5): the resized uint8 images differ by at most 1 grey level and
about 10-12 % of the values differ at all, for the clean images, fog,
defocus_blur, saturate with channel order bgr, and gaussian_noise against
the CPU path with the torch backend (the noises' pixels come from the
torch generator). The difference is OpenCV's fixed-point bilinear resize
against torch's float one; the corruptions themselves are within a grey
level of the fast backend.
"""
import copy

import pytest
import torch
from mmdet.registry import DATASETS, MODELS
from mmengine.dataset import pseudo_collate

from robustdet.models import (CorruptingDataPreprocessor,
                              find_corrupting_preprocessor, resize_like_cv2)
from robustdet.utils import RobustDetError

# Grey levels (0-255) the device path may differ by from the CPU path.
TOLERANCE = 1


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
    assert diff.max() <= TOLERANCE
    assert diff.float().mean() < 0.2

    # The whole preprocessing: normalised, padded, stacked alike.
    expected = original(copy.deepcopy(cpu))
    got = wrapped(copy.deepcopy(batch))
    assert got['inputs'].shape == expected['inputs'].shape
    std = torch.tensor(preprocessor_cfg['std']).min()
    assert (got['inputs'] - expected['inputs']).abs().max() <= \
        TOLERANCE / std + 1e-5
    for a, b in zip(expected['data_samples'], got['data_samples']):
        meta = dict(b.metainfo)
        meta.pop('img_identity')
        assert meta == a.metainfo
        assert meta['scale_factor'] == (2.5, 2.5)


def test_corruption_really_applied(setup):
    preprocessor_cfg, _, batch = setup
    wrapped = CorruptingDataPreprocessor(copy.deepcopy(preprocessor_cfg))
    clean = wrapped.corrupt_and_resize(copy.deepcopy(batch))['inputs']
    wrapped.set_cell('contrast', 5)
    low = wrapped.corrupt_and_resize(copy.deepcopy(batch))['inputs']
    assert all(c.float().std() > 4 * lo.float().std()
               for c, lo in zip(clean, low))
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
