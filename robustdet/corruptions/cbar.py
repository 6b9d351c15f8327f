# Copyright (c) robustdet contributors. All rights reserved.
"""The ten ImageNet-C-bar corruptions, re-implemented for detection images.

ImageNet-C-bar (Mintun, Kirillov and Xie, "On Interaction Between
Augmentations and Corruptions in Natural Corruption Robustness", NeurIPS
2021; MIT-licensed code in facebookresearch/augmentation-corruption,
``imagenet_c_bar/``) defines its corruptions on 224×224 images, pixel by
pixel in Python loops. This module (with :mod:`.cbar_caustic` and
:mod:`.cbar_grid`) re-implements the ten of the benchmark from their
formulas, as whole-array numpy / scipy code at the detector's native
resolution (any H×W). Names, the order of
:data:`CBAR_NAMES` and the per-severity parameters in :data:`CBAR_PARAMS`
are the source's ``imagenet_c_bar.csv``; the source calls that value the
severity (a level on a 0-10 scale) and maps it to the effect with
``float_parameter(level, maxval) = level * maxval / 10``.

Sizes. The source's image is ``REFERENCE_SIZE = 224`` pixels square. Here
every length the source expresses in pixels of that image (sparkle radii
and ray lengths, the checker size, the rings' width and wobble, the
plasma and caustic feature sizes, the Perlin period, the caustic lens
displacement and smoothing) is multiplied by ONE factor
``k = sqrt(H * W) / 224``: the effective size is the geometric mean
``s = sqrt(H * W)`` of the sides. It is isotropic (a circle stays a
circle, a square checker a square on any aspect ratio), it keeps every
area fraction of the source (a sparkle of radius ``r k`` covers the same
share of an H×W image as one of radius ``r`` of a 224×224 image), and it
is exactly 1 at 224×224. Random positions (sparkle centres, the ring
centre) are drawn over H and W separately, as fractions of each side.
The FFT noises (blue_noise_sample, brownish_noise) are built on the H×W
grid: the component with ``ky`` cycles per image height and ``kx`` per
width has the reference frequency ``(ky s / H, kx s / W)`` cycles per
effective image, and the source's spectrum is a function of that
(its 224×224 grid spans ``|f| <= 112`` per axis; components beyond that
band are zero, so at a larger resolution the noise keeps its grain
relative to the image instead of shrinking to single pixels).
single_frequency_greyscale's wave likewise has a fixed number of cycles
per effective image (radians per pixel divided by ``k``). Gradients that
the source takes over one pixel (the caustic lens) are taken per
reference pixel (the native difference times ``k``). At 224×224 every
definition reduces to the source's.

Randomness. Everything is drawn from ``np.random.default_rng(seed)`` (or
a Generator seeded from it), never from the global RNG. The source draws
its parameters from numpy's global RNG, seeded once per process, so its
images depend on worker order; here the output is a pure function of
``(img, name, severity, seed)``. The RNG streams are not the source's, so
the pixels are not the source's: the distribution of the parameters and
the formula from parameters to pixels are. :func:`sample_cbar_params`
returns the drawn parameters (in native pixels).

Deviations from the source, each documented at the function concerned:

* the FFT noises take the real part of a random-phase spectrum with
  independent phases; the source mirrors its phases with an off-by-one
  and also takes the real part: the same power spectrum;
* perlin_noise redraws a zero gradient (the source normalises it to NaN,
  about once in 1000 images);
* cocentric_sine_waves draws the ring width from (0, s/10] instead of
  [0, s/10) (a zero width would divide by zero);
* the sines, cosines, arctangents and powers of plasma_noise,
  caustic_refraction, the sparkles and the rings are float64 as in the
  source, but :mod:`.portable`'s rather than numpy's (within a few ulp of
  them): a pixel on the edge of a rounding or a ring may differ from the
  source's formula run with numpy.

Kept as in the source, although they look accidental: the caustic lens
reads 0 outside the image (a one-pixel frame of strong refraction and
lighting) and checkerboard_cutout looks its coins up with ``int()``,
which truncates towards zero (the squares either side of an axis through
pixel (0, 0) share a coin).

CPU. numpy dispatches ``sin``, ``cos``, ``arctan2`` and ``power`` to
AVX-512, AVX2 or SSE kernels that differ in the last bit, which moved a
grey level in under 1e-4 of the pixels of five of these corruptions (and
a pixel on a ring's edge by up to the full sawtooth) between CPU
generations. They are computed per pixel by :mod:`.cbar_kernels` with
:mod:`.portable`'s functions instead, so all ten give the same pixels on
every CPU (``tests/test_corruptions/test_cpu_identical.py``); the FFT
noises draw their phases as normalised points of the unit disc rather
than through ``cos`` / ``sin``.
"""
import math
from typing import Any, Callable, Dict, Tuple

