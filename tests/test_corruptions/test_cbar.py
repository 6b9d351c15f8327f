# Copyright (c) robustdet contributors. All rights reserved.
"""Fidelity of the ImageNet-C-bar re-implementation (corruptions/cbar.py).

At 224×224, where every definition must reduce to the source's
(facebookresearch/augmentation-corruption, imagenet_c_bar/corrupt.py):

* the per-severity levels are the csv's (written out below, so that a
  typo in the module fails) and the parameters derived from them follow
  ``float_parameter(level, maxval) = level * maxval / 10``;
* per corruption, a check of the formula: a scalar, per-pixel
  transcription of the source's kernel evaluated on sampled pixels with
  the drawn parameters (sparkles, inverse_sparkles, perlin_noise,
  plasma_noise, caustic_refraction, cocentric_sine_waves,
  single_frequency_greyscale, checkerboard_cutout), and a statistic the
  formula implies (blacked-out fraction = Phi(threshold), the brownish
  spectrum and std, the dominant FFT frequency, the checker parity and
  cut-out fraction, white sparkle centres, ...).

For every corruption: uint8 of the input shape on 224×224, 96×160 and
480×640, deterministic per seed, different seeds differ, severity 5
moves the image further from the clean one than severity 1, the global
RNG is neither used nor read, and the lengths scale with sqrt(H W).
"""
import math

import cv2
import numpy as np
import pytest
from scipy import ndimage
from scipy.special import ndtr
from skimage import data

from robustdet.corruptions import cbar, cbar_caustic
from robustdet.corruptions.cbar import (CBAR_NAMES, CBAR_PARAMS,
                                        CBAR_STOCHASTIC, REFERENCE_SIZE,
                                        corrupt_cbar, sample_cbar_params)

# imagenet_c_bar/imagenet_c_bar.csv of the source, verbatim and in order.
SOURCE_CSV = (
    ('caustic_refraction', (2.35, 3.2, 4.9, 6.6, 9.15)),
    ('inverse_sparkles', (1.0, 2.0, 4.0, 9.0, 10.0)),
    ('sparkles', (1.0, 2.0, 3.0, 5.0, 6.0)),
    ('perlin_noise', (4.6, 5.2, 5.8, 7.6, 8.8)),
    ('blue_noise_sample', (0.8, 1.6, 2.4, 4.0, 5.6)),
    ('plasma_noise', (4.75, 7.0, 8.5, 9.25, 10.0)),
    ('checkerboard_cutout', (2.0, 3.0, 4.0, 5.0, 6.0)),
    ('cocentric_sine_waves', (3.0, 5.0, 8.0, 9.0, 10.0)),
    ('single_frequency_greyscale', (1.0, 1.5, 2.0, 4.5, 5.0)),
    ('brownish_noise', (1.0, 2.0, 3.0, 4.0, 5.0)),
)
# The source's derived parameter per corruption, level -> value, as
# (params key, maxval of float_parameter, offset), e.g. blue_noise_sample:
# threshold = float_parameter(level, 3.0) - 2.5.
DERIVED = {
    'caustic_refraction': [('lens_scale', 0.5 * 224, 0.0),
                           ('lighting_amount', 2.0, 0.0)],
    'inverse_sparkles': [('amount', -65.0, 100.0)],
    'sparkles': [('radius', 0.1 * 224, 0.0)],
    'perlin_noise': [('alpha', 0.5, 0.0)],
    'blue_noise_sample': [('threshold', 3.0, -2.5)],
    'plasma_noise': [('intensity', 64.0, 0.0)],
    'checkerboard_cutout': [('fraction', 1.0, 0.0)],
    'cocentric_sine_waves': [('intensity', 128.0, 0.0)],
    'single_frequency_greyscale': [('intensity', 196.0, 0.0)],
    'brownish_noise': [('intensity', 64.0, 0.0)],
}


def _photo(h=224, w=224):
    return cv2.resize(data.astronaut(), (w, h), interpolation=cv2.INTER_AREA)


PHOTO = _photo()
GREY = np.full((224, 224, 3), 128, np.uint8)


def _pixels(n, h=224, w=224, seed=0):
    rng = np.random.default_rng(seed)
    return list(zip(rng.integers(0, h, n), rng.integers(0, w, n)))


