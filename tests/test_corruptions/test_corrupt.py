# Copyright (c) robustdet contributors. All rights reserved.
import glob
import os.path as osp

import numpy as np
import pytest

from robustdet.corruptions import (CORRUPTION_NAMES, CORRUPTIONS_BY_NAME,
                                   NEEDS_DEPTH, corrupt)
from robustdet.utils import RobustDetError


@pytest.fixture(scope='module')
def image():
    rng = np.random.default_rng(0)
    y, x = np.mgrid[0:48, 0:64]
    base = np.stack([x * 4, y * 5, (x + y) * 2], axis=-1)
    noise = rng.integers(0, 40, size=base.shape)
    return np.clip(base + noise, 0, 255).astype(np.uint8)


# A depth map of the image's size for the corruptions that need one: a
# ramp from 2 m at the bottom to 40 m at the top.
DEPTH = np.linspace(40.0, 2.0, 48)[:, None].repeat(64, axis=1)


def _kwargs(name):
    return dict(depth=DEPTH) if name in NEEDS_DEPTH else {}


@pytest.mark.parametrize('name', CORRUPTION_NAMES)
def test_deterministic_and_seeded(image, name):
    if name in ('near_focus', 'far_focus'):
        # Their blurs scale with the image (min side / 512): a 48x64 image
        # gets under half a pixel. The same scene, 8 times as large:
        image = np.repeat(np.repeat(image, 8, axis=0), 8, axis=1)
        depth = np.repeat(np.repeat(DEPTH, 8, axis=0), 8, axis=1)
        a = corrupt(image, name, 3, seed=7, depth=depth)
        assert not np.array_equal(a, image)
        np.testing.assert_array_equal(
            a, corrupt(image, name, 3, seed=8, depth=depth))
        return
    state = np.random.get_state()
    a = corrupt(image, name, 3, seed=7, **_kwargs(name))
    b = corrupt(image, name, 3, seed=7, **_kwargs(name))
    # No global RNG state leaks.
    assert np.array_equal(np.random.get_state()[1], state[1])
    assert a.dtype == np.uint8 and a.shape == image.shape
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, image)
    c = corrupt(image, name, 3, seed=8, **_kwargs(name))
    if CORRUPTIONS_BY_NAME[name].stochastic:
        assert not np.array_equal(a, c)
    else:
        np.testing.assert_array_equal(a, c)


@pytest.mark.parametrize('backend', ['fast', 'reference'])
def test_read_only_images(image, backend):
    """A read-only array (np.frombuffer, a memmap) gives the pixels of a
    writeable one, and is left as it was."""
    frozen = image.copy()
    frozen.setflags(write=False)
    for name in CORRUPTION_NAMES:
        np.testing.assert_array_equal(
            corrupt(frozen, name, 3, seed=7, backend=backend,
                    **_kwargs(name)),
            corrupt(image, name, 3, seed=7, backend=backend,
                    **_kwargs(name)), err_msg=name)
    np.testing.assert_array_equal(frozen, image)


def test_reference_glass_blur_kernel_is_cached(image):
    """imagecorruptions compiles glass_blur's numba kernel without a cache
    (5 s in every process); the reference backend turns numba's on-disk
    cache on, so the kernel is looked up there before it is compiled."""
    from imagecorruptions import corruptions
    corrupt(image, 'glass_blur', 1, seed=7, backend='reference')
    stats = corruptions._shuffle_pixels_njit_glass_blur.stats
    assert stats.cache_path is not None
    # compiled and saved there, or loaded from there
    assert glob.glob(osp.join(stats.cache_path, '*glass_blur*.nbi')), stats


def test_not_affected_by_global_rng(image):
    np.random.seed(1)
    a = corrupt(image, 'gaussian_noise', 2, seed=3)
    np.random.seed(2)
    b = corrupt(image, 'gaussian_noise', 2, seed=3)
    np.testing.assert_array_equal(a, b)


def test_severity_zero_is_clean(image):
    out = corrupt(image, 'fog', 0)
    np.testing.assert_array_equal(out, image)
    assert out is not image


@pytest.mark.cpu_sensitive
def test_grayscale_keeps_shape(image):
    gray = image[..., 1].copy()
    out = corrupt(gray, 'contrast', 2)
    assert out.shape == gray.shape and out.dtype == np.uint8
    # contrast of a gray image stays gray: equal to corrupting it as RGB.
    # Exactly: contrast maps each channel by its own mean, so the three
    # channels stay equal, and the luma weights sum to 1 within 2**-52, so
    # rint() gets each value back (error 3e-14).
    rgb = corrupt(np.repeat(gray[..., None], 3, axis=2), 'contrast', 2)
    np.testing.assert_array_equal(out, rgb[..., 0])


def test_bgr_channel_order_is_reversed_rgb(image):
    bgr = corrupt(image, 'frost', 4, channel_order='bgr')
    expected = corrupt(
        np.ascontiguousarray(image[..., ::-1]), 'frost', 4)[..., ::-1]
    np.testing.assert_array_equal(bgr, expected)
    assert not np.array_equal(bgr, corrupt(image, 'frost', 4))


@pytest.mark.parametrize('kwargs,match', [
    (dict(name='fogg', severity=1), "unknown corruption 'fogg'"),
    (dict(name='fog', severity=6), 'severity 6 is out of range'),
    (dict(name='fog', severity=1, backend='gpu'), "backend 'gpu'"),
    (dict(name='fog', severity=1, channel_order='rbg'), "order 'rbg'"),
    (dict(name='fog', severity=1, seed=-1), 'seed must be'),
])
def test_bad_arguments(image, kwargs, match):
    with pytest.raises(RobustDetError, match=match):
        corrupt(image, **kwargs)


@pytest.mark.parametrize('name', NEEDS_DEPTH)
def test_depth_is_required_and_checked(image, name):
    with pytest.raises(RobustDetError, match=f'{name} needs a depth map'):
        corrupt(image, name, 1)
    with pytest.raises(RobustDetError, match='does not match the image'):
        corrupt(image, name, 1, depth=DEPTH[:40])
    # Depth is ignored by the corruptions that do not need it.
    np.testing.assert_array_equal(
        corrupt(image, 'color_quant', 2, depth=DEPTH[:40]),
        corrupt(image, 'color_quant', 2))


def test_bad_images(image):
    with pytest.raises(RobustDetError, match='uint8'):
        corrupt(image.astype(np.float32), 'fog', 1)
    with pytest.raises(RobustDetError, match='too small'):
        corrupt(image[:20], 'fog', 1)
    with pytest.raises(RobustDetError, match='shape'):
        corrupt(np.zeros((40, 40, 4), np.uint8), 'fog', 1)