import numpy as np
from scipy import fft as sp_fft

from . import portable
from .cbar_caustic import caustic_refraction_pixels, sample_caustic_refraction
from .cbar_grid import REFERENCE_SIZE
from .cbar_grid import TWO_PI as _TWO_PI
from .cbar_grid import add_noise as _add_noise
from .cbar_grid import effective_scale
from .cbar_grid import float_parameter as _float_parameter
from .cbar_grid import grid as _grid
from .cbar_kernels import cocentric_noise, plasma_pattern, star_weight
from .portable import cos_array, sin_array
from .table import family_corruptions, get_corruption

# In the order of the source's imagenet_c_bar.csv (the table's order).
CBAR_NAMES: Tuple[str, ...] = family_corruptions('cbar')

# The source's severity level (0-10 scale) of severities 1-5, from
# imagenet_c_bar.csv; the values are the table's.
CBAR_PARAMS: Dict[str, Tuple[float, ...]] = {
    name: get_corruption(name).params
    for name in CBAR_NAMES
}

# Every one of the ten draws random numbers (positions, phases, seeds).
CBAR_STOCHASTIC: Dict[str, bool] = {
    name: get_corruption(name).stochastic
    for name in CBAR_NAMES
}

# --------------------------------------------------------- FFT noises


def _spectral_field(amplitude: np.ndarray,
                    rng: np.random.Generator) -> np.ndarray:
    """A random-phase field with the given amplitude spectrum, unit std.

    The real part of the inverse FFT of ``amplitude * exp(i phase)`` with
    independent uniform phases, divided by its standard deviation (not
    centred first), as the source's ``gen_noise``. The source mirrors the
    phases of one half plane onto the other with an off-by-one (so the
    spectrum is not Hermitian) and also takes the real part: the power
    spectrum of the result is the same, ``amplitude**2 / 2`` per
    component. ``exp(i phase)`` is drawn by :func:`_unit_phasors`.
    """
    re, im = _unit_phasors(rng, amplitude.size)
    spectrum = np.empty(amplitude.shape, np.complex64)
    spectrum.real = amplitude * re.reshape(amplitude.shape)
    spectrum.imag = amplitude * im.reshape(amplitude.shape)
    field = sp_fft.ifft2(spectrum, overwrite_x=True).real
    return field / field.std()


def _unit_phasors(rng: np.random.Generator,
                  n: int) -> Tuple[np.ndarray, np.ndarray]:
    """``(cos, sin)`` of ``n`` independent uniform phases, float32.

    Points uniform in the unit disc (by rejection from the square; a tiny
    disc about the centre is rejected too, where float32 would round the
    angle), divided by their length: additions, multiplications, square
    roots and divisions round the same on every CPU, where numpy's
    float32 ``cos`` and ``sin`` do not, and this costs less than two
    normal draws.
    """
    re = np.empty(n, np.float32)
    im = np.empty(n, np.float32)
    done = 0
    while done < n:
        m = int((n - done) * 1.3) + 64  # acceptance pi / 4
        xy = rng.random((2, m), dtype=np.float32)
        xy *= 2
        xy -= 1
        r2 = xy[0] * xy[0] + xy[1] * xy[1]
        ok = np.flatnonzero((r2 <= 1) & (r2 >= 1e-6))[:n - done]
        r = np.sqrt(r2[ok])
        re[done:done + ok.size] = xy[0, ok] / r
        im[done:done + ok.size] = xy[1, ok] / r
        done += ok.size
    return re, im


