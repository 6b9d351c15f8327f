# Copyright (c) robustdet contributors. All rights reserved.
"""The fast CPU backend: the 19 corruptions in numpy, OpenCV and numba.

Same definitions and per-severity parameters as the reference (read from
:mod:`.table` and :mod:`.common`), computed with whole-array operations,
a handful of cached compiled loops (:mod:`.kernels`) and float32 instead
of float64. What each corruption guarantees against the reference:

* **Same pixels up to float rounding** (a grey level here and there where
  the reference's final truncation to uint8 falls on the other side):
  every deterministic corruption, and those stochastic ones that draw
  from the same random stream as the reference given the same seed —
  glass_blur (the shuffle is the reference's own, bit for bit), motion
  blur, snow, frost, fog and elastic_transform.
* **Same distribution**: the four noises. The reference draws a float per
  channel and pixel from a normal or Poisson distribution and truncates
  the result to uint8; here the output grey level is drawn directly from
  that truncated distribution, computed per input grey level from the
  normal / Poisson CDF, with one uniform number per value. The output has
  exactly the reference's distribution, for every input level, at a
  fraction of the cost, but not the reference's pixels.
* pixelate and jpeg_compression run Pillow's code as the reference does
  (box filter, nearest neighbour, libjpeg-turbo): identical pixels, and
  about the reference's speed.

The same pixels on every x86-64 CPU: the float filters (Gaussian blurs,
the defocus disk, elastic_transform's smoothing, spatter's distance
transform) and the blends of snow and frost are numba loops or numpy
expressions whose float operations per pixel do not depend on the vector
code the CPU gets, instead of OpenCV's float code, which rounds
differently with AVX-512, AVX2, SSE, scalar code or IPP; frost's texture
resize is OpenCV's bicubic formula in exact integers (IPP rounds its own
way). OpenCV still does integer work (Canny, equalizeHist, LUTs, uint8
box filters). :data:`.api.CPU_DEPENDENT` lists no corruption for this
backend (tests/test_corruptions/test_cpu_identical.py), the newer
families included (their trigonometry is :mod:`.portable`'s).
"""
import functools
import io
from typing import Callable, Dict, Tuple

import cv2
import numpy as np
from PIL import Image
from scipy import special

from . import common, kernels

_FUNCS: Dict[str, Callable[..., np.ndarray]] = {}


def _register(fn):
    _FUNCS[fn.__name__] = fn
    return fn


def corrupt_fast(img: np.ndarray, name: str, severity: int,
                 seed: int) -> np.ndarray:
    """Corrupt an RGB uint8 image with the fast backend.

    Args:
        img (np.ndarray): RGB uint8 image, H×W×3, C-contiguous, at least
            32×32.
        name (str): Corruption name (validated by the caller).
        severity (int): 1-5 (validated by the caller).
        seed (int): Seed in ``[0, 2**32)``.

    Returns:
        np.ndarray: The corrupted RGB uint8 image, H×W×3.
    """
    # OpenCV threading is the caller's: mmengine sets it per process (and
    # to 0 in data-loader workers), the benchmark script to 1.
    return _FUNCS[name](img, common.params(name, severity), seed)


def _to_uint8(x: np.ndarray) -> np.ndarray:
    """Values on the 0-255 scale -> uint8, clipped and truncated.

    The reference ends every float corruption with ``np.uint8(np.clip(x,
    0, 1) * 255)``, which truncates.
    """
    np.clip(x, 0, 255, out=x)
    return x.astype(np.uint8)


# ---------------------------------------------------------------- noise


def _sample(img: np.ndarray, tables, seed: int) -> np.ndarray:
    # The 64-bit draws behind default_rng(seed).random(img.size), read
    # bit-exactly by the kernel.
    raw = np.random.default_rng(seed).bit_generator.random_raw(img.size)
    out = np.empty(img.size, np.uint8)
    levels = img.reshape(-1)
    if not levels.flags.writeable:
        # The kernel's signature is for writeable arrays; a read-only
        # image (np.frombuffer, a memmap) is read through a copy.
        levels = levels.copy()
    kernels.sample_levels(levels, raw, *tables, out)
    return out.reshape(img.shape)


