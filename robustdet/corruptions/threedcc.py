# Copyright (c) robustdet contributors. All rights reserved.
"""Six 3D Common Corruptions (Kar et al., CVPR 2022) for detection images.

A re-implementation, from the published formulas and per-severity
parameters, of six corruptions of 3D Common Corruptions (3DCC), whose
generation scripts are ``create_3dcc/create_non3d.py``,
``create_3dcc/create_fog.py`` and ``create_3dcc/create_dof.py`` of
EPFL-VILAB/3DCommonCorruptions. No code of that repository (CC BY-NC) is
used here.

Three need only the image (:data:`DEPTH_FREE`):

* ``low_light``: the image stretched from its own ``[min, max]`` to
  ``[0, c]`` with gamma 2, ``c = 0.6 ... 0.2``, then the sensor noise of
  the source (Poisson with 120 photons at full scale, then Gaussian with
  std 0.018, both fixed: the source's noise at its severity 3).
* ``iso_noise``: Poisson shot noise with 25 photons at full scale, then
  Gaussian noise with std ``0.7 * (0.08, 0.12, 0.18, 0.26, 0.38)``.
* ``color_quant``: posterize to 5 ... 1 bits (``PIL.ImageOps.posterize``:
  the low bits set to zero).

Three need a depth map (:data:`NEEDS_DEPTH`):

* ``fog_3d``: ``I = img * t + A * (1 - t)`` with ``t = exp(-alpha * d)``,
  ``alpha = 4 ... 20``, on normalised depth ``d`` (below) and the airlight
  ``A`` the mean of the image over all pixels and channels (a grey);
  the result is truncated to uint8.
* ``near_focus`` and ``far_focus``: depth of field. The depth is cut at
  its 0/8 ... 8/8 quantiles; each of the 9 quantile depths ``q`` gets the
  image blurred by a Gaussian of std ``aperture * |q - f| / q`` (the
  circle of confusion without magnification) with the focus depth ``f``
  the 0/8 quantile (near focus, aperture ``severity + 2``) or the 7/8
  quantile (far focus, aperture ``severity + 0.5``), and each pixel blends
  the two blurred images of the quantiles around its depth with weights
  ``1 - dist ** 2`` (``dist`` its distance to either, a fraction of the
  gap).

Depth normalisation, a named calibration (:data:`.table.DEPTH_CALIBRATIONS`):
``'taskonomy'`` (default, metric depth) is the source's own: Taskonomy's
depth PNGs are in 1/512 m and divided by 8000, so ``d = metres /
15.625``, and depths at or beyond 15.625 m, and unknown ones (``inf``,
``NaN``, 0 or negative: sky, invalid disparity), get the image's largest
``d`` below 1 (1 if none). ``'midas'`` is the source's ImageNet
convention for a monocular network's raw inverse depth ``v = 1 /
depth``: ``d = 1 / (v / 512 + 1e-6)``, at most 0.5. ``'percentile'``
divides depth by its :data:`FAR_PERCENTILE`-th percentile and clips to 1
(unknown: 1), robustdet's calibration before 2026-11-27. ``fog_3d``
truncates to uint8 as the source saves its images. The focus blurs
depend on ratios of depths, and on the calibration only through what it
does to far and unknown depth.

Image size: the source's blur stds are in pixels of its 512×512 Taskonomy
images (its ImageNet path used them at 224×224). Here they are
multiplied by ``min(H, W) / 512`` (``min(H, W) / 224`` under the
``'midas'`` calibration, :data:`REFERENCE_SIZES`), so the same scene
blurs alike at any resolution; the kernel is then cut, as in the source, to
``int(3 * std)`` taps, made odd.

Randomness: ``np.random.default_rng(seed)`` only. ``low_light`` and
``iso_noise`` draw, per pixel and channel, one value from the exact
distribution of the source's Poisson-then-Gaussian-then-truncate chain
(inverse CDF of the 256 x 256 transition matrix between grey levels);
the source drew Poisson and Gaussian variates one after the other, which
gives the same distribution at several times the cost.
"""
import functools
import math
from typing import Any, Dict, Optional, Tuple

import cv2
import numpy as np
from scipy import fft as sp_fft
from scipy import special

from ..utils.errors import RobustDetError
from .table import (DEFAULT_CALIBRATION, check_calibration, family_corruptions,
                    get_corruption)