def _close(out, expected, pixels, tol=1, min_exact=0.9):
    """Output at ``pixels`` within ``tol`` grey levels of the scalar
    transcription, and mostly equal."""
    got = np.array([out[y, x] for y, x in pixels], np.int32)
    want = np.array(expected, np.int32)
    assert np.abs(got - want).max() <= tol
    assert (got == want).mean() >= min_exact


def _truncate(v):
    """The source's ``np.clip(v, 0, 255).astype(np.uint8)``."""
    return np.clip(np.asarray(v, np.float64), 0, 255).astype(np.uint8)


# ------------------------------------------------------------ tables


def test_names_and_levels_are_the_csv():
    assert CBAR_NAMES == tuple(name for name, _ in SOURCE_CSV)
    assert CBAR_PARAMS == dict(SOURCE_CSV)
    assert set(CBAR_STOCHASTIC) == set(CBAR_NAMES)
    assert all(CBAR_STOCHASTIC.values())
    assert REFERENCE_SIZE == 224


@pytest.mark.parametrize('name', CBAR_NAMES)
def test_derived_parameters_follow_float_parameter(name):
    for severity, level in enumerate(dict(SOURCE_CSV)[name], 1):
        params = sample_cbar_params(name, severity, 0, 224, 224)
        assert params['level'] == level
        for key, maxval, offset in DERIVED[name]:
            assert params[key] == pytest.approx(level * maxval / 10 + offset)


def test_derived_values_spelled_out():
    # A few spelled out, against a slip in DERIVED as well.
    def value(name, severity, key):
        return sample_cbar_params(name, severity, 0, 224, 224)[key]

    assert [value('blue_noise_sample', s, 'threshold')
            for s in range(1, 6)] == pytest.approx(
                [-2.26, -2.02, -1.78, -1.3, -0.82])
    assert [value('inverse_sparkles', s, 'amount')
            for s in range(1, 6)] == pytest.approx(
                [93.5, 87.0, 74.0, 41.5, 35.0])
    assert [value('caustic_refraction', s, 'lens_scale')
            for s in range(1, 6)] == pytest.approx(
                [26.32, 35.84, 54.88, 73.92, 102.48])
    assert [value('sparkles', s, 'radius')
            for s in range(1, 6)] == pytest.approx(
                [2.24, 4.48, 6.72, 11.2, 13.44])


# ------------------------------------------------------ every corruption


@pytest.mark.parametrize('name', CBAR_NAMES)
def test_shape_dtype_determinism(name):
    for h, w in ((224, 224), (96, 160), (480, 640), (32, 33)):
        img = _photo(h, w)
        before = img.copy()
        out = corrupt_cbar(img, name, 3, 7)
        assert out.shape == img.shape and out.dtype == np.uint8
        assert np.array_equal(img, before)  # input untouched
    a = corrupt_cbar(PHOTO, name, 4, 11)
    assert np.array_equal(a, corrupt_cbar(PHOTO, name, 4, 11))
    assert not np.array_equal(a, corrupt_cbar(PHOTO, name, 4, 12))
    # A non-contiguous view gives the same pixels.
    view = np.concatenate([PHOTO, PHOTO], axis=1)[:, ::2]
    assert np.array_equal(corrupt_cbar(view, name, 4, 11),
                          corrupt_cbar(view.copy(), name, 4, 11))


@pytest.mark.parametrize('name', CBAR_NAMES)
def test_no_global_rng(name):
    state = np.random.get_state()
    corrupt_cbar(PHOTO, name, 5, 3)
    after = np.random.get_state()
    assert state[0] == after[0] and np.array_equal(state[1], after[1])
    assert state[2:] == after[2:]
    np.random.seed(1)
    a = corrupt_cbar(PHOTO, name, 5, 3)
    np.random.seed(2)
    assert np.array_equal(a, corrupt_cbar(PHOTO, name, 5, 3))
    np.random.set_state(state)


@pytest.mark.parametrize('name', CBAR_NAMES)
def test_severity_5_degrades_more_than_1(name):
    # Every csv level grows with the severity and so does the effect
    # (inverse_sparkles: amount falls, the exponent (100 - amount) / 50
    # rises); the random draws do not depend on the severity, so the
    # same seed compares the same pattern at two strengths.
    clean = PHOTO.astype(np.int16)
    for seed in range(3):
        mad = [
            np.abs(corrupt_cbar(PHOTO, name, s, seed) - clean).mean()
            for s in (1, 3, 5)
        ]
        assert mad[0] < mad[1] < mad[2] or (
            name == 'checkerboard_cutout' and mad[0] <= mad[1] <= mad[2]
            and mad[0] < mad[2])
        assert mad[2] > 1.1 * mad[0]