def _reference_frequencies(h: int, w: int) -> Tuple[np.ndarray, np.ndarray]:
    """Squared reference frequency (cycles per effective image) of each
    FFT component of an H×W grid, and the mask of the source's band.

    Returns:
        tuple: ``(f2, band)``, float64 H×W and bool H×W. At 224×224,
        ``f2`` is the squared distance to the centre of the source's
        (unrolled) spectrum and the band is everything.
    """
    s = math.sqrt(h * w)
    fy = np.fft.fftfreq(h, 1.0 / h) * (s / h)
    fx = np.fft.fftfreq(w, 1.0 / w) * (s / w)
    nyquist = REFERENCE_SIZE / 2
    band = ((np.abs(fy) <= nyquist)[:, None] &
            (np.abs(fx) <= nyquist)[None, :])
    return fy[:, None]**2 + fx[None, :]**2, band


def _sample_blue_noise_sample(rng, level, h, w):
    # threshold = level * 3 / 10 - 2.5: pixels where the unit-std blue
    # noise is <= threshold (a fraction Phi(threshold)) are blacked out.
    return dict(
        threshold=_float_parameter(level, 3.0) - 2.5,
        noise_seed=int(rng.integers(2**32)))


def _blue_amplitude(h: int, w: int) -> np.ndarray:
    """The source's blue amplitude spectrum ``|f|``, float32 H×W."""
    f2, band = _reference_frequencies(h, w)
    return (np.sqrt(f2) * band).astype(np.float32)


def _blue_noise_sample(img, p):
    h, w = img.shape[:2]
    field = _spectral_field(
        _blue_amplitude(h, w), np.random.default_rng(p['noise_seed']))
    return img * (field > p['threshold'])[..., None].astype(np.uint8)


def _sample_brownish_noise(rng, level, h, w):
    return dict(
        intensity=_float_parameter(level, 64.0),
        noise_seed=int(rng.integers(2**32)))


def _brownish_amplitude(h: int, w: int) -> np.ndarray:
    """The source's brownish amplitude spectrum ``1 / (|f|^2 + 1)``."""
    f2, band = _reference_frequencies(h, w)
    return (band / (f2 + 1.0)).astype(np.float32)


def _brownish_noise(img, p):
    h, w = img.shape[:2]
    amplitude = _brownish_amplitude(h, w)
    rng = np.random.default_rng(p['noise_seed'])
    noise = np.stack([_spectral_field(amplitude, rng) for _ in range(3)],
                     axis=2)
    return _add_noise(img, p['intensity'] * noise)


# ---------------------------------------------------------- waves


def _sample_single_frequency_greyscale(rng, level, h, w):
    # A plane wave sin(x fx + y fy + phase), frequencies in radians per
    # reference pixel (|f| <= pi: up to the 224 grid's Nyquist), here
    # divided by k: the same number of cycles per effective image. On an
    # image smaller than 224 the highest ones alias, as any sampled wave.
    k = effective_scale(h, w)
    freq_mag = rng.uniform(-math.pi, math.pi)
    freq_2 = rng.uniform(-abs(freq_mag), abs(freq_mag))
    freq = np.array([freq_mag, freq_2])[rng.permutation(2)] / k
    return dict(
        freq_x=float(freq[0]),
        freq_y=float(freq[1]),
        phase=rng.uniform(0.0, _TWO_PI),
        intensity=_float_parameter(level, 196.0))


def _single_frequency_greyscale(img, p):
    h, w = img.shape[:2]
    # sin(a + b) = sin a cos b + cos a sin b: two outer products instead
    # of a sine per pixel.
    a = np.arange(w) * p['freq_x'] + p['phase']
    b = np.arange(h) * p['freq_y']
    wave = (np.outer(cos_array(b), sin_array(a)) +
            np.outer(sin_array(b), cos_array(a))).astype(np.float32)
    return _add_noise(img, p['intensity'] * wave)