THREEDCC_NAMES: Tuple[str, ...] = family_corruptions('3dcc')
NEEDS_DEPTH: Tuple[str, ...] = tuple(
    n for n in THREEDCC_NAMES if get_corruption(n).needs_depth)
DEPTH_FREE: Tuple[str, ...] = tuple(n for n in THREEDCC_NAMES
                                    if n not in NEEDS_DEPTH)

# Per-severity parameters, severity 1..5, as in the source (the values are
# the table's):
#   low_light:   (c, gamma, photons, gaussian std): stretch to [0, c] with
#                gamma, then poisson_gaussian_noise at the source's
#                severity 3: 10 * 12 photons, std 0.1 * 0.18.
#   iso_noise:   (photons, gaussian std): std 0.7 * (.08, .12, .18, .26,
#                .38).
#   color_quant: bits kept, 6 - severity.
#   fog_3d:      alpha, the extinction per unit of normalised depth.
#   near_focus, far_focus: (aperture, index of the focus quantile among
#                the 9 quantiles 0/8 ... 8/8); aperture severity + 2 and,
#                for far focus, that minus 1.5.
THREEDCC_PARAMS: Dict[str, Tuple[Any, ...]] = {
    name: get_corruption(name).params
    for name in THREEDCC_NAMES
}

# Whether the pixels depend on the seed.
THREEDCC_STOCHASTIC: Dict[str, bool] = {
    name: get_corruption(name).stochastic
    for name in THREEDCC_NAMES
}

# The side, in pixels, the source's blur stds refer to: its Taskonomy
# images are 512×512; its ImageNet path used the same apertures at
# 224×224 (2.3× more blur relative to the image). Each calibration is one
# of the source's two conventions as a whole.
REFERENCE_SIZE = 512
REFERENCE_SIZES: Dict[str, int] = dict(
    taskonomy=512, midas=224, percentile=512)
# How depth becomes the normalised depth d of fog_3d's t = exp(-alpha d)
# and of the focus blurs' layers (module docstring):
#   'taskonomy':  the source's Taskonomy convention, for metric depth:
#                 d = metres / TASKONOMY_METRES, depths at or beyond it and
#                 unknown ones set to the image's largest d below 1;
#   'midas':      the source's ImageNet convention, for the raw inverse
#                 depth of a monocular network (MiDaS): d = 1 / (v / 512 +
#                 1e-6) clipped to [0, 0.5], v = 1 / depth;
#   'percentile': depth divided by its FAR_PERCENTILE-th percentile,
#                 clipped to 1 (robustdet before 2026-11-27): the far end
#                 of every image at d = 1, whatever its real depth.
# Taskonomy's depth PNGs are in 1/512 m and the source divides them by
# 8000: one unit of normalised depth is 8000 / 512 m.
TASKONOMY_METRES = 8000 / 512
# The source's inverse-depth convention: v / 512, inverted, at most 0.5.
MIDAS_DIVISOR = 512.0
MIDAS_EPS = 1e-6
MIDAS_MAX = 0.5
# The depth that normalises to 1 under 'percentile': this percentile of
# the valid depths.
FAR_PERCENTILE = 99.0
# Depth-of-field layers: the depth is cut at N_LAYERS + 1 quantiles.
N_LAYERS = 8
# Widened by this much (in normalised depth) at both ends, as the source.
_QUANTILE_EPS = 1e-4
# Normalised depth is clipped from below to this (keeps ratios finite).
_MIN_NORMALISED_DEPTH = 1e-6
# Wider Gaussian kernels are applied by FFT (OpenCV's fixed-point
# filter up to this width).
_MAX_DIRECT_KSIZE = 31

# Inverse-CDF sampling: the top _GUIDE_BITS of a 32-bit uniform pick the
# guide-table cell.
_GUIDE_BITS = 12
_LEVELS = 256

_MIN_SIDE = 32


