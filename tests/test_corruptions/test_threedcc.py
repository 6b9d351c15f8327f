# Copyright (c) robustdet contributors. All rights reserved.
"""Tests of the six 3D Common Corruptions (robustdet.corruptions.threedcc).

The per-severity parameters below are written out from the source,
EPFL-VILAB/3DCommonCorruptions: create_3dcc/create_non3d.py (low_light,
iso_noise, color_quant), create_3dcc/create_fog.py (fog_3d) and
create_3dcc/create_dof.py (near_focus, far_focus).
"""
import cv2
import numpy as np
import pytest
from scipy import ndimage

from robustdet.corruptions import threedcc
from robustdet.corruptions.threedcc import (DEPTH_FREE, NEEDS_DEPTH,
                                            THREEDCC_NAMES, THREEDCC_PARAMS,
                                            THREEDCC_STOCHASTIC, corrupt_3dcc,
                                            depth_from_cityscapes_disparity)
from robustdet.utils import RobustDetError

SEVERITIES = (1, 2, 3, 4, 5)
PCT = 'percentile'


def natural_image(h, w, seed=0):
    """Smooth shading, flat patches with edges and a little texture."""
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:h, 0:w] / max(h, w)
    img = np.empty((h, w, 3))
    for c in range(3):
        img[..., c] = 120 + 60 * np.sin(6 * x + c) * np.cos(4 * y - c)
    for _ in range(30):
        y0, x0 = rng.integers(0, h), rng.integers(0, w)
        img[y0:y0 + h // 8, x0:x0 + w // 8] += rng.normal(0, 40, 3)
    img += rng.normal(0, 6, img.shape)
    return np.clip(img, 0, 255).astype(np.uint8)


def street_depth(h, w, seed=0):
    """Metres: far (60 m) at the top, near (2 m) at the bottom."""
    rng = np.random.default_rng(seed)
    y = np.mgrid[0:h, 0:w][0] / (h - 1)
    return 2 + 60 * (1 - y)**2 + rng.random((h, w))


def high_freq(img):
    a = img.astype(np.float64)
    return (np.abs(np.diff(a, axis=0)).mean() +
            np.abs(np.diff(a, axis=1)).mean())


# ---------------------------------------------------------------------------
# Names and parameters


def test_names():
    assert DEPTH_FREE == ('low_light', 'iso_noise', 'color_quant')
    assert NEEDS_DEPTH == ('fog_3d', 'near_focus', 'far_focus')
    assert THREEDCC_NAMES == DEPTH_FREE + NEEDS_DEPTH
    assert set(THREEDCC_PARAMS) == set(THREEDCC_NAMES)
    assert set(THREEDCC_STOCHASTIC) == set(THREEDCC_NAMES)
    assert all(len(THREEDCC_PARAMS[n]) == 5 for n in THREEDCC_NAMES)
    assert [n for n in THREEDCC_NAMES if THREEDCC_STOCHASTIC[n]] == [
        'low_light', 'iso_noise'
    ]


def test_params_are_the_sources():
    # low_light: c = [.60, .50, 0.40, 0.30, 0.20], imadjust gamma 2., then
    # poisson_gaussian_noise(severity=3): 10 * 12 photons, std 0.1 * 0.18.
    assert THREEDCC_PARAMS['low_light'] == tuple(
        (c, 2.0, 10 * 12, pytest.approx(0.1 * 0.18))
        for c in (0.60, 0.50, 0.40, 0.30, 0.20))
    # iso_noise: c_poisson = 25, c_gauss = 0.7 * [.08, .12, 0.18, 0.26, 0.38]
    assert THREEDCC_PARAMS['iso_noise'] == tuple(
        (25, pytest.approx(0.7 * s)) for s in (.08, .12, 0.18, 0.26, 0.38))
    assert [p[1] for p in THREEDCC_PARAMS['iso_noise']] == pytest.approx(
        [0.056, 0.084, 0.126, 0.182, 0.266])
    # color_quant: bits = 6 - severity
    assert THREEDCC_PARAMS['color_quant'] == (5, 4, 3, 2, 1)
    # fog_3d: alpha = [4, 8, 12, 16, 20]
    assert THREEDCC_PARAMS['fog_3d'] == (4, 8, 12, 16, 20)
    # dof: aperture = severity + 2; far focus (aperture - 1.5) / 1; focus
    # quantile index 0 (near) and 7 (far) of 8 quantiles.
    assert THREEDCC_PARAMS['near_focus'] == ((3.0, 0), (4.0, 0), (5.0, 0),
                                             (6.0, 0), (7.0, 0))
    assert THREEDCC_PARAMS['far_focus'] == ((1.5, 7), (2.5, 7), (3.5, 7),
                                            (4.5, 7), (5.5, 7))


# ---------------------------------------------------------------------------
# Every corruption


@pytest.mark.parametrize('name', THREEDCC_NAMES)
@pytest.mark.parametrize('size', [(96, 160), (480, 640)])
def test_shape_dtype_deterministic_no_global_rng(name, size):
    h, w = size
    img = natural_image(h, w)
    depth = street_depth(h, w)
    np.random.seed(1234)
    state = np.random.get_state()
    a = corrupt_3dcc(img, name, 3, seed=7, depth=depth)
    b = corrupt_3dcc(img, name, 3, seed=7, depth=depth)
    after = np.random.get_state()
    assert after[0] == state[0] and after[2:] == state[2:]
    np.testing.assert_array_equal(after[1], state[1])
    assert a.dtype == np.uint8 and a.shape == img.shape
    assert a.flags.c_contiguous
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, img)
    c = corrupt_3dcc(img, name, 3, seed=8, depth=depth)
    assert np.array_equal(a, c) != THREEDCC_STOCHASTIC[name]