def _sample_cocentric_sine_waves(rng, level, h, w):
    s = math.sqrt(h * w)
    x0, y0 = rng.uniform(size=2) * (w, h)
    return dict(
        x0=float(x0),
        y0=float(y0),
        freq=rng.uniform(0.0, 10.0),  # waves per turn: no length
        amplitude=rng.uniform(0.0, s / 10),
        # (0, s/10] rather than the source's [0, s/10): never zero.
        ring_width=(1.0 - rng.random()) * s / 10,
        intensity=_float_parameter(level, 128.0))


def _cocentric_sine_waves(img, p):
    # Rings around (x0, y0), wobbled by amplitude * sin(freq * angle):
    # a sawtooth ((r + wobble) mod width) / width - 1/2, times intensity.
    h, w = img.shape[:2]
    noise = np.empty((h, w))
    cocentric_noise(p['x0'], p['y0'], p['freq'], p['amplitude'],
                    p['ring_width'], noise)
    return _add_noise(img, (p['intensity'] * noise).astype(np.float32))


def _sample_plasma_noise(rng, level, h, w):
    s = math.sqrt(h * w)
    return dict(
        time=rng.uniform(0.0, 6 * math.pi),
        iterations=int(rng.integers(4, 7)),
        sharpness=rng.uniform(0.5, 1.0),
        scale=rng.uniform(0.075, 0.2) * s,
        intensity=_float_parameter(level, 64.0))


def _plasma_noise(img, p):
    # The source's plasma (cbar_kernels.plasma_pattern), blended with
    # weight intensity / 255.
    h, w = img.shape[:2]
    noise = np.empty((h, w, 3), np.float32)
    plasma_pattern(p['time'], p['iterations'], p['sharpness'], p['scale'],
                   noise)
    out = img * np.float32(1.0 - p['intensity'] / 255.0)
    out += np.float32(p['intensity']) * noise
    np.clip(out, 0, 255, out=out)
    return out.astype(np.uint8)


# ------------------------------------------------------------ perlin


def _sample_perlin_noise(rng, level, h, w):
    # Ken Perlin's reference noise2 as the source's PerlinNoiseGenerator:
    # 256 gradients from a lattice of integers in [-256, 256) / 256,
    # normalised, and the source's permutation (p[i] swapped with p[j], j
    # uniform in [0, 256), for i = 255 ... 0). A zero gradient, which the
    # source would normalise to NaN, is redrawn.
    grads = (rng.integers(0, 2**31, size=(256, 2)) % 512 - 256) / 256.0
    zero = ~grads.any(axis=1)
    while zero.any():
        grads[zero] = (
            rng.integers(0, 2**31, size=(zero.sum(), 2)) % 512 - 256) / 256.0
        zero = ~grads.any(axis=1)
    grads /= np.linalg.norm(grads, axis=1, keepdims=True)
    perm = np.arange(256)
    for i, j in zip(range(255, -1, -1),
                    rng.integers(0, 2**31, size=256) % 256):
        perm[i], perm[j] = perm[j], perm[i]
    return dict(
        perm=perm,
        grads=grads,
        period=32.0 * effective_scale(h, w),  # m = I / (32 * 224 / 224)
        turbulence=16.0,
        gain=0.5,
        bias=0.5,
        alpha=_float_parameter(level, 0.5))


def _lattice(coords: np.ndarray):
    """Lattice cell, fraction and s-curve of positions ``coords`` >= 0.

    Returns:
        tuple: ``(cells, local, r0, s)``: the source's ``int(t) % 256``
        of the lattice points from the first cell to one past the last,
        each position's cell index into that, its fraction ``t % 1`` and
        ``t^2 (3 - 2 t)`` of it.
    """
    t = coords + 4096.0  # the source's N = 16 * 256
    cell = np.floor(t)
    r0 = t - cell
    cell = cell.astype(np.int64)
    local = cell - cell[0]
    cells = (cell[0] + np.arange(local[-1] + 2)) % 256
    return cells, local, r0, r0 * r0 * (3.0 - 2.0 * r0)