def _alias_tables(cdf: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
    """Alias tables (``prob``, ``alias``) of :func:`kernels.sample_levels`
    from P(out <= k | level), a 256×256 table."""
    cdf = np.clip(cdf, 0.0, 1.0)
    np.maximum.accumulate(cdf, axis=1, out=cdf)
    cdf[:, -1] = 1.0
    pmf = np.ascontiguousarray(np.diff(cdf, axis=1, prepend=0.0))
    prob = np.empty_like(pmf)
    alias = np.empty(pmf.shape, np.uint8)
    kernels.build_alias(pmf, prob, alias)
    return prob, alias


_LEVELS = np.arange(256, dtype=np.float64)


@functools.lru_cache(maxsize=None)
def _gaussian_noise_tables(scale: float) -> Tuple[np.ndarray, np.ndarray]:
    # uint8(clip(v + 255 c n, 0, 255)) <= k  <=>  v + 255 c n < k + 1.
    z = (_LEVELS[None, 1:] - _LEVELS[:, None]) / (255.0 * scale)
    return _alias_tables(np.hstack([special.ndtr(z), np.ones((256, 1))]))


@functools.lru_cache(maxsize=None)
def _speckle_noise_tables(scale: float) -> Tuple[np.ndarray, np.ndarray]:
    # uint8(clip(v (1 + c n), 0, 255)) <= k  <=>  n < ((k + 1) / v - 1) / c.
    with np.errstate(divide='ignore'):
        z = (_LEVELS[None, 1:] / _LEVELS[:, None] - 1.0) / scale
    cdf = np.hstack([special.ndtr(z), np.ones((256, 1))])
    cdf[0] = 1.0  # level 0 stays 0
    return _alias_tables(cdf)


@functools.lru_cache(maxsize=None)
def _shot_noise_tables(photons: float) -> Tuple[np.ndarray, np.ndarray]:
    # Poisson(v / 255 * c) / c, clipped to [0, 1] and scaled to 0-255: the
    # output level of count k is the reference's float64 expression.
    counts = np.arange(int(photons) + 1, dtype=np.float64)
    level_of_count = np.uint8(np.clip(counts / float(photons), 0, 1) * 255)
    # Largest count mapping to <= k, for each output level k.
    last = np.searchsorted(level_of_count, np.arange(256), side='right') - 1
    lam = _LEVELS[:, None] / 255.0 * photons
    cdf = np.where(last[None, :] >= 0,
                   special.pdtr(np.maximum(last, 0)[None, :], lam), 0.0)
    cdf[0] = 1.0  # zero photons: level 0
    return _alias_tables(cdf)


@functools.lru_cache(maxsize=None)
def _impulse_noise_tables(amount: float) -> Tuple[np.ndarray, np.ndarray]:
    # A value is replaced with probability ``amount``, by 0 or 255 with
    # equal odds; otherwise it is v / 255 * 255 truncated, as in float64.
    kept = np.uint8(np.clip(_LEVELS / 255.0, 0, 1) * 255)
    pmf = np.zeros((256, 256))
    pmf[np.arange(256), kept] = 1.0 - amount
    pmf[:, 0] += amount / 2
    pmf[:, 255] += amount / 2
    return _alias_tables(np.cumsum(pmf, axis=1))


# Noise name -> function(severity parameter) -> alias tables (cached).
NOISE_TABLES = {
    'gaussian_noise': _gaussian_noise_tables,
    'shot_noise': _shot_noise_tables,
    'impulse_noise': _impulse_noise_tables,
    'speckle_noise': _speckle_noise_tables,
}


@functools.lru_cache(maxsize=None)
def _sampler_tables(tables, c) -> Tuple[np.ndarray, ...]:
    """``(upper, prob, alias)`` of :func:`kernels.sample_levels`: the top
    32 bits of the 46-bit thresholds ``ceil(prob * 2**45)`` beside the
    alias tables ``tables(c)``."""
    prob, alias = tables(c)
    bound = np.ceil(prob * 2.0**45).astype(np.uint64) >> np.uint64(13)
    # prob = 1 gives 2**32: the largest uint32 instead, a tie resolved by
    # the exact comparison.
    upper = np.minimum(bound, np.uint64(2**32 - 1)).astype(np.uint32)
    return upper, prob, alias


def _noise(tables, img, c, seed):
    return _sample(img, _sampler_tables(tables, c), seed)


for _name, _tables in NOISE_TABLES.items():
    _FUNCS[_name] = functools.partial(_noise, _tables)


# ----------------------------------------------------------------- blur


def _border(size: int, radius: int, mode: str) -> np.ndarray:
    """Source index of each of the ``size + 2 * radius`` positions of a
    line padded by ``radius`` on each side.

    ``mode``: ``'replicate'`` (``aaa|abcd|ddd``: OpenCV's
    BORDER_REPLICATE, scipy's 'nearest'), ``'reflect'`` (``cba|abcd|dcb``:
    BORDER_REFLECT, scipy's 'reflect') or ``'reflect101'``
    (``dcb|abcd|cba``: BORDER_REFLECT_101, OpenCV's default).
    """
    idx = np.arange(-radius, size + radius)
    if mode == 'replicate':
        return np.clip(idx, 0, size - 1)
    if mode == 'reflect':
        idx %= 2 * size
        return np.where(idx >= size, 2 * size - 1 - idx, idx)
    period = max(2 * size - 2, 1)
    idx = np.abs(idx) % period
    return np.where(idx >= size, period - idx, idx)


def _separable(img: np.ndarray, kx: np.ndarray, ky: np.ndarray, mode: str,
               dtype=np.float32) -> np.ndarray:
    """``cv2.sepFilter2D`` of an H×W or H×W×C array with symmetric
    kernels, in ``dtype``, with the same pixels on every CPU
    (:func:`.kernels.sep_filter`); ``mode`` as in :func:`_border`."""
    if img.dtype != np.uint8 or dtype != np.float32:
        img = img.astype(dtype, copy=False)
    shape = img.shape
    x = np.ascontiguousarray(img).reshape(shape[0], shape[1], -1)
    kx = np.ascontiguousarray(kx, dtype=dtype)
    ky = np.ascontiguousarray(ky, dtype=dtype)
    out = np.empty(x.shape, dtype)
    kernels.sep_filter(x, kx, ky, _border(shape[1], kx.size // 2, mode),
                       _border(shape[0], ky.size // 2, mode), out)
    return out.reshape(shape)


def _gaussian(img: np.ndarray, sigma: float, dtype=np.float32) -> np.ndarray:
    """skimage's ``gaussian`` (mode 'nearest') per channel, float32 (or
    ``dtype``) on the input's scale."""
    k = common.gaussian_kernel1d(sigma, common.GAUSSIAN_TRUNCATE)
    return _separable(img, k, k, 'replicate', dtype)


@_register
def gaussian_blur(img, c, seed):
    return _to_uint8(_gaussian(img, c))


@_register
def defocus_blur(img, c, seed):
    # cv2.filter2D (BORDER_REFLECT_101) with the disk, whose symmetry
    # halves the multiplications: as fast as OpenCV's DFT path, and the
    # same pixels on every CPU.
    kernel = common.disk_kernel(*c)
    r = kernel.shape[0] // 2
    h, w = img.shape[:2]
    x = img.astype(np.float32)
    out = np.empty_like(x)
    kernels.symmetric_filter(x, np.array(kernel[r:, r:]),
                             _border(w, r, 'reflect101'),
                             _border(h, r, 'reflect101'), out)
    return _to_uint8(out)


@_register
def glass_blur(img, c, seed):
    sigma, delta, iterations = c
    blurred = _gaussian(img, sigma)
    np.clip(blurred, 0, 255, out=blurred)
    shuffled = np.ascontiguousarray(blurred.astype(np.uint8))
    common.glass_shuffle(shuffled, delta, iterations, seed)
    return _to_uint8(_gaussian(shuffled, sigma))


def _motion(layer: np.ndarray, radius: int, sigma: float,
            angle: float) -> np.ndarray:
    """The reference ``_motion_blur`` of an H×W×C float array."""
    taps = common.motion_taps(radius, sigma, angle, layer.shape[:2])
    out = np.zeros_like(layer)
    if taps:
        dxs, dys, weights = (np.array(v) for v in zip(*taps))
        kernels.shift_sum(layer, weights.astype(layer.dtype),
                          dxs.astype(np.int64), dys.astype(np.int64), out)
    return out


@_register
def motion_blur(img, c, seed):
    angle = np.random.RandomState(seed).uniform(-45, 45)
    return _to_uint8(_motion(img.astype(np.float32), c[0], c[1], angle))


def _zoom_sum(img: np.ndarray, factors, full: bool = False) -> np.ndarray:
    """Sum of the reference ``clipped_zoom`` of ``img`` for each factor."""
    h, w = img.shape[:2]
    rows, row_w, row_in = common.zoom_grid(h, factors, full)
    cols, col_w, col_in = common.zoom_grid(w, factors, full)
    out = np.zeros((rows.shape[1], cols.shape[1], img.shape[2]), img.dtype)
    kernels.zoom_accumulate(img, rows, row_w.astype(img.dtype),
                            row_in.astype(img.dtype), cols,
                            col_w.astype(img.dtype),
                            col_in.astype(img.dtype), out)
    return out


@_register
def zoom_blur(img, c, seed):
    factors = np.arange(*c)
    x = img.astype(np.float32)
    x *= np.float32(1 / 255.)
    x += _zoom_sum(x, factors)
    x *= np.float32(255. / (len(factors) + 1))
    return _to_uint8(x)


# -------------------------------------------------------------- weather


@_register
def snow(img, c, seed):
    loc, scale, zoom, threshold, radius, sigma, mix = c
    rng = np.random.RandomState(seed)
    flakes = rng.normal(size=img.shape[:2], loc=loc, scale=scale)
    # float32 from here (the reference: float64); the fidelity tests bound
    # the result to a grey level.
    flakes = _zoom_sum(flakes.astype(np.float32)[..., None], [zoom],
                       full=True)
    flakes[flakes < threshold] = 0
    np.clip(flakes, 0, 1, out=flakes)
    flakes = _motion(flakes, radius, sigma, rng.uniform(-135, -45))
    flakes = np.round(flakes * 255).astype(np.uint8)
    h, w = img.shape[:2]
    flakes = flakes[:h, :w, 0].astype(np.float32)
    flakes += flakes[::-1, ::-1]
    x = img.astype(np.float32)
    # cv2.cvtColor(RGB2GRAY) and cv2.addWeighted, in numpy: OpenCV's float
    # code rounds differently on each CPU.
    lifted = x[..., 2] * np.float32(0.114)
    lifted += x[..., 1] * np.float32(0.587)
    lifted += x[..., 0] * np.float32(0.299)
    lifted *= np.float32(1.5)
    lifted += np.float32(127.5)
    lifted = np.maximum(x, lifted[..., None])
    lifted *= np.float32(1 - mix)
    x *= np.float32(mix)
    x += lifted
    x += flakes[..., None]
    return _to_uint8(x)


@_register
def frost(img, c, seed):
    h, w = img.shape[:2]
    index, top, left = common.frost_draw(np.random.RandomState(seed), h, w)
    texture = common.frost_rescaled(index, h, w)
    # The reference's float64 expression (cv2.addWeighted rounds
    # differently on each CPU): its pixels, given the same texture.
    out = np.empty_like(img)
    kernels.blend(img, texture, top, left, float(c[0]), float(c[1]), out)
    return out


@_register
def fog(img, c, seed):
    h, w = img.shape[:2]
    mapsize = common.next_power_of_2(max(h, w))
    fractal = common.plasma_fractal(
        np.random.RandomState(seed), mapsize, c[1])[:h, :w]
    max_val = img.max() / 255.
    x = img.astype(np.float32)
    x += (255. * c[0]) * fractal[..., None]
    x *= np.float32(max_val / (max_val + c[0]))
    return _to_uint8(x)


@_register
def brightness(img, c, seed):
    # V += c in HSV keeps hue and saturation, and HSV -> RGB is linear in
    # V: every channel scales by min(V + c, 1) / V. Black (V = 0) becomes
    # grey c.
    value = np.maximum(np.maximum(img[..., 0], img[..., 1]), img[..., 2])
    with np.errstate(divide='ignore'):
        gain = (np.minimum(_LEVELS + 255. * c, 255.) / _LEVELS).astype(
            np.float32)
    gain[0] = 0
    x = img.astype(np.float32)
    x *= gain[value][..., None]
    black = value == 0
    if black.any():
        x[black] = 255. * c
    return _to_uint8(x)


# -------------------------------------------------------------- digital


@_register
def contrast(img, c, seed):
    # A per-channel affine map of the grey levels: a lookup table, built
    # with the reference's float64 expression.
    means = np.array(cv2.mean(img)[:3]) / 255.
    x = _LEVELS[:, None] / 255.
    lut = np.uint8(np.clip((x - means) * c + means, 0, 1) * 255)
    return cv2.LUT(img, np.ascontiguousarray(lut.reshape(256, 1, 3)))


@_register
def saturate(img, c, seed):
    # S -> clip(S a + b) with H and V kept. A channel v_i of a pixel with
    # value V and saturation S = (V - min) / V is V - S (V - v_i) / S', so
    # it becomes V - S' (V - v_i) / S. Grey pixels have hue 0 (red): they
    # become (V, V (1 - S'), V (1 - S')).
    x = img.astype(np.float32)
    value = x.max(axis=2, keepdims=True)
    spread = value - x.min(axis=2, keepdims=True)
    sat = np.divide(spread, value, out=np.zeros_like(value), where=value > 0)
    new_sat = np.clip(sat * c[0] + c[1], 0, 1)
    grey = spread == 0
    ratio = np.divide(new_sat, sat, out=np.zeros_like(sat), where=~grey)
    out = value - ratio * (value - x)
    if grey.any():
        g = grey[..., 0]
        v = value[g]
        out[g] = np.hstack([v, v * (1 - new_sat[g]), v * (1 - new_sat[g])])
    return _to_uint8(out)


@_register
def elastic_transform(img, c, seed):
    h, w = img.shape[:2]
    rng = np.random.RandomState(seed)
    limit = h * 0.005
    kernel_y = common.gaussian_kernel1d(h * 0.01, common.ELASTIC_TRUNCATE)
    kernel_x = common.gaussian_kernel1d(w * 0.01, common.ELASTIC_TRUNCATE)
    fields = []
    for _ in range(2):
        # Smoothed in float32 (the reference: float64): the displacements
        # move by ~1e-5 pixel, the fidelity tests see no difference.
        noise = rng.uniform(-limit, limit, size=(h, w)).astype(np.float32)
        smooth = _separable(noise, kernel_x, kernel_y, 'reflect')
        smooth *= np.float32(c)
        fields.append(smooth)
    dx, dy = fields
    x = img.astype(np.float32)
    out = np.empty_like(x)
    kernels.remap_reflect(x, dy, dx, out)
    return _to_uint8(out)


# cv2.DIST_L2 with the 5×5 mask: the costs of a horizontal or vertical
# step, a diagonal one and a knight's move (OpenCV's values).
_DIST_L2_5X5 = np.array([1.0, 1.4, 2.1969], np.float32)


@_register
def spatter(img, c, seed):
    loc, scale, sigma, threshold, strength, mud = c
    h, w = img.shape[:2]
    liquid = np.random.RandomState(seed).normal(
        size=(h, w), loc=loc, scale=scale)
    liquid = _gaussian(liquid, sigma, np.float64)
    liquid[liquid < threshold] = 0
    x = img.astype(np.float32) / 255.
    if not mud:
        # Water drops: edges of the liquid mask, shaded by an embossed
        # distance map (the reference's OpenCV steps, in its order).
        liquid = (liquid * 255).astype(np.uint8)
        dist = 255 - cv2.Canny(liquid, *common.SPATTER_CANNY)
        # cv2.distanceTransform(dist, cv2.DIST_L2, 5) as IPP computes it,
        # whether or not OpenCV has IPP (OpenCV's own code rounds
        # otherwise).
        edges, dist = dist, np.empty(dist.shape, np.float32)
        kernels.chamfer_5x5(edges, _DIST_L2_5X5, dist)
        cap = common.SPATTER_DIST_CAP
        _, dist = cv2.threshold(dist, cap, cap, cv2.THRESH_TRUNC)
        dist = cv2.blur(dist, (3, 3)).astype(np.uint8)
        dist = cv2.equalizeHist(dist)
        emboss = np.array(common.SPATTER_EMBOSS)
        dist = cv2.filter2D(dist, cv2.CV_8U, emboss)
        dist = cv2.blur(dist, (3, 3)).astype(np.float32)
        m = liquid * dist
        with np.errstate(divide='ignore', invalid='ignore'):
            m = m / m.max() * strength
        x += m[..., None] * common.SPATTER_WATER
    else:
        m = _gaussian((liquid > threshold).astype(np.float32), strength)
        m[m < 0.8] = 0
        x *= (1 - m)[..., None]
        x += m[..., None] * common.SPATTER_MUD
    x *= 255
    with np.errstate(invalid='ignore'):
        return _to_uint8(x)


@_register
def pixelate(img, c, seed):
    h, w = img.shape[:2]
    pil = Image.fromarray(img)
    pil = pil.resize((int(w * c), int(h * c)), Image.BOX)
    return np.asarray(pil.resize((w, h), Image.NEAREST))


# OpenCV 4.10 and later decode to RGB directly.
_IMREAD_RGB = getattr(cv2, 'IMREAD_COLOR_RGB', None)


@functools.lru_cache(maxsize=None)
def _opencv_decodes_like_pillow() -> bool:
    """Whether this OpenCV decodes JPEG to Pillow's pixels: the wheels
    of both bundle libjpeg-turbo; an OpenCV built on another libjpeg may
    round its inverse DCT or upsampling otherwise, and then Pillow
    decodes. Checked once per process on a noisy image at quality 7 (a
    chroma-subsampled JPEG of every 8×8 block)."""
    if _IMREAD_RGB is None:
        return False
    img = np.random.default_rng(0).integers(0, 256, (48, 64, 3), np.uint8)
    buffer = io.BytesIO()
    Image.fromarray(img).save(buffer, 'JPEG', quality=7)
    data = np.frombuffer(buffer.getvalue(), np.uint8)
    ours = cv2.imdecode(data, _IMREAD_RGB)
    return ours is not None and np.array_equal(
        ours, np.asarray(Image.open(buffer)))


@_register
def jpeg_compression(img, c, seed):
    # The codec is the measurement: Pillow's libjpeg-turbo encoder, as in
    # the reference. OpenCV's bundled libjpeg-turbo decodes those bytes to
    # Pillow's pixels (checked once per process; the fidelity tests compare
    # with the reference) and straight into an array: 0.4 ms of 3.7 saved
    # at 480×640.
    buffer = io.BytesIO()
    Image.fromarray(img).save(buffer, 'JPEG', quality=c)
    if not _opencv_decodes_like_pillow():
        return np.asarray(Image.open(buffer))
    return cv2.imdecode(np.frombuffer(buffer.getbuffer(), np.uint8),
                        _IMREAD_RGB)