@pytest.mark.cpu_sensitive
@pytest.mark.parametrize('name', THREEDCC_NAMES)
def test_severity_5_degrades_more_than_1(name):
    img = natural_image(240, 320, seed=1)
    # A room (0.2-6 m): the source's calibration whitens a street's far
    # end already at severity 1.
    depth = street_depth(240, 320, seed=1) / 10
    ref = img.astype(np.float64)
    mse = [
        np.mean((corrupt_3dcc(img, name, s, 0, depth) - ref)**2)
        for s in SEVERITIES
    ]
    assert mse[4] > 1.5 * mse[0] > 0


def test_input_not_modified():
    img = natural_image(64, 96)
    depth = street_depth(64, 96)
    img0, depth0 = img.copy(), depth.copy()
    for name in THREEDCC_NAMES:
        corrupt_3dcc(img, name, 5, 0, depth)
    np.testing.assert_array_equal(img, img0)
    np.testing.assert_array_equal(depth, depth0)


# ---------------------------------------------------------------------------
# Depth-free corruptions


@pytest.mark.parametrize('severity', SEVERITIES)
def test_color_quant_palette(severity):
    bits = 6 - severity
    ramp = np.arange(256, dtype=np.uint8)
    img = np.stack([ramp, ramp[::-1], np.roll(ramp, 77)], -1)
    img = np.ascontiguousarray(np.broadcast_to(img, (32, 256, 3)))
    out = corrupt_3dcc(img, 'color_quant', severity, 0)
    step = 2**(8 - bits)
    for c in range(3):
        levels = np.unique(out[..., c])
        assert len(levels) == 2**bits
        np.testing.assert_array_equal(levels, np.arange(0, 256, step))
    # PIL.ImageOps.posterize keeps the top bits: v & ~(2**(8-bits) - 1).
    np.testing.assert_array_equal(out, img & (256 - step))
    expected = {5: [0, 8, 16, 248], 4: [0, 16, 240], 3: [0, 32, 224],
                2: [0, 64, 128, 192], 1: [0, 128]}[bits]
    assert set(expected) <= set(np.unique(out).tolist())


def test_color_quant_matches_pil():
    image_ops = pytest.importorskip('PIL.ImageOps')
    pil_image = pytest.importorskip('PIL.Image')
    img = natural_image(48, 64)
    for severity in SEVERITIES:
        pil = image_ops.posterize(pil_image.fromarray(img), 6 - severity)
        np.testing.assert_array_equal(
            corrupt_3dcc(img, 'color_quant', severity, 0), np.asarray(pil))