def _perlin_octave(perm2, grads, rows, cols):
    """``noise(rows[:, None], cols[None, :])`` of the source's generator.

    ``noise`` is bilinear in the four corner terms ``u = r . g`` (offset
    times the corner's gradient) with s-curve weights, so it separates:
    interpolate the gradients of the few lattice rows spanned along the
    columns first, then gather two lattice rows per image row.
    """
    cells_r, local_r, rx0, sx = _lattice(rows)
    cells_c, local_c, ry0, sy = _lattice(cols)
    b0 = cells_c[local_c]
    b1 = cells_c[local_c + 1]
    pa = perm2[cells_r][:, None]
    h0 = perm2[pa + b0[None, :]]  # gradient index of (row cell, b0)
    h1 = perm2[pa + b1[None, :]]
    wy0 = (1.0 - sy).astype(np.float32)
    wy1 = sy.astype(np.float32)
    g0 = grads[:, 0].astype(np.float32)
    g1 = grads[:, 1].astype(np.float32)
    # Per lattice row: sum over the two column corners of the weight
    # times the row-gradient component (y0), resp. times the column
    # offset and column-gradient component (y1).
    y0 = wy0 * g0[h0] + wy1 * g0[h1]
    y1 = (wy0 * ry0.astype(np.float32) * g1[h0] +
          wy1 * (ry0 - 1.0).astype(np.float32) * g1[h1])
    wx0 = (1.0 - sx).astype(np.float32)[:, None]
    wx1 = sx.astype(np.float32)[:, None]
    rx0f = rx0.astype(np.float32)[:, None]
    top = rx0f * y0[local_r] + y1[local_r]
    bottom = (rx0f - 1) * y0[local_r + 1] + y1[local_r + 1]
    return np.float32(1.5) * (wx0 * top + wx1 * bottom)


def _perlin_pattern(h, w, perm, grads, period, turbulence):
    """The source's ``noise.turbulence(y / period, x / period, 16)``:
    ``sum |noise(f y, f x)| / f`` over ``f = 1, 2, 4, ... <= 16``."""
    perm2 = np.concatenate([perm, perm])  # the source's p[B + i] = p[i]
    rows = np.arange(h) / period
    cols = np.arange(w) / period
    total = np.zeros((h, w), np.float32)
    f = 1.0
    while f <= turbulence:
        total += np.abs(_perlin_octave(perm2, grads, f * rows,
                                       f * cols)) / np.float32(f)
        f *= 2
    return total


def _perlin_noise(img, p):
    h, w = img.shape[:2]
    noise = _perlin_pattern(h, w, p['perm'], p['grads'], p['period'],
                            p['turbulence'])
    noise = np.clip(p['gain'] * noise + p['bias'], 0.0, 1.0)
    out = img * np.float32(1.0 - p['alpha'])
    out += (np.float32(255.0 * p['alpha']) * noise)[..., None]
    np.clip(out, 0, 255, out=out)
    return out.astype(np.uint8)


# ----------------------------------------------------------- sparkles


def _star(h, w, cy, cx, ray_lengths, exponent, eps):
    """The source's sparkle weight ``f`` of one star on the H×W grid,
    float64 (:func:`.cbar_kernels.star_weight`)."""
    # The angle reaches pi: two entries past the end wrap.
    lengths = np.concatenate([ray_lengths, ray_lengths[:2]])
    f = np.empty((h, w))
    star_weight(float(cy), float(cx), lengths.astype(np.float64), exponent,
                eps, f)
    return f