def corrupt_3dcc(img: np.ndarray,
                 name: str,
                 severity: int,
                 seed: int,
                 depth: Optional[np.ndarray] = None,
                 calibration: str = DEFAULT_CALIBRATION) -> np.ndarray:
    """Apply one of the six 3D Common Corruptions.

    A pure function of its arguments: global RNG state is neither read
    nor changed.

    Args:
        img (np.ndarray): RGB uint8 image, H×W×3, at least 32 pixels on
            each side.
        name (str): One of :data:`THREEDCC_NAMES`.
        severity (int): 1-5.
        seed (int): Seed in ``[0, 2**32)``; only ``low_light`` and
            ``iso_noise`` use it (:data:`THREEDCC_STOCHASTIC`).
        depth (np.ndarray, optional): H×W depth, in metres for
            ``'taskonomy'``, any positive scale for ``'percentile'``.
            Unknown depth (``inf``, ``NaN``, 0 or negative) is taken as
            far. Needed by :data:`NEEDS_DEPTH`, ignored by the others.
        calibration (str): How depth is normalised, one of
            :data:`.table.DEPTH_CALIBRATIONS`; ``'taskonomy'`` (default) for
            metric depth in metres, ``'midas'`` for the inverse of a
            monocular network's raw output.

    Returns:
        np.ndarray: The corrupted image, uint8 H×W×3.
    """
    _check_args(img, name, severity, seed)
    img = np.ascontiguousarray(img)
    params = THREEDCC_PARAMS[name][severity - 1]
    if name == 'color_quant':
        return _color_quant(img, params)
    if name == 'low_light':
        return _low_light(img, *params, np.random.default_rng(seed))
    if name == 'iso_noise':
        return _iso_noise(img, severity, np.random.default_rng(seed))
    dn = _normalised_depth(depth, name, img.shape[:2], calibration)
    if name == 'fog_3d':
        return _fog_3d(img, dn, params)
    aperture, focus_index = params
    return _refocus(img, dn, aperture, focus_index,
                    REFERENCE_SIZES[calibration])


def depth_from_cityscapes_disparity(disparity_png: np.ndarray,
                                    baseline: float,
                                    fx: float) -> np.ndarray:
    """Metric depth from a Cityscapes ``disparity/`` PNG.

    A pixel value ``p > 0`` is the disparity ``(p - 1) / 256`` pixels;
    ``p = 0`` is invalid. Depth is ``baseline * fx / disparity``; invalid
    pixels and zero disparity (``p = 1``) get ``inf`` (unknown, which the
    corruptions take as far).

    Args:
        disparity_png (np.ndarray): The PNG's H×W integer (uint16) values.
        baseline (float): Stereo baseline in metres (``extrinsic.baseline``
            of the image's ``camera/`` JSON, about 0.209).
        fx (float): Focal length in pixels (``intrinsic.fx``, about 2262).

    Returns:
        np.ndarray: float32 H×W depth in metres, ``inf`` where unknown.
    """
    p = np.asarray(disparity_png)
    if p.ndim != 2 or not np.issubdtype(p.dtype, np.integer):
        raise RobustDetError(
            f'a Cityscapes disparity map must be a 2-D integer (uint16) '
            f'array, got {p.dtype} of shape {p.shape}')
    for what, value in (('baseline', baseline), ('fx', fx)):
        if not (isinstance(value, (int, float, np.number))
                and math.isfinite(value) and value > 0):
            raise RobustDetError(
                f'{what} must be a positive number, got {value!r}')
    depth = np.full(p.shape, np.inf, dtype=np.float32)
    known = p > 1
    disparity = (p[known].astype(np.float64) - 1.0) / 256.0
    depth[known] = float(baseline) * float(fx) / disparity
    return depth


def _check_args(img: np.ndarray, name: str, severity: int,
                seed: int) -> None:
    if name not in THREEDCC_PARAMS:
        raise RobustDetError(f'unknown 3DCC corruption {name!r}; valid: '
                             f'{", ".join(THREEDCC_NAMES)}')
    if (isinstance(severity, (bool, np.bool_))
            or not isinstance(severity, (int, np.integer))
            or not 1 <= severity <= 5):
        raise RobustDetError(
            f'severity {severity!r} out of range; valid: 1-5')
    if (isinstance(seed, (bool, np.bool_))
            or not isinstance(seed, (int, np.integer))
            or not 0 <= seed < 2**32):
        raise RobustDetError(
            f'seed must be an integer in [0, 2**32), got {seed!r}')
    if (not isinstance(img, np.ndarray) or img.dtype != np.uint8
            or img.ndim != 3 or img.shape[2] != 3):
        got = (f'{img.dtype} of shape {img.shape}' if isinstance(
            img, np.ndarray) else type(img).__name__)
        raise RobustDetError(
            f'{name} needs an RGB uint8 H×W×3 image, got {got}')
    if min(img.shape[:2]) < _MIN_SIDE:
        raise RobustDetError(
            f'{name} needs an image at least {_MIN_SIDE} pixels on each '
            f'side, got {img.shape[1]}×{img.shape[0]}')