def _source_noise(img, signal, photons, std, rng):
    """The source's chain, written out: Poisson, Gaussian, truncate."""
    x = np.clip(rng.poisson(signal * photons) / photons, 0, 1)
    x = np.clip(x + rng.normal(size=x.shape, scale=std), 0, 1) * 255
    return np.uint8(x)


@pytest.mark.parametrize('severity', [1, 2, 3])
def test_iso_noise_std_on_flat_grey(severity):
    photons, std = THREEDCC_PARAMS['iso_noise'][severity - 1]
    img = np.full((256, 256, 3), 128, np.uint8)
    out = corrupt_3dcc(img, 'iso_noise', severity, 0).astype(np.float64)
    x = 128 / 255
    # Poisson variance x / photons plus the Gaussian's; clipping at 0 and
    # 1 is negligible at these severities. Truncation lowers the mean by
    # half a level.
    assert out.std() == pytest.approx(
        255 * np.sqrt(x / photons + std**2), rel=0.02)
    assert out.mean() == pytest.approx(128 - 0.5, abs=0.5)


@pytest.mark.parametrize('name', ['iso_noise', 'low_light'])
def test_noise_distribution_matches_source_chain(name):
    # The per-pixel draw must have the distribution of the source's
    # Poisson-then-Gaussian chain, on every grey level.
    ramp = np.arange(256, dtype=np.uint8)
    img = np.ascontiguousarray(
        np.broadcast_to(ramp[None, :, None], (256, 256, 3)))
    rng = np.random.default_rng(99)
    x = img / 255.0
    for severity in (1, 5):
        if name == 'iso_noise':
            photons, std = THREEDCC_PARAMS[name][severity - 1]
            signal = x
        else:
            c, gamma, photons, std = THREEDCC_PARAMS[name][severity - 1]
            signal = ((x - x.min()) / (x.max() - x.min()))**gamma * c
        ours = corrupt_3dcc(img, name, severity, 0)
        theirs = _source_noise(img, signal, photons, std, rng)
        h_ours = np.bincount(ours.ravel(), minlength=256) / ours.size
        h_theirs = np.bincount(theirs.ravel(), minlength=256) / ours.size
        assert np.abs(h_ours - h_theirs).sum() < 0.06
        # Mean per band of 16 input levels (12288 samples each).
        band_ours = ours.reshape(256, 16, 16, 3).mean(axis=(0, 2, 3))
        band_theirs = theirs.reshape(256, 16, 16, 3).mean(axis=(0, 2, 3))
        assert np.abs(band_ours - band_theirs).max() < 3
        assert ours.std() == pytest.approx(theirs.std(), rel=0.01)


@pytest.mark.parametrize('severity', SEVERITIES)
def test_low_light_mean_brightness(severity):
    c, gamma, _, _ = THREEDCC_PARAMS['low_light'][severity - 1]
    img = natural_image(240, 320, seed=2)
    out = corrupt_3dcc(img, 'low_light', severity, 0)
    x = img.astype(np.float64)
    stretched = ((x - x.min()) / (x.max() - x.min()))**gamma * c
    # The noise has zero mean; truncation takes half a level, clipping at
    # 0 adds a little to the darkest pixels.
    expected = 255 * stretched.mean() - 0.5
    assert out.mean() == pytest.approx(expected, abs=1.0)


def test_low_light_single_grey_image():
    # max == min: stretched from [0, 255] (the source divides by zero).
    img = np.full((64, 64, 3), 128, np.uint8)
    out = corrupt_3dcc(img, 'low_light', 1, 0)
    assert out.mean() == pytest.approx(
        255 * 0.6 * (128 / 255)**2 - 0.5, abs=1.0)


# ---------------------------------------------------------------------------
# Depth-aware corruptions