@pytest.mark.parametrize('name', CBAR_NAMES)
def test_lengths_scale_with_effective_size(name):
    # Same seed, same draws: lengths times k = sqrt(H W) / 224, positions
    # per side, frequencies divided by k.
    h, w = 480, 640
    k = math.sqrt(h * w) / 224
    assert cbar.effective_scale(h, w) == pytest.approx(k)
    ref = sample_cbar_params(name, 4, 5, 224, 224)
    big = sample_cbar_params(name, 4, 5, h, w)
    lengths = {
        'caustic_refraction': ['size', 'lens_scale', 'softening'],
        'sparkles': ['radius', 'eps'],
        'inverse_sparkles': ['radius', 'eps'],
        'perlin_noise': ['period'],
        'plasma_noise': ['scale'],
        'checkerboard_cutout': ['side'],
        'cocentric_sine_waves': ['amplitude', 'ring_width'],
    }.get(name, [])
    for key in lengths:
        power = 2 if key == 'eps' else 1
        assert big[key] == pytest.approx(ref[key] * k**power), key
    if name == 'sparkles':
        assert np.allclose(big['centers'], ref['centers'] * (h / 224, w / 224))
        for a, b in zip(ref['ray_lengths'], big['ray_lengths']):
            assert np.allclose(b, np.maximum(k, a * k), rtol=1e-12) or \
                np.allclose(b, a * k)
    if name == 'inverse_sparkles':
        assert np.allclose(big['center'],
                           np.array(ref['center']) * (h / 224, w / 224))
        assert np.allclose(big['ray_lengths'], ref['ray_lengths'] * k)
    if name == 'cocentric_sine_waves':
        assert big['x0'] == pytest.approx(ref['x0'] * w / 224)
        assert big['y0'] == pytest.approx(ref['y0'] * h / 224)
    if name == 'single_frequency_greyscale':
        assert big['freq_x'] == pytest.approx(ref['freq_x'] / k)
        assert big['freq_y'] == pytest.approx(ref['freq_y'] / k)


def test_rejects_bad_arguments():
    with pytest.raises(ValueError):
        corrupt_cbar(PHOTO, 'gaussian_noise', 1, 0)
    for severity in (0, 6, True):
        with pytest.raises(ValueError):
            corrupt_cbar(PHOTO, 'sparkles', severity, 0)
    with pytest.raises(ValueError):
        corrupt_cbar(PHOTO[..., 0], 'sparkles', 1, 0)


# ------------------------------------------------------------ FFT noises


@pytest.mark.parametrize('shape', [(224, 224), (480, 640)])
def test_blue_noise_sample_blacks_out_phi_of_threshold(shape):
    # mask = noise > threshold with unit-std (near Gaussian) blue noise:
    # the blacked-out fraction is Phi(threshold), at any resolution.
    img = np.full(shape + (3, ), 200, np.uint8)
    for severity, level in enumerate(dict(SOURCE_CSV)['blue_noise_sample'],
                                     1):
        expected = ndtr(level * 3 / 10 - 2.5)
        outs = [corrupt_cbar(img, 'blue_noise_sample', severity, seed)
                for seed in range(3)]
        black = np.mean([(o == 0).all(axis=2).mean() for o in outs])
        assert black == pytest.approx(expected, rel=0.04, abs=0.002)
        # Kept pixels are untouched.
        assert all(((o == 0) | (o == 200)).all() for o in outs)