# ---------------------------------------------------------------------------
# Depth-free corruptions


def _color_quant(img: np.ndarray, bits: int) -> np.ndarray:
    # Keep the top ``bits`` bits of every channel value.
    mask = (0xFF << (8 - bits)) & 0xFF
    return np.bitwise_and(img, np.uint8(mask))


def _low_light(img: np.ndarray, c: float, gamma: float, photons: int,
               std: float, rng: np.random.Generator) -> np.ndarray:
    tables = _low_light_tables(
        int(img.min()), int(img.max()), c, gamma, photons, std)
    return _sample(img, tables, rng)


def _low_light_tables(lo: int, hi: int, c: float, gamma: float,
                      photons: int,
                      std: float) -> Tuple[np.ndarray, np.ndarray]:
    """The sampling tables of low_light for an image spanning [lo, hi].

    Shared with the torch backend (:mod:`.torch_threedcc`).
    """
    if hi == lo:
        # The source divides by max - min; an image of one grey has no
        # range, so it is stretched from [0, 255] instead.
        lo, hi = 0, 255
    levels = np.arange(_LEVELS, dtype=np.float64)
    stretched = np.clip((levels - lo) / (hi - lo), 0.0, 1.0)**gamma * c
    cdf = _noise_cdf(stretched, photons, std)
    return _guide_table(cdf)


def _iso_noise(img: np.ndarray, severity: int,
               rng: np.random.Generator) -> np.ndarray:
    return _sample(img, _iso_noise_table(severity), rng)


@functools.lru_cache(maxsize=5)
def _iso_noise_table(severity: int) -> Tuple[np.ndarray, np.ndarray]:
    photons, std = THREEDCC_PARAMS['iso_noise'][severity - 1]
    levels = np.arange(_LEVELS, dtype=np.float64) / 255.0
    tables = _guide_table(_noise_cdf(levels, photons, std))
    for table in tables:
        table.flags.writeable = False
    return tables


def _noise_cdf(signal: np.ndarray, photons: int, std: float) -> np.ndarray:
    """The CDF of the output grey level for each input grey level.

    For an input level whose signal is ``s`` in ``[0, 1]`` the source
    computes ``floor(255 * clip(min(P / photons, 1) + N, 0, 1))`` with
    ``P ~ Poisson(s * photons)`` and ``N ~ Normal(0, std)``.

    Args:
        signal (np.ndarray): (256,) signal of each input level.
        photons (int): Photon count at full scale.
        std (float): Std of the Gaussian noise.

    Returns:
        np.ndarray: (256, 256) float64 CDF over output levels, rows
        nondecreasing and ending in 1.
    """
    lam = signal[:, None] * photons
    counts = np.arange(photons, dtype=np.float64)
    # P(P = k) for k < photons; every count >= photons clips to 1.
    pmf = np.exp(
        special.xlogy(counts, lam) - lam - special.gammaln(counts + 1))
    tail = special.pdtrc(photons - 1, lam)
    weights = np.concatenate([pmf, tail], axis=1)
    means = np.append(counts / photons, 1.0)
    # Output level <= k (k < 255) iff 255 * (mean + N) < k + 1.
    upper = np.arange(1, _LEVELS, dtype=np.float64) / 255.0
    gauss_cdf = special.ndtr((upper[None, :] - means[:, None]) / std)
    cdf = np.empty((len(signal), _LEVELS))
    cdf[:, :-1] = weights @ gauss_cdf
    cdf[:, -1] = 1.0
    np.clip(cdf, 0.0, 1.0, out=cdf)
    return np.maximum.accumulate(cdf, axis=1)


