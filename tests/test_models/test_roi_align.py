# Copyright (c) robustdet contributors. All rights reserved.
"""FastRoIAlign gives exactly mmcv's RoIAlign outputs (torch.equal), on
random features and boxes that cover the feature-map border, boxes outside
it, degenerate and huge boxes, both ``aligned`` settings, fixed and
adaptive sampling; and it falls back to mmcv where its kernel does not
apply."""
import pytest
import torch
from mmcv.ops import RoIAlign
from mmdet.registry import MODELS

from robustdet.models.roi_align import (FastRoIAlign, _kernel_applies,
                                        use_fast_roi_align)
from robustdet.utils.cli import load_config
from tests.conftest import FRCNN_DEMO, MASK_DEMO

# Equality with mmcv's kernel, through detectors: run again held back.
pytestmark = pytest.mark.cpu_sensitive


def random_rois(gen, num, num_images, height, width):
    """Boxes in image pixels: mostly inside, some across or beyond the
    border, some degenerate (zero width or height), some huge."""
    x1 = torch.rand(num, generator=gen) * width * 1.2 - 0.1 * width
    y1 = torch.rand(num, generator=gen) * height * 1.2 - 0.1 * height
    w = torch.rand(num, generator=gen)**3 * width * 1.5
    h = torch.rand(num, generator=gen)**3 * height * 1.5
    w[:num // 20] = 0
    h[num // 20:num // 10] = 0
    batch = torch.randint(0, num_images, (num, ), generator=gen).float()
    return torch.stack([batch, x1, y1, x1 + w, y1 + h], 1)


@pytest.mark.parametrize('aligned', [True, False])
@pytest.mark.parametrize('sampling_ratio', [0, 2])
@pytest.mark.parametrize('output_size,spatial_scale', [(7, 1 / 4),
                                                       (7, 1 / 32),
                                                       ((14, 5), 1 / 8)])
def test_identical_to_mmcv(aligned, sampling_ratio, output_size,
                           spatial_scale):
    gen = torch.Generator().manual_seed(sampling_ratio + int(aligned))
    feat = torch.randn(3, 17, 23, 41, generator=gen)
    rois = random_rois(gen, 400, 3, 23 / spatial_scale, 41 / spatial_scale)
    mmcv_layer = RoIAlign(output_size, spatial_scale, sampling_ratio,
                          aligned=aligned)
    fast = FastRoIAlign.from_mmcv(mmcv_layer)
    assert _kernel_applies(fast, feat, rois)
    with torch.no_grad():
        expected = mmcv_layer(feat, rois)
        got = fast(feat, rois)
    assert got.shape == expected.shape and got.dtype == expected.dtype
    assert got.is_contiguous()
    assert torch.equal(got, expected)


def test_non_finite_features_propagate_like_mmcv():
    gen = torch.Generator().manual_seed(5)
    feat = torch.randn(1, 4, 9, 9, generator=gen)
    feat[0, 1, 0, 0] = float('inf')
    feat[0, 2, 4, 4] = float('nan')
    rois = random_rois(gen, 60, 1, 36, 36)
    layer = RoIAlign(3, 1 / 4)
    with torch.no_grad():
        expected = layer(feat, rois)
        got = FastRoIAlign.from_mmcv(layer)(feat, rois)
    assert torch.equal(got.isnan(), expected.isnan())
    finite = ~expected.isnan()
    assert torch.equal(got[finite], expected[finite])


def test_falls_back_to_mmcv_where_the_kernel_does_not_apply():
    gen = torch.Generator().manual_seed(1)
    feat = torch.randn(2, 3, 8, 8, generator=gen)
    rois = random_rois(gen, 20, 2, 32, 32)
    avg = FastRoIAlign(2, 1 / 4)
    assert _kernel_applies(avg, feat, rois)
    assert not _kernel_applies(FastRoIAlign(2, 1 / 4, pool_mode='max'), feat,
                               rois)
    assert not _kernel_applies(avg, feat.double(), rois.double())
    assert not _kernel_applies(avg, feat, rois[:0])
    bad_batch = rois.clone()
    bad_batch[0, 0] = 2
    assert not _kernel_applies(avg, feat, bad_batch)
    flipped = rois.clone()
    flipped[0, 3] = flipped[0, 1] - 8
    assert not _kernel_applies(avg, feat, flipped)
    with pytest.raises(RuntimeError, match='non-negative size'):
        with torch.no_grad():
            avg(feat, flipped)  # mmcv's own error
    # Gradients need mmcv's backward: training goes through mmcv.
    leaf = feat.clone().requires_grad_()
    assert not _kernel_applies(avg, leaf, rois)
    avg(leaf, rois).sum().backward()
    assert leaf.grad is not None
    with torch.no_grad():
        assert _kernel_applies(avg, leaf, rois)
    # Max pooling runs mmcv's code and gives its numbers.
    max_mmcv = RoIAlign(2, 1 / 4, pool_mode='max')
    with torch.no_grad():
        assert torch.equal(
            FastRoIAlign.from_mmcv(max_mmcv)(feat, rois),
            max_mmcv(feat, rois))


@pytest.mark.parametrize('config,swaps', [(FRCNN_DEMO, 4), (MASK_DEMO, 8)])
def test_swapped_detector_predicts_exactly_as_before(config, swaps):
    cfg = load_config(config)
    torch.manual_seed(0)
    model = MODELS.build(cfg.model).eval()
    gen = torch.Generator().manual_seed(0)
    inputs = [torch.randint(0, 256, (3, 96, 128), generator=gen).byte()]
    from mmdet.structures import DetDataSample
    sample = DetDataSample(
        metainfo=dict(img_shape=(96, 128), ori_shape=(96, 128),
                      scale_factor=(1.0, 1.0)))
    data = dict(inputs=inputs, data_samples=[sample])
    with torch.no_grad():
        before = model.test_step(data)[0].pred_instances
        assert use_fast_roi_align(model) == swaps
        assert use_fast_roi_align(model) == 0  # already swapped
        assert all(
            type(m) is not RoIAlign for m in model.modules())
        after = model.test_step(data)[0].pred_instances
    assert len(before) > 0
    for key in before.keys():
        assert torch.equal(before[key], after[key]), key