def test_blue_noise_is_blue():
    # The source's amplitude spectrum is |f|: power grows as f^2. At
    # 224×224 every component of the grid is in the band.
    amplitude = cbar._blue_amplitude(224, 224)
    fy = np.fft.fftfreq(224, 1 / 224)[:, None]
    fx = np.fft.fftfreq(224, 1 / 224)[None, :]
    assert np.allclose(amplitude, np.sqrt(fy**2 + fx**2), rtol=1e-6)
    power = _radial_power([
        cbar._spectral_field(amplitude, np.random.default_rng(s))
        for s in range(3)
    ])
    assert power(32) / power(8) == pytest.approx(16, rel=0.25)
    # At 480×640 the band is the reference one: 112 cycles per effective
    # size, i.e. 112 * 480 / sqrt(480 * 640) cycles per image height.
    big = cbar._blue_amplitude(480, 640)
    fy = np.abs(np.fft.fftfreq(480, 1 / 480))
    fx = np.abs(np.fft.fftfreq(640, 1 / 640))
    inside_y = fy <= 112 * 480 / math.sqrt(480 * 640)
    inside_x = fx <= 112 * 640 / math.sqrt(480 * 640)
    assert 0 < inside_y.sum() < 480 and 0 < inside_x.sum() < 640
    assert (big[~inside_y] == 0).all() and (big[:, ~inside_x] == 0).all()
    band = inside_y[:, None] & inside_x[None, :]
    band[0, 0] = False  # |f| = 0
    assert (big[band] > 0).all()


def _radial_power(fields):
    """Mean |FFT|^2 over the ring of radius ``r`` (±0.5), pooled."""
    spectra = [np.abs(np.fft.fft2(f - f.mean()))**2 for f in fields]
    h, w = fields[0].shape
    fy = np.fft.fftfreq(h, 1 / h)[:, None]
    fx = np.fft.fftfreq(w, 1 / w)[None, :]
    radius = np.sqrt(fy**2 + fx**2)

    def power(r):
        ring = np.abs(radius - r) <= 0.5
        return np.mean([s[ring].mean() for s in spectra])

    return power


def test_brownish_noise_spectrum_and_intensity():
    # Amplitude 1 / (f^2 + 1) per channel, unit std, times level * 6.4.
    for severity, level in enumerate(dict(SOURCE_CSV)['brownish_noise'], 1):
        out = corrupt_cbar(GREY, 'brownish_noise', severity, 4)
        residual = out.astype(np.float64) - 128
        for c in range(3):
            assert residual[..., c].std() == pytest.approx(
                level * 6.4, rel=0.03, abs=0.3)
        assert not np.array_equal(residual[..., 0], residual[..., 1])
    f2 = (np.fft.fftfreq(224, 1 / 224)[:, None]**2 +
          np.fft.fftfreq(224, 1 / 224)[None, :]**2)
    assert np.allclose(cbar._brownish_amplitude(224, 224), 1 / (f2 + 1),
                       rtol=1e-6)
    out = [
        corrupt_cbar(GREY, 'brownish_noise', 5, seed).astype(np.float64)
        for seed in range(8)
    ]
    power = _radial_power([o[..., c] for o in out for c in range(3)])
    # The same ring means of A^2 = 1 / (f^2 + 1)^2: about 130.
    expected = _radial_power([np.fft.ifft2(1 / (f2 + 1)).real * 224**2])
    ratio = expected(2) / expected(8)
    assert 100 < ratio < 180
    assert power(2) / power(8) == pytest.approx(ratio, rel=0.25)


# ----------------------------------------------------------------- waves


def test_single_frequency_greyscale_formula_and_frequency():
    for severity in (1, 5):
        for seed in range(3):
            p = sample_cbar_params('single_frequency_greyscale', severity,
                                   seed, 224, 224)
            assert abs(p['freq_x']) <= math.pi and abs(
                p['freq_y']) <= math.pi
            ys, xs = np.mgrid[:224, :224]
            noise = np.sin(xs * p['freq_x'] + ys * p['freq_y'] + p['phase'])
            want = _truncate(128 + p['intensity'] * noise[..., None])
            out = corrupt_cbar(GREY, 'single_frequency_greyscale', severity,
                               seed)
            assert np.abs(out.astype(int) - want).max() <= 1
            assert (out == want).mean() > 0.99