def _source_fog(img, d, severity):
    """create_fog.py's fog_3d on normalised depth ``d``, saved as its
    ToPILImage saves: float32 in [0, 1], times 255, truncated."""
    alpha = [4, 8, 12, 16, 20][severity - 1]
    rgb = img.astype(np.float32) / 255
    t = np.exp(-alpha * d.astype(np.float32))[..., None]
    fog = t * rgb + rgb.mean() * (1 - t)
    return (fog * 255).astype(np.uint8)


def _taskonomy(depth_m):
    """dataset.py's Taskonomy normalisation of metric depth: PNG units of
    1/512 m divided by 8000; d >= 1 (invalid included) set to the image's
    largest d below 1."""
    d = np.round(np.nan_to_num(depth_m, nan=200, posinf=200) * 512)
    d[depth_m <= 0] = 65535  # invalid
    d = np.minimum(d, 65535).astype(np.float32) / 8000
    d[d >= 1] = d[d < 1].max()
    return d


def _midas(inverse):
    """dataset.py's ImageNet normalisation of MiDaS' inverse depth."""
    d = 1 / (inverse.astype(np.float32) / 512 + 1e-6)
    return np.clip(d, 0, 0.5)


# Scenes in metres: a room, a close-up, a street (far at the top).
SCENES = {
    'indoor': (1.5, 6.0),
    'close-up': (0.5, 1.5),
    'street': (2.0, 60.0),
}


@pytest.mark.parametrize('scene', sorted(SCENES))
def test_fog_3d_is_the_sources_on_metric_depth(scene):
    # The depth in whole units of 1/512 m, as a Taskonomy PNG holds it,
    # so that both sides see the same depths.
    h, w = 60, 80
    img = natural_image(h, w, seed=4)
    near, far = SCENES[scene]
    depth = np.repeat(np.linspace(far, near, h)[:, None], w, axis=1)
    depth = np.round(depth * 512) / 512
    for severity in SEVERITIES:
        out = corrupt_3dcc(img, 'fog_3d', severity, 0, depth)
        want = _source_fog(img, _taskonomy(depth), severity)
        diff = np.abs(out.astype(np.int16) - want)
        assert diff.max() <= 1, (scene, severity)
        assert diff.mean() < 0.05


def test_fog_3d_unknown_depth_is_the_farthest_below_the_cap():
    img = natural_image(64, 96)
    depth = street_depth(64, 96) / 10  # 0.2-6 m: all below 15.6 m
    depth = np.round(depth * 512) / 512
    unknown = depth.copy()
    unknown[:8] = np.inf
    unknown[8:10] = np.nan
    unknown[10:12] = 0
    unknown[12:14] = -1
    unknown[14:16] = 20.0  # beyond 15.625 m: as unknown
    out = corrupt_3dcc(img, 'fog_3d', 2, 0, unknown)
    want = _source_fog(img, _taskonomy(unknown), 2)
    assert np.abs(out.astype(np.int16) - want).max() <= 1
    np.testing.assert_array_equal(
        threedcc._normalised_depth(unknown, 'fog_3d', (64, 96))[:16],
        np.float32(depth[16:].max() / np.float32(threedcc.TASKONOMY_METRES)))
    # Nothing below the cap: every pixel at d = 1.
    far = threedcc._normalised_depth(np.full((40, 40), 30.0), 'fog_3d',
                                     (40, 40))
    np.testing.assert_array_equal(far, 1)


def test_fog_3d_midas_is_the_sources_imagenet_convention():
    h, w = 48, 64
    img = natural_image(h, w, seed=6)
    # MiDaS' raw inverse depth (relative, larger is nearer), 0 for sky.
    inverse = np.repeat(np.linspace(0, 3000, h)[:, None], w, axis=1)
    with np.errstate(divide='ignore'):
        depth = 1 / inverse  # what a folder with --depth-inverse gives
    for severity in SEVERITIES:
        out = corrupt_3dcc(img, 'fog_3d', severity, 0, depth,
                           calibration='midas')
        want = _source_fog(img, _midas(inverse), severity)
        assert np.abs(out.astype(np.int16) - want).max() <= 1, severity


