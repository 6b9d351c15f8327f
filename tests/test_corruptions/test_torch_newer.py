# Copyright (c) robustdet contributors. All rights reserved.
"""The torch ImageNet-C-bar and 3DCC corruptions against their numpy cores.

On CPU torch, each of the 16 at severities 1 and 5, on photo-like images
(smooth shading, flat patches with edges, fine texture) of 48×80 and
56×72 with a street-like depth map (far at the top, near at the bottom,
unknown sky, one NaN and one zero), two images per batch with their own
seeds. Bounds on ``|torch - core|`` in grey levels:

* ``EXACT``: 0. Integer pipelines or the core's own random numbers and
  tables (checkerboard_cutout, color_quant, low_light, iso_noise;
  perlin_noise and blue_noise_sample measured 0 as well, but go through
  float32 sums of products and an FFT, so they get the float bound
  below).
* ``FOCUS``: at most 1. The two focus blurs repeat OpenCV's fixed-point
  Gaussian and blendLinear exactly, and the core's float32 FFT filter
  for wider kernels with torch's FFT, whose last bits may round a value
  the other way. Both are also held within 2 grey levels of the exact
  layered Gaussian (float64, direct), at 128×160.
* every other: at most 1 grey level on all but 1e-3 of the values, and
  a mean below 0.01. The same float32 / float64 steps in the same order,
  so only the last bits of ``sin``, ``cos``, ``atan2``, ``pow``,
  ``exp`` and the FFT differ: a grey level where the truncation to uint8
  falls on the other side (measured: at most 1e-4 of the values). The
  1e-3 admits the definition's own discontinuities, where such a bit
  decides: caustic_refraction's lens normal at the 0.999 cut-off (a ray
  that moves by pixels; measured 13 grey levels on 5 of 11,520 values at
  48×80, severity 5), a pixel on a ring's edge or a star's ray boundary.

Nothing matches only in distribution: every random number is drawn on
the CPU from the core's stream. Batch independence: each image of a batch
equals the same image corrupted alone (same seed).
"""
import cv2
import numpy as np
import pytest
import torch

from robustdet.corruptions import torch_cbar, torch_threedcc
from robustdet.corruptions.cbar import CBAR_NAMES, corrupt_cbar
from robustdet.corruptions.threedcc import (NEEDS_DEPTH, THREEDCC_NAMES,
                                            corrupt_3dcc)
from robustdet.utils.errors import RobustDetError

FUNCS = {**torch_cbar.FUNCS, **torch_threedcc.FUNCS}
EXACT = ('checkerboard_cutout', 'color_quant', 'low_light', 'iso_noise')
FOCUS = ('near_focus', 'far_focus')
SIZES = ((48, 80), (56, 72))
SEVERITIES = (1, 2, 3, 4, 5)