@pytest.mark.parametrize('shape', [(224, 224), (480, 640)])
def test_single_frequency_dominant_fft_bin(shape):
    # The wave's cycles per image, freq * side / (2 pi), is the FFT peak:
    # at 480×640 the same as at 224 per effective size.
    h, w = shape
    img = np.full((h, w, 3), 128, np.uint8)
    checked = 0
    for seed in range(8):
        p = sample_cbar_params('single_frequency_greyscale', 5, seed, h, w)
        ky = p['freq_y'] * h / (2 * math.pi)
        kx = p['freq_x'] * w / (2 * math.pi)
        if min(abs(ky), abs(kx)) < 2 or max(abs(ky), abs(kx)) > h / 2 - 2:
            continue  # near DC or aliasing: no clean peak
        out = corrupt_cbar(img, 'single_frequency_greyscale', 5, seed)
        spec = np.abs(np.fft.fft2(out[..., 0] - out[..., 0].mean()))
        py, px = np.unravel_index(spec.argmax(), spec.shape)
        py = py - h if py > h // 2 else py
        px = px - w if px > w // 2 else px
        sign = 1 if abs(py - ky) + abs(px - kx) < abs(py + ky) + abs(
            px + kx) else -1
        assert abs(py - sign * ky) <= 1 and abs(px - sign * kx) <= 1
        checked += 1
    assert checked >= 3


def test_cocentric_sine_waves_formula():
    for severity in (1, 5):
        p = sample_cbar_params('cocentric_sine_waves', severity, 2, 224, 224)
        pixels = _pixels(300)
        want = []
        for y, x in pixels:
            angle = math.atan2(x - p['x0'], y - p['y0']) * p['freq']
            dist = math.hypot(x - p['x0'], y - p['y0'])
            d = ((dist + math.sin(angle) * p['amplitude']) % p['ring_width']
                 ) / p['ring_width'] - 0.5
            want.append(_truncate([128 + p['intensity'] * d] * 3))
        out = corrupt_cbar(GREY, 'cocentric_sine_waves', severity, 2)
        _close(out, want, pixels, min_exact=0.95)
        # The sawtooth spans intensity: [-I/2, I/2).
        residual = out[..., 0].astype(int) - 128
        half = p['intensity'] / 2
        assert residual.min() >= math.floor(-half)
        assert residual.max() <= math.ceil(half)
        assert residual.max() - residual.min() >= 2 * half - 4


def _plasma_kernel(x, y, rand, iters, sharp, scale):
    """The source's plasma kernel at one pixel, transcribed."""
    x /= scale
    y /= scale
    i = np.array([1.0, 1.0, 1.0, 0.0])
    for _ in range(iters):
        r = np.array([
            math.cos(y * i[0] - i[3] + rand / i[1]),
            math.sin(x * i[0] - i[3] + rand / i[1])
        ]) / i[2]
        r = r + np.array([-r[1], r[0]]) * 0.3
        x += r[0]
        y += r[1]
        i = i * np.array([1.93, 1.15, 2.25 - sharp, rand * i[1]])
    return np.array([
        math.sin(x - rand),
        math.sin((x + y + math.sin(rand)) * 0.5),
        math.sin(y + rand)
    ])


def test_plasma_noise_formula():
    for severity, seed in ((1, 0), (5, 1), (3, 2)):
        p = sample_cbar_params('plasma_noise', severity, seed, 224, 224)
        assert 4 <= p['iterations'] <= 6
        assert 0.075 * 224 <= p['scale'] <= 0.2 * 224
        pixels = _pixels(150, seed=seed)
        want = []
        for y, x in pixels:
            noise = _plasma_kernel(float(x), float(y), p['time'],
                                   p['iterations'], p['sharpness'],
                                   p['scale'])
            value = PHOTO[y, x].astype(np.float64)
            want.append(
                _truncate((1 - p['intensity'] / 255) * value +
                          p['intensity'] * noise))
        _close(corrupt_cbar(PHOTO, 'plasma_noise', severity, seed), want,
               pixels)


# ---------------------------------------------------------------- perlin


def _perlin_noise2(perm, grads, x, y):
    """Perlin's noise2 as the source's PerlinNoiseGenerator.noise."""
    p = np.concatenate([perm, perm[:258]])  # p[B + i] = p[i], i < B + 2

    def s_curve(t):
        return t * t * (3.0 - 2.0 * t)

    t = x + 4096
    bx0 = int(t) % 256
    bx1 = (bx0 + 1) % 256
    rx0 = t % 1
    rx1 = rx0 - 1.0
    t = y + 4096
    by0 = int(t) % 256
    by1 = (by0 + 1) % 256
    ry0 = t % 1
    ry1 = ry0 - 1.0
    i, j = p[bx0], p[bx1]
    b00, b10, b01, b11 = p[i + by0], p[j + by0], p[i + by1], p[j + by1]
    sx, sy = s_curve(rx0), s_curve(ry0)
    g = grads
    u = rx0 * g[b00, 0] + ry0 * g[b00, 1]
    v = rx1 * g[b10, 0] + ry0 * g[b10, 1]
    a = u + sx * (v - u)
    u = rx0 * g[b01, 0] + ry1 * g[b01, 1]
    v = rx1 * g[b11, 0] + ry1 * g[b11, 1]
    b = u + sx * (v - u)
    return 1.5 * (a + sy * (b - a))