def test_fog_3d_percentile_is_scale_free():
    img = natural_image(64, 96)
    depth = street_depth(64, 96)
    out = corrupt_3dcc(img, 'fog_3d', 2, 0, depth, calibration='percentile')
    np.testing.assert_array_equal(
        corrupt_3dcc(img, 'fog_3d', 2, 0, depth * 1000,
                     calibration='percentile'), out)
    # The far end is d = 1 whatever the scene's depth: at severity 1 the
    # farthest rows keep e**-4 of the image.
    dn = threedcc._normalised_depth(depth, 'fog_3d', (64, 96), 'percentile')
    assert dn.max() == 1
    assert np.percentile(dn, 99) == pytest.approx(1, abs=1e-3)
    # Taskonomy's is not: the same street in millimetres is a blank wall.
    assert not np.array_equal(
        corrupt_3dcc(img, 'fog_3d', 2, 0, depth * 1000), out)


def test_focus_sigma_reference_follows_the_calibration():
    # The source's two conventions: apertures in pixels of 512² Taskonomy
    # images, or of 224² ImageNet crops (2.3× the blur, relative).
    assert threedcc.REFERENCE_SIZES == dict(
        taskonomy=512, midas=224, percentile=512)
    img = natural_image(96, 128, seed=8)
    dn = threedcc._normalised_depth(
        street_depth(96, 128) / 10, 'near_focus', (96, 128))
    at_224 = threedcc._refocus(img, dn, 5.0, 0, 224)
    same = threedcc._refocus(img, dn, 5.0 * 512 / 224, 0, 512)
    assert np.abs(at_224.astype(np.int16) - same).max() <= 1
    assert high_freq(at_224) < high_freq(threedcc._refocus(img, dn, 5.0, 0))


def test_unknown_calibration_is_one_line():
    img = natural_image(40, 40)
    with pytest.raises(RobustDetError,
                       match="unknown depth calibration 'metric'; valid: "
                       'taskonomy, midas, percentile'):
        corrupt_3dcc(img, 'fog_3d', 1, 0, np.ones((40, 40)),
                     calibration='metric')