def _sample_sparkles(rng, level, h, w):
    # Five white stars at random centres, radius level / 100 * s, 50-199
    # rays each of length max(k, r (1 + 0.25 N(0, 1))), amount 50 (the
    # exponent (100 - amount) / 50 is 1).
    k = effective_scale(h, w)
    centers = rng.uniform(size=(5, 2)) * (h, w)  # (row, column)
    radius = _float_parameter(level, 0.1) * REFERENCE_SIZE * k
    nrays = rng.integers(50, 200, size=5)
    ray_lengths = [
        np.maximum(k, radius + 0.25 * radius * rng.standard_normal(n))
        for n in nrays
    ]
    return dict(
        centers=centers,
        radius=radius,
        ray_lengths=ray_lengths,
        amount=50.0,
        eps=1e-4 * k * k)


def _sparkles(img, p):
    # value + f (255 - value), star after star, is
    # 255 - (255 - img) * prod(1 - f).
    h, w = img.shape[:2]
    keep = np.ones((h, w))
    exponent = (100.0 - p['amount']) / 50.0
    for (cy, cx), lengths in zip(p['centers'], p['ray_lengths']):
        keep *= 1.0 - _star(h, w, cy, cx, lengths, exponent, p['eps'])
    out = 255.0 - (255.0 - img.astype(np.float32)) * keep.astype(
        np.float32)[..., None]
    np.clip(out, 0, 255, out=out)
    return out.astype(np.uint8)


def _sample_inverse_sparkles(rng, level, h, w):
    # One star, centre in the middle half of each side, radius s / 4,
    # 50-199 rays of length r (1 + 0.25 N(0, 1)); amount = 100 - level *
    # 6.5, so the exponent (100 - amount) / 50 grows with the severity
    # and the white outside the star closes in.
    k = effective_scale(h, w)
    cy, cx = rng.uniform(0.25, 0.75, size=2) * (h, w)
    radius = 0.25 * REFERENCE_SIZE * k
    rays = int(rng.integers(50, 200))
    return dict(
        center=(float(cy), float(cx)),
        radius=radius,
        ray_lengths=radius + 0.25 * radius * rng.standard_normal(rays),
        amount=100.0 - _float_parameter(level, 65.0),
        eps=1e-4 * k * k)


def _inverse_sparkles(img, p):
    # 255 + f (value - 255): the image where f = 1, white where f = 0.
    h, w = img.shape[:2]
    f = _star(h, w, *p['center'], p['ray_lengths'],
              (100.0 - p['amount']) / 50.0, p['eps'])
    out = 255.0 - (255.0 - img.astype(np.float32)) * f.astype(
        np.float32)[..., None]
    np.clip(out, 0, 255, out=out)
    return out.astype(np.uint8)


# -------------------------------------------------------- checkerboard