def test_perlin_noise_formula():
    for severity, seed in ((1, 0), (5, 3)):
        p = sample_cbar_params('perlin_noise', severity, seed, 224, 224)
        assert sorted(p['perm']) == list(range(256))
        assert np.allclose(np.linalg.norm(p['grads'], axis=1), 1)
        assert p['period'] == 32.0
        pixels = _pixels(200, seed=seed)
        want = []
        for y, x in pixels:
            turb, f = 0.0, 1.0
            while f <= 16:
                turb += abs(
                    _perlin_noise2(p['perm'], p['grads'], f * y / 32,
                                   f * x / 32)) / f
                f *= 2
            noise = min(max(0.5 * turb + 0.5, 0.0), 1.0)
            want.append(
                _truncate((1 - p['alpha']) * PHOTO[y, x] +
                          255 * p['alpha'] * noise))
        _close(corrupt_cbar(PHOTO, 'perlin_noise', severity, seed), want,
               pixels)


# -------------------------------------------------------------- sparkles


def _star_weight(y, x, center, lengths, amount, eps=1e-4):
    """The source's sparkle kernel weight f at one pixel."""
    dy, dx = y - center[0], x - center[1]
    dist = math.hypot(dy, dx)
    rays = len(lengths)
    d = (math.atan2(dx, dy) + math.pi) / (2 * math.pi) * rays
    i = int(d)
    f = d - i
    length = lengths[i % rays] + f * (
        lengths[(i + 1) % rays] - lengths[i % rays])
    g = (length**2 / (dist**2 + eps))**((100 - amount) / 50.0)
    f = (1 - (f - 0.5)**2) * g
    return min(max(f, 0.0), 1.0)


def test_sparkles_formula():
    for severity, seed in ((1, 0), (5, 1)):
        p = sample_cbar_params('sparkles', severity, seed, 224, 224)
        assert len(p['centers']) == 5
        assert all(50 <= len(r) < 200 for r in p['ray_lengths'])
        assert all(r.min() >= 1.0 for r in p['ray_lengths'])
        assert p['amount'] == 50.0 and p['eps'] == 1e-4
        centre_pixels = [(min(int(round(cy)), 223), min(int(round(cx)), 223))
                         for cy, cx in p['centers']]
        pixels = _pixels(150, seed=seed) + centre_pixels
        want = []
        for y, x in pixels:
            value = PHOTO[y, x].astype(np.float64)
            for center, lengths in zip(p['centers'], p['ray_lengths']):
                f = _star_weight(y, x, center, lengths, p['amount'])
                value = value + f * (255 - value)
            want.append(_truncate(value))
        out = corrupt_cbar(PHOTO, 'sparkles', severity, seed)
        _close(out, want, pixels)
        # The pixel nearest to each centre is white.
        for y, x in centre_pixels:
            assert (out[y, x] == 255).all()


def test_inverse_sparkles_formula():
    for severity, seed in ((1, 0), (4, 2), (5, 1)):
        p = sample_cbar_params('inverse_sparkles', severity, seed, 224, 224)
        assert p['radius'] == 56.0
        cy, cx = p['center']
        assert 56 <= cy <= 168 and 56 <= cx <= 168
        pixels = _pixels(150, seed=seed) + [(int(cy), int(cx))]
        want = []
        for y, x in pixels:
            f = _star_weight(y, x, p['center'], p['ray_lengths'],
                             p['amount'])
            want.append(_truncate(255 + f * (PHOTO[y, x] - 255.0)))
        out = corrupt_cbar(PHOTO, 'inverse_sparkles', severity, seed)
        _close(out, want, pixels)
        # Inside the star (near its centre) the image is untouched.
        assert np.array_equal(out[int(cy), int(cx)], PHOTO[int(cy), int(cx)])