@pytest.mark.parametrize('severity', SEVERITIES)
def test_fog_3d_transmission(severity):
    alpha = THREEDCC_PARAMS['fog_3d'][severity - 1]
    h, w = 100, 64
    # Two greys (a constant image is its own airlight), depth a ramp from
    # 0.1 m at the top to 15 m at the bottom: d = depth / 15.625.
    img = np.full((h, w, 3), 40, np.uint8)
    img[:, w // 2:] = 220
    depth = np.repeat(np.linspace(0.1, 15, h)[:, None], w, axis=1)
    out = corrupt_3dcc(img, 'fog_3d', severity, 0, depth).astype(float)
    t = np.exp(-alpha * depth / (8000 / 512))[..., None]
    airlight = img.mean()
    assert airlight == 130
    expected = img * t + airlight * (1 - t)
    assert np.all(out <= expected + 1e-3)  # truncated
    assert np.all(out > expected - 1)
    # Monotone towards the airlight with depth.
    dist = np.abs(out[:, :, 0] - airlight)
    assert np.all(np.diff(dist, axis=0) <= 0)


def _split_scene(h=240, w=320):
    """Blocky texture; left half at 2 m, right half at 50 m."""
    rng = np.random.default_rng(0)
    small = rng.integers(0, 256, (h // 4, w // 4, 3), dtype=np.uint8)
    img = cv2.resize(small, (w, h), interpolation=cv2.INTER_NEAREST)
    depth = np.full((h, w), 50.0)
    depth[:, :w // 2] = 2.0
    # Away from the boundary, where the blur of one half reaches the other.
    near, far = np.s_[:, :w // 2 - 40], np.s_[:, w // 2 + 40:]
    return img, depth, near, far


@pytest.mark.cpu_sensitive
@pytest.mark.parametrize('severity', [1, 3, 5])
def test_near_and_far_focus_swap(severity):
    img, depth, near, far = _split_scene()
    # The focus mechanics on a 2 m / 50 m scene: per-image calibration
    # (under the source's, 50 m is beyond its 15.6 m scale).
    near_focus = corrupt_3dcc(img, 'near_focus', severity, 0, depth, PCT)
    far_focus = corrupt_3dcc(img, 'far_focus', severity, 0, depth, PCT)
    # In focus: unchanged (the layer's blur has one tap).
    np.testing.assert_array_equal(near_focus[near], img[near])
    np.testing.assert_array_equal(far_focus[far], img[far])
    # Out of focus: the high frequencies are gone.
    assert high_freq(near_focus[far]) < 0.85 * high_freq(img[far])
    assert high_freq(far_focus[near]) < 0.1 * high_freq(img[near])


@pytest.mark.cpu_sensitive
def test_focus_blur_grows_with_severity_and_distance():
    h, w = 240, 320
    img = natural_image(h, w, seed=3)
    rng = np.random.default_rng(3)
    img = np.clip(img + rng.normal(0, 20, img.shape), 0, 255).astype(
        np.uint8)
    depth = street_depth(h, w)
    top, bottom = np.s_[:h // 4], np.s_[-h // 4:]  # far, near
    hf = [
        high_freq(corrupt_3dcc(img, 'near_focus', s, 0, depth, PCT)[top])
        for s in SEVERITIES
    ]
    assert all(a > b for a, b in zip(hf, hf[1:]))
    out = corrupt_3dcc(img, 'near_focus', 5, 0, depth, PCT)
    assert high_freq(out[bottom]) > 2 * high_freq(out[top])
    out = corrupt_3dcc(img, 'far_focus', 5, 0, depth, PCT)
    assert high_freq(out[top]) > 2 * high_freq(out[bottom])


@pytest.mark.cpu_sensitive
def test_focus_blur_scales_with_image_size():
    # The same scene at half the size blurs by half the pixels: the
    # downscaled result is close to the result at the smaller size.
    img, depth, _, _ = _split_scene(480, 640)
    big = corrupt_3dcc(img, 'near_focus', 5, 0, depth, PCT)
    small_img = cv2.resize(img, (320, 240), interpolation=cv2.INTER_AREA)
    small_depth = depth[::2, ::2]
    small = corrupt_3dcc(small_img, 'near_focus', 5, 0, small_depth, PCT)
    big_down = cv2.resize(big, (320, 240), interpolation=cv2.INTER_AREA)
    region = np.s_[:, 200:]
    err = np.abs(big_down[region].astype(float) - small[region]).mean()
    blur = np.abs(small_img[region].astype(float) - small[region]).mean()
    assert err < 0.05 * blur


def _exact_blur(img, std):
    """The source's blur in float64, directly: the truncated kernel of
    ``int(3 std)`` taps made odd, replicated border, rounded."""
    taps = threedcc._odd_taps(std)
    if std < 0.1 or taps == 1:
        return img
    k = cv2.getGaussianKernel(taps, std, cv2.CV_64F).ravel()
    x = ndimage.correlate1d(img.astype(np.float64), k, axis=1, mode='nearest')
    x = ndimage.correlate1d(x, k, axis=0, mode='nearest')
    return np.clip(np.rint(x), 0, 255).astype(np.uint8)


def _exact_focus(monkeypatch, img, name, severity, depth):
    """The layered focus blur with every layer blurred exactly."""
    with monkeypatch.context() as m:
        m.setattr(threedcc, '_gaussian_blur', _exact_blur)
        return corrupt_3dcc(img, name, severity, 0, depth, PCT)


# The scenes of the issue: a 2-60 m ramp (far at the top) on a photo, and
# the street of the torch tests, under the per-image calibration, whose
# far end is always at 1: far_focus has layers of up to 105 taps at
# 128×160 and 393 at 480×640 (under the source's, a 60 m street is
# flattened beyond 15.6 m and few layers are wide).
@pytest.mark.parametrize('size', [(128, 160), (480, 640)])
@pytest.mark.parametrize('name', ['near_focus', 'far_focus'])
def test_focus_within_two_grey_levels_of_exact(monkeypatch, size, name):
    h, w = size
    img = natural_image(h, w, seed=5)
    ramp = np.linspace(60, 2, h, dtype=np.float32)[:, None].repeat(w, 1)
    severities = SEVERITIES if h < 200 else (1, 3, 5)
    widest = []
    fft = threedcc._fft_filter_lines

    def counted(x, std, taps):
        widest.append(taps)
        return fft(x, std, taps)

    for depth in (ramp, street_depth(h, w)):
        for severity in severities:
            with monkeypatch.context() as m:
                m.setattr(threedcc, '_fft_filter_lines', counted)
                out = corrupt_3dcc(img, name, severity, 0, depth, PCT)
            exact = _exact_focus(monkeypatch, img, name, severity, depth)
            diff = np.abs(out.astype(np.int16) - exact)
            assert diff.max() <= 2, (name, severity, size, diff.max())
            # Fixed-point narrow kernels and float32 FFTs: nearly exact.
            assert diff.mean() < 0.05
    if name == 'far_focus':  # its near layers are the wide ones
        assert max(widest) > (80 if h < 200 else 300)


def test_wide_blur_is_the_truncated_gaussian():
    # Wider than 31 taps: the FFT filter before rounding is the float64
    # direct sum to 1e-3 grey levels, borders included.
    img = natural_image(40, 300, seed=2)
    for std in (10.7, 60.0, 40.0 * 3):
        taps = threedcc._odd_taps(std)
        assert taps > threedcc._MAX_DIRECT_KSIZE
        x = np.ascontiguousarray(img.transpose(2, 0, 1), np.float32)
        x = threedcc._fft_filter_lines(x, std, taps)
        k = cv2.getGaussianKernel(taps, std, cv2.CV_64F).ravel()
        want = ndimage.correlate1d(img.astype(np.float64), k, axis=1,
                                   mode='nearest')
        assert np.abs(x.transpose(1, 2, 0) - want).max() < 1e-3
        got = threedcc._gaussian_blur(img, std)
        assert np.abs(got.astype(np.int16) - _exact_blur(img, std)).max() <= 1


# ---------------------------------------------------------------------------
# Errors


@pytest.mark.parametrize('name', NEEDS_DEPTH)
def test_missing_depth_is_one_line_error(name):
    img = natural_image(64, 64)
    with pytest.raises(RobustDetError) as info:
        corrupt_3dcc(img, name, 1, 0)
    msg = str(info.value)
    assert msg == (f"{name} needs a depth map (the dataset's 'depth' field: "
                   f'Cityscapes disparity/ or a depth folder); none given')
    assert '\n' not in msg


@pytest.mark.parametrize('name', NEEDS_DEPTH)
def test_wrong_depth_shape_is_one_line_error(name):
    img = natural_image(64, 80)
    with pytest.raises(RobustDetError) as info:
        corrupt_3dcc(img, name, 1, 0, np.ones((80, 64)))
    msg = str(info.value)
    assert '(80, 64)' in msg and '(64, 80)' in msg and name in msg
    assert '\n' not in msg
    with pytest.raises(RobustDetError, match=r'\(64, 80, 1\)'):
        corrupt_3dcc(img, name, 1, 0, np.ones((64, 80, 1)))


def test_depth_without_valid_value():
    img = natural_image(64, 64)
    depth = np.full((64, 64), np.inf)
    depth[0, 0] = np.nan
    with pytest.raises(RobustDetError, match='no valid value'):
        corrupt_3dcc(img, 'fog_3d', 1, 0, depth)


def test_depth_free_ignore_depth():
    img = natural_image(64, 64)
    for name in DEPTH_FREE:
        np.testing.assert_array_equal(
            corrupt_3dcc(img, name, 2, 5),
            corrupt_3dcc(img, name, 2, 5, depth=np.ones((3, 3))))


@pytest.mark.parametrize('kwargs, match', [
    (dict(name='fog'), 'unknown 3DCC corruption'),
    (dict(severity=0), 'out of range'),
    (dict(severity=6), 'out of range'),
    (dict(severity=True), 'out of range'),
    (dict(severity=2.0), 'out of range'),
    (dict(seed=-1), 'seed'),
    (dict(seed=2**32), 'seed'),
    (dict(img=np.zeros((64, 64), np.uint8)), 'RGB uint8'),
    (dict(img=np.zeros((64, 64, 3), np.float32)), 'RGB uint8'),
    (dict(img=np.zeros((31, 64, 3), np.uint8)), 'at least 32'),
])
def test_bad_arguments(kwargs, match):
    args = dict(img=natural_image(64, 64), name='iso_noise', severity=1,
                seed=0)
    args.update(kwargs)
    with pytest.raises(RobustDetError, match=match):
        corrupt_3dcc(**args)


# ---------------------------------------------------------------------------
# Cityscapes disparity


def test_depth_from_cityscapes_disparity():
    png = np.array([[0, 1, 257, 513], [2, 65535, 129, 0]], dtype=np.uint16)
    baseline, fx = 0.209313, 2262.52
    depth = depth_from_cityscapes_disparity(png, baseline, fx)
    assert depth.shape == png.shape and depth.dtype == np.float32
    bf = baseline * fx
    expected = np.array([[np.inf, np.inf, bf, bf / 2],
                         [bf * 256, bf * 256 / 65534, bf * 2, np.inf]])
    np.testing.assert_allclose(depth, expected, rtol=1e-6)
    # Usable as the corruptions' depth: unknown is far.
    img = natural_image(32, 32)
    disparity = np.repeat(
        1 + 256 * np.arange(1, 33, dtype=np.uint16)[:, None], 32, axis=1)
    disparity[:8] = 0
    fog = corrupt_3dcc(
        img, 'fog_3d', 3, 0,
        depth_from_cityscapes_disparity(disparity, baseline, fx))
    assert np.abs(fog[:8].astype(float) - img.mean()).max() < 1


@pytest.mark.parametrize('args, match', [
    ((np.zeros((4, 4), np.float32), 0.2, 2000.0), 'integer'),
    ((np.zeros((4, 4, 1), np.uint16), 0.2, 2000.0), '2-D'),
    ((np.zeros((4, 4), np.uint16), 0.0, 2000.0), 'baseline'),
    ((np.zeros((4, 4), np.uint16), 0.2, float('nan')), 'fx'),
])
def test_cityscapes_disparity_bad_arguments(args, match):
    with pytest.raises(RobustDetError, match=match):
        depth_from_cityscapes_disparity(*args)


def test_non_contiguous_input():
    img = natural_image(64, 96)
    depth = street_depth(64, 96)
    flipped = img[:, ::-1]
    for name in THREEDCC_NAMES:
        out = corrupt_3dcc(flipped, name, 3, 0, depth[:, ::-1])
        assert out.flags.c_contiguous
        np.testing.assert_array_equal(
            out,
            corrupt_3dcc(flipped.copy(), name, 3, 0, depth[:, ::-1].copy()))


def test_sampler_is_the_exact_inverse_cdf():
    # The guide table and its exact fix-up give #{k : cdf[v, k] <= u} for
    # the 32-bit uniform u = r / 2**32 of each value.
    from robustdet.corruptions import threedcc
    cdf = threedcc._noise_cdf(np.arange(256) / 255, 25, 0.266)
    table, keys = threedcc._guide_table(cdf)
    ramp = np.arange(256, dtype=np.uint8)
    img = np.ascontiguousarray(
        np.broadcast_to(ramp[:, None, None], (256, 16, 3)))
    out = threedcc._sample(img, (table, keys), np.random.default_rng(5))
    r = np.random.default_rng(5).integers(
        0, 2**32, size=img.size, dtype=np.uint32)
    thresh = np.ceil(cdf * 2.0**32)
    expected = (thresh[img.ravel()] <= r[:, None]).sum(axis=1)
    np.testing.assert_array_equal(out.ravel(), expected)
    # Both paths ran: cells with one outcome and cells resolved by search.
    cell = (img.ravel().astype(np.int64) << 12) + (r >> 20)
    assert 0 < np.count_nonzero(table[cell] >= 0x8000) < img.size // 4