def _sample_checkerboard_cutout(rng, level, h, w):
    # A checkerboard of squares of side U(0.1, 0.25) s, rotated by a
    # random angle about pixel (0, 0); each square of one colour is
    # replaced by grey 128 with probability level / 10. The source's grid
    # of coins has 4 * 224 // side cells a side; it is made larger here
    # only where the diagonal of a very elongated image needs more.
    s = math.sqrt(h * w)
    angle = rng.uniform(0.0, _TWO_PI)
    side = max(rng.uniform(0.1, 0.25) * s, 1.0)
    cells = max(int(4 * s // side), int(math.hypot(h, w) / side) + 2)
    fraction = _float_parameter(level, 1.0)
    return dict(
        angle=angle,
        side=side,
        fraction=fraction,
        cut=rng.random((cells, cells)) < fraction)


def _checkerboard_cutout(img, p):
    # Checker coordinates nx, ny: a pixel is cut where floor(nx) and
    # floor(ny) have the same parity and the coin of its square says so.
    # The coin is the source's grid[int(nx), int(ny)]: int() truncates
    # towards zero and a negative index counts from the end, as in
    # Python; so the two squares either side of each axis through the
    # origin share a coin, as in the source.
    ys, xs = _grid(*img.shape[:2])
    c = np.float32(portable.cos(p['angle']) / p['side'])
    s = np.float32(portable.sin(p['angle']) / p['side'])
    nx = c * ys + s * xs
    ny = c * xs - s * ys
    same = ((np.floor(nx).astype(np.int64) +
             np.floor(ny).astype(np.int64)) & 1) == 0
    cut = p['cut']
    n = cut.shape[0]
    ix = nx.astype(np.int64)  # truncation
    iy = ny.astype(np.int64)
    ix[ix < 0] += n
    iy[iy < 0] += n
    mask = same & cut.reshape(-1).take(ix * n + iy)
    return np.where(mask[..., None], np.uint8(128), img)


# -------------------------------------------------------------- API

_SAMPLERS: Dict[str, Callable[..., Dict[str, Any]]] = {
    'caustic_refraction': sample_caustic_refraction,
    'inverse_sparkles': _sample_inverse_sparkles,
    'sparkles': _sample_sparkles,
    'perlin_noise': _sample_perlin_noise,
    'blue_noise_sample': _sample_blue_noise_sample,
    'plasma_noise': _sample_plasma_noise,
    'checkerboard_cutout': _sample_checkerboard_cutout,
    'cocentric_sine_waves': _sample_cocentric_sine_waves,
    'single_frequency_greyscale': _sample_single_frequency_greyscale,
    'brownish_noise': _sample_brownish_noise,
}

_APPLY: Dict[str, Callable[[np.ndarray, Dict[str, Any]], np.ndarray]] = {
    'caustic_refraction': caustic_refraction_pixels,
    'inverse_sparkles': _inverse_sparkles,
    'sparkles': _sparkles,
    'perlin_noise': _perlin_noise,
    'blue_noise_sample': _blue_noise_sample,
    'plasma_noise': _plasma_noise,
    'checkerboard_cutout': _checkerboard_cutout,
    'cocentric_sine_waves': _cocentric_sine_waves,
    'single_frequency_greyscale': _single_frequency_greyscale,
    'brownish_noise': _brownish_noise,
}


def _check(name: str, severity: int) -> float:
    if name not in CBAR_PARAMS:
        raise ValueError(f'unknown ImageNet-C-bar corruption {name!r}; '
                         f'expected one of {", ".join(CBAR_NAMES)}')
    if isinstance(severity, bool) or severity not in (1, 2, 3, 4, 5):
        raise ValueError(f'severity must be 1-5, got {severity!r}')
    return CBAR_PARAMS[name][int(severity) - 1]


def sample_cbar_params(name: str, severity: int, seed: int, height: int,
                       width: int) -> Dict[str, Any]:
    """The parameters :func:`corrupt_cbar` draws for an H×W image.

    Args:
        name (str): One of :data:`CBAR_NAMES`.
        severity (int): 1-5.
        seed (int): Seed of ``np.random.default_rng``.
        height (int): Image height.
        width (int): Image width.

    Returns:
        dict: Parameters in native pixels (lengths already times
        :func:`effective_scale`), ``level`` (the csv value) among them.
    """
    level = _check(name, severity)
    rng = np.random.default_rng(seed)
    params = _SAMPLERS[name](rng, level, int(height), int(width))
    params['level'] = level
    return params


def corrupt_cbar(img: np.ndarray, name: str, severity: int,
                 seed: int) -> np.ndarray:
    """Apply an ImageNet-C-bar corruption at the image's own resolution.

    Args:
        img (np.ndarray): RGB uint8 image, H×W×3, H and W at least 32.
        name (str): One of :data:`CBAR_NAMES`.
        severity (int): 1-5 (the csv's levels :data:`CBAR_PARAMS`).
        seed (int): Seed of ``np.random.default_rng``; the output is a
            pure function of the arguments.

    Returns:
        np.ndarray: The corrupted RGB uint8 image, H×W×3.
    """
    img = np.asarray(img)
    if img.dtype != np.uint8 or img.ndim != 3 or img.shape[2] != 3:
        raise ValueError('expected an RGB uint8 image of shape H×W×3, got '
                         f'{img.dtype} {img.shape}')
    params = sample_cbar_params(name, severity, seed, *img.shape[:2])
    return _APPLY[name](img, params)