@pytest.fixture(scope='module', autouse=True)
def _one_thread():
    # The CPU is shared: torch's thread pool spinning next to another
    # process is slower than one thread.
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def photo(h, w, seed=0):
    """Smooth shading, flat patches with edges and fine texture."""
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:h, 0:w] / max(h, w)
    img = np.empty((h, w, 3))
    for c in range(3):
        img[..., c] = 120 + 60 * np.sin(6 * x + c) * np.cos(4 * y - c)
    for _ in range(12):
        y0, x0 = rng.integers(0, h), rng.integers(0, w)
        img[y0:y0 + h // 6, x0:x0 + w // 6] += rng.normal(0, 40, 3)
    img += rng.normal(0, 8, img.shape)
    return np.clip(img, 0, 255).astype(np.uint8)


def street_depth(h, w, seed=0):
    """Metres: far at the top, near at the bottom; unknown sky."""
    rng = np.random.default_rng(seed)
    y = np.mgrid[0:h, 0:w][0] / (h - 1)
    d = (2 + 60 * (1 - y)**2 + rng.random((h, w))).astype(np.float32)
    d[:h // 8, :w // 4] = np.inf
    d[0, -1] = np.nan
    d[1, -1] = 0
    return d


def _core(img, name, severity, seed, depth):
    if name in CBAR_NAMES:
        return corrupt_cbar(img, name, severity, seed)
    return corrupt_3dcc(img, name, severity, seed, depth=depth)


def _batch(imgs, depths):
    x = torch.from_numpy(np.stack(imgs)).permute(0, 3, 1, 2).contiguous()
    return x, torch.from_numpy(np.stack(depths))


def _to_hwc(out):
    return out.permute(0, 2, 3, 1).numpy()


def test_names():
    assert set(torch_cbar.FUNCS) == set(CBAR_NAMES)
    assert set(torch_threedcc.FUNCS) == set(THREEDCC_NAMES)


@pytest.mark.cpu_sensitive
@pytest.mark.parametrize('name', sorted(FUNCS))
def test_matches_core(name):
    for h, w in SIZES:
        imgs = [photo(h, w, s) for s in (1, 2)]
        depths = [street_depth(h, w, s) for s in (1, 2)]
        x, depth = _batch(imgs, depths)
        for severity in (1, 5):
            seeds = [100 * severity + h, 7 * severity + w]
            out = FUNCS[name](x, severity, seeds, depth)
            assert out.dtype == torch.uint8 and out.shape == x.shape
            for img, o, seed, d in zip(imgs, _to_hwc(out), seeds, depths):
                diff = np.abs(
                    o.astype(np.int16) - _core(img, name, severity, seed, d))
                where = (name, severity, h, w)
                if name in EXACT:
                    assert diff.max() == 0, where
                elif name in FOCUS:
                    assert diff.max() <= 1, where
                else:
                    assert (diff > 1).mean() <= 1e-3, where
                    assert diff.mean() < 0.01, where


@pytest.mark.parametrize('calibration', ['taskonomy', 'midas', 'percentile'])
@pytest.mark.parametrize('name', sorted(NEEDS_DEPTH))
def test_depth_calibrations_match_core(name, calibration):
    # A room (0.2-6 m, below Taskonomy's 15.6 m) with unknown pixels.
    img = photo(48, 80, 3)
    depth = street_depth(48, 80, 3) / 10
    x, d = _batch([img], [depth])
    for severity in (1, 5):
        out = FUNCS[name](x, severity, [0], d, calibration=calibration)
        core = corrupt_3dcc(img, name, severity, 0, depth=depth,
                            calibration=calibration)
        diff = np.abs(_to_hwc(out)[0].astype(np.int16) - core)
        assert diff.max() <= 1, (name, calibration, severity)


@pytest.mark.parametrize('name', FOCUS)
def test_focus_within_two_grey_levels_of_exact(name):
    # Every layer blurred by the source's truncated Gaussian in float64,
    # directly: the torch port is held to the definition, not only to its
    # numpy twin. At 128×160 on this street under the per-image
    # calibration, far_focus has layers of up to 97 taps.
    from scipy import ndimage

    from robustdet.corruptions import threedcc

    def exact_blur(img, std):
        taps = threedcc._odd_taps(std)
        if std < 0.1 or taps == 1:
            return img
        k = cv2.getGaussianKernel(taps, std, cv2.CV_64F).ravel()
        x = ndimage.correlate1d(img.astype(float), k, axis=1, mode='nearest')
        x = ndimage.correlate1d(x, k, axis=0, mode='nearest')
        return np.clip(np.rint(x), 0, 255).astype(np.uint8)

    img, depth = photo(128, 160, 4), street_depth(128, 160, 4)
    x, d = _batch([img], [depth])
    widest = []
    fft = torch_threedcc._fft_filter_lines

    def counted(x, std, taps):
        widest.append(taps)
        return fft(x, std, taps)

    for severity in SEVERITIES:
        with pytest.MonkeyPatch.context() as m:
            m.setattr(torch_threedcc, '_fft_filter_lines', counted)
            out = _to_hwc(FUNCS[name](x, severity, [0], d,
                                      calibration='percentile'))[0]
            m.setattr(threedcc, '_gaussian_blur', exact_blur)
            exact = corrupt_3dcc(img, name, severity, 0, depth=depth,
                                 calibration='percentile')
        assert np.abs(out.astype(np.int16) - exact).max() <= 2, severity
    if name == 'far_focus':
        assert max(widest) > 80


@pytest.mark.cpu_sensitive
@pytest.mark.parametrize('name', sorted(FUNCS))
def test_batch_equals_one_at_a_time(name):
    h, w = SIZES[1]
    imgs = [photo(h, w, s) for s in (3, 4, 5)]
    x, depth = _batch(imgs, [street_depth(h, w, s) for s in (3, 4, 5)])
    seeds = [11, 12, 13]
    together = FUNCS[name](x, 3, seeds, depth)
    for i, seed in enumerate(seeds):
        alone = FUNCS[name](x[i:i + 1], 3, [seed], depth[i:i + 1])
        assert torch.equal(together[i:i + 1], alone), (name, i)
    if name in CBAR_NAMES or name in ('low_light', 'iso_noise'):
        other = FUNCS[name](x[:1], 3, [seeds[0] + 1], depth[:1])
        assert not torch.equal(other, together[:1]), name


def test_edge_cases():
    # An image of one grey (low_light stretches from [0, 255] then), and
    # depth maps with a single valid value.
    grey = np.full((40, 40, 3), 90, np.uint8)
    x = torch.from_numpy(grey).permute(2, 0, 1)[None].contiguous()
    out = torch_threedcc.low_light(x, 2, [5])
    np.testing.assert_array_equal(
        _to_hwc(out)[0], corrupt_3dcc(grey, 'low_light', 2, 5))
    img = photo(40, 40)
    depth = np.full((40, 40), np.inf, np.float32)
    depth[3, 4] = 7.0
    x, d = _batch([img], [depth])
    for name in NEEDS_DEPTH:
        out = torch_threedcc.FUNCS[name](x, 4, [0], d)
        np.testing.assert_array_equal(
            _to_hwc(out)[0], corrupt_3dcc(img, name, 4, 0, depth=depth))
        with pytest.raises(RobustDetError, match='no valid value'):
            torch_threedcc.FUNCS[name](x, 4, [0], torch.zeros_like(d))
        with pytest.raises(RobustDetError, match='depth'):
            torch_threedcc.FUNCS[name](x, 4, [0], None)


@pytest.mark.parametrize('name', ['color_quant', 'far_focus'])
def test_public_entry_points(name):
    """corrupt(backend='torch') and corrupt_batch route the newer families
    (with their depth) to these ports: the pixels of the fast backend."""
    from robustdet.corruptions import corrupt
    from robustdet.corruptions.torch_backend import corrupt_batch
    img = photo(48, 80)
    depth = np.linspace(30.0, 2.0, 48)[:, None].repeat(80, axis=1)
    kwargs = dict(depth=depth) if name in NEEDS_DEPTH else {}
    fast = corrupt(img, name, 5, seed=3, **kwargs)
    np.testing.assert_array_equal(
        corrupt(img, name, 5, seed=3, backend='torch', **kwargs), fast)
    batch = torch.from_numpy(np.stack([img, img])).permute(0, 3, 1, 2)
    out = corrupt_batch(
        batch, name, 5, [3, 3],
        depth=np.stack([depth, depth]) if kwargs else None)
    np.testing.assert_array_equal(out[1].permute(1, 2, 0).numpy(), fast)
    if kwargs:
        with pytest.raises(RobustDetError, match='needs a depth map'):
            corrupt(img, name, 5, seed=3, backend='torch')