# ---------------------------------------------------------- checkerboard


def _checker_cut(y, x, p):
    """The source's mask_kernel: True where the pixel becomes grey."""
    nx = (math.cos(p['angle']) * y + math.sin(p['angle']) * x) / p['side']
    ny = (-math.sin(p['angle']) * y + math.cos(p['angle']) * x) / p['side']
    keep = (int(nx % 2) != int(ny % 2)) or not p['cut'][int(nx), int(ny)]
    return not keep


def test_checkerboard_cutout_formula_and_period():
    img = np.empty((224, 224, 3), np.uint8)
    img[:] = (10, 200, 60)  # no pixel is grey 128 before
    for severity, seed in ((1, 0), (3, 1), (5, 2)):
        p = sample_cbar_params('checkerboard_cutout', severity, seed, 224,
                               224)
        assert 0.1 * 224 <= p['side'] <= 0.25 * 224
        assert p['cut'].shape == (int(4 * 224 // p['side']), ) * 2
        out = corrupt_cbar(img, 'checkerboard_cutout', severity, seed)
        grey = (out == 128).all(axis=2)
        assert (grey | (out == img).all(axis=2)).all()
        pixels = _pixels(2000, seed=seed)
        want = [_checker_cut(y, x, p) for y, x in pixels]
        got = [grey[y, x] for y, x in pixels]
        # float32 in the module: a pixel on a square's edge may flip.
        assert np.mean(np.array(want) != np.array(got)) < 0.005
        # Period and angle: only squares of one colour are ever cut.
        ys, xs = np.mgrid[:224, :224]
        nx = (math.cos(p['angle']) * ys + math.sin(p['angle']) * xs)
        ny = (-math.sin(p['angle']) * ys + math.cos(p['angle']) * xs)
        parity = (np.floor(nx / p['side']) + np.floor(ny / p['side'])) % 2
        edge = ((np.abs(nx / p['side'] - np.round(nx / p['side'])) < 1e-3) |
                (np.abs(ny / p['side'] - np.round(ny / p['side'])) < 1e-3))
        assert (parity[grey & ~edge] == 0).all()


def test_checkerboard_cutout_fraction():
    # Half the squares are eligible, each cut with probability level /
    # 10: on average a fraction level / 20 of the image turns grey.
    img = np.empty((224, 224, 3), np.uint8)
    img[:] = (10, 200, 60)
    for severity, level in ((1, 2.0), (5, 6.0)):
        fractions = [(corrupt_cbar(img, 'checkerboard_cutout', severity,
                                   seed) == 128).all(axis=2).mean()
                     for seed in range(40)]
        assert np.mean(fractions) == pytest.approx(level / 20, abs=0.04)


# --------------------------------------------------------------- caustic


def _caustic_kernel(y, x, time, size):
    """The source's caustic_noise_kernel at one pixel (a scalar)."""
    p = (np.array([y, x], np.float64) / size % 1) * 6.28318530718 - 250
    i = p.copy()
    c = 1.0
    inten = 0.005
    for n in range(5):
        t = time * (1.0 - (3.5 / (n + 1)))
        i = p + np.array([
            math.cos(t - i[0]) + math.sin(t + i[1]),
            math.sin(t - i[1]) + math.cos(t + i[0])
        ])
        length = math.sqrt((p[0] / (math.sin(i[0] + t) / inten))**2 +
                           (p[1] / (math.cos(i[1] + t) / inten))**2)
        c += 1.0 / length
    c /= 5.0
    c = 1.17 - c**1.4
    return min(max(abs(c)**8.0, 0.0), 1.0)


def _refract(normal, eta):
    """The source's refract() of the vertical ray, transcribed."""
    incident = np.array([0.0, 0.0, 1.0])
    if abs(np.dot(incident, normal)) >= 1.0 - 1e-3:
        return incident
    angle = math.acos(np.dot(incident, normal))
    out_angle = math.asin(math.sin(angle) / eta)
    out = np.array([math.cos(out_angle), math.sin(out_angle), 0.0])
    spectator = np.cross(incident, normal)
    spectator /= np.linalg.norm(spectator)
    orthogonal = np.cross(normal, spectator)
    rotation = np.stack((normal, orthogonal, spectator), axis=0)
    return np.linalg.inv(rotation) @ out


def _bilinear(image, py, px):
    """The source's bilinear_interpolation: zero outside."""
    h, w = image.shape[:2]

    def at(y, x):
        return image[y, x] if 0 <= y < h and 0 <= x < w else np.zeros(3)

    y0, x0 = math.floor(py), math.floor(px)
    fy, fx = py - y0, px - x0
    top = at(y0, x0) * (1 - fx) + at(y0, x0 + 1) * fx
    bottom = at(y0 + 1, x0) * (1 - fx) + at(y0 + 1, x0 + 1) * fx
    return top * (1 - fy) + bottom * fy


def test_bilinear_sampling_formula():
    rng = np.random.default_rng(0)
    image = PHOTO[:40, :56]
    py = rng.uniform(-3, 43, 400).astype(np.float32)
    px = rng.uniform(-3, 59, 400).astype(np.float32)
    got = cbar_caustic._bilinear_zero(image, py, px)
    for y, x, value in zip(py, px, got):
        want = _bilinear(image.astype(np.float64), float(y), float(x))
        assert np.allclose(value, want, atol=1e-3)


def test_caustic_pattern_formula():
    for seed in (0, 1):
        p = sample_cbar_params('caustic_refraction', 3, seed, 224, 224)
        assert 0.5 <= p['time'] <= 2.0
        assert 0.75 * 224 <= p['size'] <= 1.25 * 224
        pattern = cbar_caustic._caustic_pattern(224, 224, p['time'], p['size'])
        pixels = _pixels(300, seed=seed)
        want = np.array(
            [_caustic_kernel(y, x, p['time'], p['size']) for y, x in pixels])
        got = np.array([pattern[y, x] for y, x in pixels])
        err = np.abs(got - want)
        assert np.quantile(err, 0.99) < 1e-3 and err.max() < 0.05


def test_refraction_offsets_formula():
    rng = np.random.default_rng(0)
    grow = rng.normal(0, 0.3, 300).astype(np.float32)
    gcol = rng.normal(0, 0.3, 300).astype(np.float32)
    grow[:20] *= 0.01  # nearly flat: the source leaves the ray alone
    drow, dcol = cbar_caustic._refraction_offsets(grow, gcol, 4.0, 50.0)
    for a, b, dr, dc in zip(grow, gcol, drow, dcol):
        normal = np.array([a, b, 1.0], np.float64)
        normal /= np.linalg.norm(normal)
        want = np.round(_refract(normal, 4.0) * 50.0, 3)
        assert dr == pytest.approx(want[0], abs=2e-3)
        assert dc == pytest.approx(want[1], abs=2e-3)


def test_caustic_refraction_formula():
    # The rest of the source's transform, per pixel, on the module's
    # (checked above) smoothed pattern: zero-padded neighbours, refract,
    # bilinear sample of image / 255, lighting, truncation.
    for severity, seed in ((1, 0), (5, 1)):
        p = sample_cbar_params('caustic_refraction', severity, seed, 224,
                               224)
        assert p['softening'] == 1.0 and p['eta'] == 4.0
        pattern = ndimage.gaussian_filter(
            cbar_caustic._caustic_pattern(224, 224, p['time'], p['size']),
            sigma=1).astype(np.float64)
        image = PHOTO.astype(np.float64) / 255

        def luma(y, x, pattern=pattern):
            inside = 0 <= y < 224 and 0 <= x < 224
            return pattern[y, x] if inside else 0.0

        pixels = _pixels(150, seed=seed) + [(0, 5), (223, 100), (50, 0)]
        want = []
        for y, x in pixels:
            north, south = luma(y, x - 1), luma(y, x + 1)
            west, east = luma(y - 1, x), luma(y + 1, x)
            normal = np.array([east - west, south - north, 1.0])
            normal /= np.linalg.norm(normal)
            vec = np.round(_refract(normal, 4.0) * p['lens_scale'], 3)
            pixel = _bilinear(image, y + vec[0], x + vec[1])
            pixel = pixel + (north - south) * p['lighting_amount']
            pixel = pixel + (east - west) * p['lighting_amount']
            want.append((np.clip(pixel, 0, 1) * 255).astype(np.uint8))
        out = corrupt_cbar(PHOTO, 'caustic_refraction', severity, seed)
        _close(out, want, pixels, min_exact=0.85)