def _guide_table(cdf: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
    """Tables to sample output levels by inverse CDF from 32-bit integers.

    A uniform integer ``r`` in ``[0, 2**32)`` maps to the output level
    ``#{k : cdf[v, k] <= r / 2**32}``. For the cell ``r >> 20`` the guide
    table holds that count at the cell's start; its top bit marks cells in
    which the count changes, which are resolved exactly by a binary
    search.

    Args:
        cdf (np.ndarray): (256, 256) CDF per input level.

    Returns:
        tuple[np.ndarray, np.ndarray]: The flat guide table (uint16, 256
        rows of 2**12 cells) and the sorted int64 search keys
        ``(v << 33) + ceil(cdf[v, k] * 2**32)``.
    """
    cells = 1 << _GUIDE_BITS
    shift = 32 - _GUIDE_BITS
    # Integer thresholds: cdf <= r / 2**32 iff thresh <= r (r integer).
    thresh = np.ceil(cdf * 2.0**32).astype(np.int64)
    rows = np.arange(_LEVELS, dtype=np.int64)[:, None] * (cells + 1)

    def count_from(first_cell: np.ndarray) -> np.ndarray:
        hist = np.bincount((rows + first_cell).ravel(),
                           minlength=_LEVELS * (cells + 1))
        return np.cumsum(hist.reshape(_LEVELS, cells + 1), axis=1)[:, :-1]

    # Count at the cell start j << shift, and at its end.
    start = count_from((thresh + (1 << shift) - 1) >> shift)
    end = count_from(thresh >> shift)
    table = start.astype(np.uint16)
    table[end != start] |= 0x8000
    keys = ((np.arange(_LEVELS, dtype=np.int64)[:, None] << 33) +
            thresh).ravel()
    return table.ravel(), keys


def _uniform_bits(rng: np.random.Generator, size: int) -> np.ndarray:
    """The uniform 32-bit integers :func:`_sample` draws, one per value
    (in the image's H×W×3 order). Shared with :mod:`.torch_threedcc`."""
    return rng.integers(0, 2**32, size=size, dtype=np.uint32)


def _sample(img: np.ndarray, tables: Tuple[np.ndarray, np.ndarray],
            rng: np.random.Generator) -> np.ndarray:
    table, keys = tables
    levels = img.reshape(-1)
    r = _uniform_bits(rng, levels.size)
    index = levels.astype(np.uint32) << _GUIDE_BITS
    index |= r >> (32 - _GUIDE_BITS)
    guide = table[index]
    out = guide.astype(np.uint8)  # the low byte: the count, <= 255
    ambiguous = np.flatnonzero(guide >= 0x8000)
    if ambiguous.size:
        v = levels[ambiguous].astype(np.int64)
        query = (v << 33) + r[ambiguous]
        found = np.searchsorted(keys, query, side='right') - v * _LEVELS
        out[ambiguous] = found
    return out.reshape(img.shape)


# ---------------------------------------------------------------------------
# Depth-aware corruptions


def _normalised_depth(depth: Optional[np.ndarray], name: str,
                      shape: Tuple[int, int],
                      calibration: str = DEFAULT_CALIBRATION) -> np.ndarray:
    """The normalised depth ``d`` of a depth map, calibrated as named
    (:data:`.table.DEPTH_CALIBRATIONS`).

    Args:
        depth (np.ndarray, optional): H×W depth; unknown where not finite
            or not positive.
        name (str): The corruption, for error messages.
        shape (tuple[int, int]): The image's (H, W).
        calibration (str): One of :data:`.table.DEPTH_CALIBRATIONS`.

    Returns:
        np.ndarray: float32 H×W, positive; unknown depth is far.
    """
    check_calibration(calibration)
    if depth is None:
        raise RobustDetError(
            f"{name} needs a depth map (the dataset's 'depth' field: "
            f'Cityscapes disparity/ or a depth folder); none given')
    d = np.asarray(depth)
    if d.shape != tuple(shape):
        raise RobustDetError(
            f'{name}: depth map shape {d.shape} does not match the image '
            f'shape {tuple(shape)} (H, W)')
    if not (np.issubdtype(d.dtype, np.floating)
            or np.issubdtype(d.dtype, np.integer)):
        raise RobustDetError(
            f'{name}: depth map must be a real number array, got {d.dtype}')
    d = d.astype(np.float32)
    with np.errstate(invalid='ignore'):
        known = np.isfinite(d) & (d > 0)
    if not known.any():
        raise RobustDetError(
            f'{name}: the depth map has no valid value (finite and > 0)')
    if calibration == 'taskonomy':
        d /= np.float32(TASKONOMY_METRES)
        far = ~known
        far |= d >= 1
        near = ~far
        d[far] = d[near].max() if near.any() else np.float32(1)
    elif calibration == 'midas':
        # 1 / depth is the network's inverse depth v (0 where unknown).
        with np.errstate(divide='ignore'):
            v = np.where(known, np.float32(1) / d, np.float32(0))
        v /= np.float32(MIDAS_DIVISOR)
        v += np.float32(MIDAS_EPS)
        d = np.float32(1) / v
        np.minimum(d, np.float32(MIDAS_MAX), out=d)
    else:
        # np.sort first: the same order statistics (so the same
        # percentile), and numpy's vectorised sort is several times
        # faster than the partition np.percentile does on unsorted data.
        far = np.float32(np.percentile(np.sort(d[known]), FAR_PERCENTILE))
        with np.errstate(invalid='ignore', over='ignore'):
            d /= far
        np.minimum(d, np.float32(1), out=d)
        d[~known] = 1.0
    np.maximum(d, np.float32(_MIN_NORMALISED_DEPTH), out=d)
    return d


def _fog_3d(img: np.ndarray, dn: np.ndarray, alpha: float) -> np.ndarray:
    t = np.exp(np.float32(-alpha) * dn)
    airlight = np.float32(img.mean())
    out = img.astype(np.float32)
    out -= airlight
    out *= t[..., None]
    out += airlight
    # Truncated, as the source saves (ToPILImage: x * 255, then byte()).
    return out.astype(np.uint8)


def _refocus(img: np.ndarray,
             dn: np.ndarray,
             aperture: float,
             focus_index: int,
             reference_size: int = REFERENCE_SIZE) -> np.ndarray:
    """Depth of field focused at one of the depth's quantiles.

    Args:
        img (np.ndarray): RGB uint8 H×W×3 image.
        dn (np.ndarray): float32 H×W normalised depth.
        aperture (float): Blur std, in pixels at ``reference_size``,
            per unit of ``|q - f| / q``.
        focus_index (int): Index of the focus depth ``f`` among the
            quantiles 0/8 ... 8/8.
        reference_size (int): The side the apertures refer to
            (:data:`REFERENCE_SIZES`).

    Returns:
        np.ndarray: uint8 H×W×3.
    """
    h, w = dn.shape
    # Of the sorted values: the same quantiles, faster (see above).
    q = np.quantile(
        np.sort(dn, axis=None),
        np.arange(N_LAYERS + 1) / N_LAYERS).astype(np.float64)
    eps = min(_QUANTILE_EPS, q[0] / 2)  # keep the nearest quantile > 0
    q[0] -= eps
    q[-1] += eps
    focus = q[focus_index]
    scale = min(h, w) / reference_size
    stds = aperture * np.abs(q - focus) / q * scale
    # Beyond the image's side a wider blur changes nothing visible.
    stds = np.minimum(stds, min(h, w))

    # The quantile interval of each pixel: q[left] < d <= q[left + 1].
    left = np.zeros((h, w), dtype=np.uint8)
    for k in range(1, N_LAYERS):
        left += dn > np.float32(q[k])
    # Weights 1 - dist**2 of the two quantiles, dist their distance to the
    # pixel's depth as a fraction of the gap: dist_right = 1 - dist_left.
    q32 = q.astype(np.float32)
    q_left = q32[left]
    dist = np.subtract(dn, q_left)
    dist /= np.subtract(q32[left + 1], q_left, out=q_left)
    weight_right = np.subtract(2, dist, dtype=np.float32)
    weight_right *= dist
    dist *= dist
    weight_left = np.subtract(1, dist, out=dist)

    # RGBA pixels as uint32: the blurred image of each pixel's two
    # quantiles, gathered layer by layer.
    lower = np.empty((h, w), dtype=np.uint32)
    upper = np.empty((h, w), dtype=np.uint32)
    for layer in range(N_LAYERS + 1):
        as_left = left == layer if layer < N_LAYERS else None
        as_right = left == layer - 1 if layer > 0 else None
        used = [m for m in (as_left, as_right) if m is not None and m.any()]
        if not used:
            continue
        rows = np.flatnonzero(np.logical_or.reduce(used).any(axis=1))
        blurred = cv2.cvtColor(
            _blur_rows(img, float(stds[layer]), rows[0], rows[-1] + 1),
            cv2.COLOR_RGB2RGBA).view(np.uint32)[..., 0]
        if as_left is not None:
            np.copyto(lower, blurred, where=as_left)
        if as_right is not None:
            np.copyto(upper, blurred, where=as_right)
    # (w_l * lower + w_u * upper) / (w_l + w_u), rounded.
    out = cv2.blendLinear(
        lower.view(np.uint8).reshape(h, w, 4),
        upper.view(np.uint8).reshape(h, w, 4), weight_left, weight_right)
    return np.ascontiguousarray(out[..., :3])


def _blur_rows(img: np.ndarray, std: float, top: int,
               bottom: int) -> np.ndarray:
    """:func:`_gaussian_blur` of ``img``, exact in rows ``top:bottom``.

    A kernel reads ``taps // 2`` rows either side, so only those rows
    are blurred (a depth layer often covers a band of the image); the
    rows outside are left as they are.
    """
    taps = _odd_taps(std)
    start = max(0, top - taps // 2)
    stop = min(img.shape[0], bottom + taps // 2)
    if (start, stop) == (0, img.shape[0]):
        return _gaussian_blur(img, std)
    out = img.copy()
    # Where the band meets the image's edge, the band's own replicated
    # border is the image's.
    out[start:stop] = _gaussian_blur(img[start:stop], std)
    return out


def _odd_taps(std: float) -> int:
    # The source's kernel size: int(3 * std), made odd.
    taps = int(3 * std)
    return taps + 1 if taps % 2 == 0 else taps


def _gaussian_blur(img: np.ndarray, std: float) -> np.ndarray:
    """Gaussian blur with the source's truncation and replicated border.

    Args:
        img (np.ndarray): uint8 H×W×C image.
        std (float): Std in pixels.

    Returns:
        np.ndarray: The blurred image (``img`` itself when the kernel has
        one tap).
    """
    taps = _odd_taps(std)
    if std < 0.1 or taps == 1:
        return img
    if taps <= _MAX_DIRECT_KSIZE:
        return cv2.GaussianBlur(
            img, (taps, taps), std, borderType=cv2.BORDER_REPLICATE)
    # A wide kernel: the same truncated Gaussian, by FFT. Rows, then
    # columns, each channel a C-contiguous line; float32 with the kernel
    # computed in float64, about 1e-4 grey levels from the float64 direct
    # sum before rounding.
    x = np.ascontiguousarray(img.transpose(2, 0, 1), dtype=np.float32)
    x = _fft_filter_lines(x, std, taps)
    x = np.ascontiguousarray(x.transpose(0, 2, 1))
    x = _fft_filter_lines(x, std, taps)
    np.rint(x, out=x)
    np.clip(x, 0, 255, out=x)
    return np.ascontiguousarray(x.transpose(2, 1, 0).astype(np.uint8))


@functools.lru_cache(maxsize=64)
def _kernel_spectrum(size: int, taps: int, std: float) -> np.ndarray:
    """The rFFT, of length :func:`_fft_length`, of the source's kernel
    (``cv2.getGaussianKernel(taps, std)``, float64 weights summing to 1)
    for lines of ``size`` values."""
    kernel = cv2.getGaussianKernel(taps, std, cv2.CV_64F).ravel()
    return sp_fft.rfft(kernel.astype(np.float32),
                       _fft_length(size, taps)).astype(np.complex64)


def _fft_length(size: int, taps: int) -> int:
    # The padded line, size + taps - 1 values: a circular convolution of
    # that length wraps only into outputs that are cut away.
    return sp_fft.next_fast_len(size + taps - 1, real=True)


def _fft_filter_lines(x: np.ndarray, std: float, taps: int) -> np.ndarray:
    """Correlate the last axis of a float32 array with the symmetric
    kernel of :func:`_kernel_spectrum`, replicated border (OpenCV's
    ``BORDER_REPLICATE``), by FFT."""
    size = x.shape[-1]
    r = taps // 2
    padded = x[..., np.clip(np.arange(-r, size + r), 0, size - 1)]
    n = _fft_length(size, taps)
    spectrum = sp_fft.rfft(padded, n, axis=-1, workers=1)
    spectrum *= _kernel_spectrum(size, taps, std)
    out = sp_fft.irfft(spectrum, n, axis=-1, workers=1)
    return out[..., taps - 1:taps - 1 + size]
