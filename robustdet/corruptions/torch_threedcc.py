# Copyright (c) robustdet contributors. All rights reserved.
"""The six 3D Common Corruptions of :mod:`.threedcc` on torch batches.

Each function takes a uint8 batch ``N×3×H×W`` (RGB) on the CPU or a CUDA
device, the images' seeds and, for :data:`.threedcc.NEEDS_DEPTH`, their
depth maps (a float32 ``N×H×W`` tensor on the same device, in metres
for the default calibration, unknown where not finite or not positive),
and returns the
corrupted uint8 batch on that device. :data:`FUNCS` maps the names to
them. What matches the numpy core :func:`.threedcc.corrupt_3dcc`:

* color_quant and fog_3d: the core's pixels (integer masking; float32
  steps in the core's order, with the image mean summed exactly in
  float64). fog_3d's only float difference is torch's float32 ``exp``
  against numpy's: a grey level where the rounding falls on the other
  side (measured: on 4e-7 of the values on CPU, 2e-6 on CUDA).
* low_light and iso_noise: the core's pixels, exactly. The uniform
  32-bit integers (one per value) are drawn on the CPU by the core's own
  :func:`.threedcc._uniform_bits` from ``np.random.default_rng(seed)``
  and moved to the device, and the core's inverse-CDF tables
  (:func:`.threedcc._iso_noise_table`,
  :func:`.threedcc._low_light_tables`) are looked up there, guide table
  and binary search alike. Drawing on the CPU costs about 3 ms per
  million values, which keeps the pixels the core's rather than only
  its distribution.
* near_focus and far_focus: the core's pixels, within a grey level.
  The normalised depth and its quantiles repeat numpy's ``percentile`` /
  ``quantile`` (linear interpolation, in numpy's precision and order) on
  device-sorted depths, so the layers and weights are the core's to the
  bit. Kernels up to 31 taps repeat OpenCV's ``GaussianBlur`` uint8 path
  in integer arithmetic (the kernel of ``getGaussianKernel``, quantised
  to 8 fraction bits by OpenCV's error diffusion; replicated border):
  the core's pixels exactly, with this OpenCV (5.0). Wider kernels are
  the core's float32 FFT filter with torch's FFT, which rounds
  differently: a value within about 1e-4 of a half grey level may round
  the other way. ``blendLinear`` is repeated in float32. Divisors are
  device tensors: CUDA divides by a CPU scalar as a multiplication by
  its reciprocal.

Per image: the parameters and tables differ per image (low_light's
stretch, the depth quantiles), so those loop over the batch; each step
is a whole-image tensor operation.
"""
import functools
import math
from typing import Callable, Dict, Optional, Sequence, Tuple

import cv2
import numpy as np
import torch

from ..utils.errors import RobustDetError
from . import threedcc
from .table import check_calibration
from .threedcc import (DEFAULT_CALIBRATION, FAR_PERCENTILE, N_LAYERS,
                       THREEDCC_PARAMS)
from .torch_ops import border_index, on_device

__all__ = ['FUNCS']

_GUIDE_BITS = threedcc._GUIDE_BITS
_LEVELS = threedcc._LEVELS

# ----------------------------------------------------------- depth-free


def color_quant(x, severity, seeds, depth=None):
    bits = THREEDCC_PARAMS['color_quant'][severity - 1]
    return x & ((0xFF << (8 - bits)) & 0xFF)


@functools.lru_cache(maxsize=64)
def _low_light_tables(lo: int, hi: int, severity: int):
    return threedcc._low_light_tables(
        lo, hi, *THREEDCC_PARAMS['low_light'][severity - 1])


def _sample(img: torch.Tensor, tables: Tuple[np.ndarray, np.ndarray],
            seed: int) -> torch.Tensor:
    """The core's ``_sample`` of one 3×H×W uint8 image on its device.

    The guide table's cell (top bits of the uniform integer) gives the
    output level where it is unambiguous; the rest are resolved by a
    binary search among the sorted keys, as the core does.
    """
    table, keys = tables
    _, h, w = img.shape
    if isinstance(table, np.ndarray):
        table, keys = _to_device(table, keys, img)
    bits = threedcc._uniform_bits(np.random.default_rng(seed), 3 * h * w)
    # uint32 -> int32 bits on the device -> int64 in [0, 2**32): the
    # core's H×W×3 order, made channel-first.
    r = torch.from_numpy(bits.view(np.int32)).to(img.device).long()
    r = (r & 0xFFFFFFFF).view(h, w, 3).permute(2, 0, 1)
    levels = img.long()
    guide = table[(levels << _GUIDE_BITS) | (r >> (32 - _GUIDE_BITS))]
    out = guide & 0xFF  # the low byte: the count
    ambiguous = guide >= 0x8000
    v = levels[ambiguous]
    query = (v << 33) + r[ambiguous]
    found = torch.searchsorted(keys, query, right=True)
    out[ambiguous] = (found - v * _LEVELS).to(out.dtype)
    return out.to(torch.uint8)


def _to_device(table: np.ndarray, keys: np.ndarray, like: torch.Tensor):
    return (on_device(table.astype(np.int32), like), on_device(keys, like))


@functools.lru_cache(maxsize=16)
def _iso_tables(severity: int, device: torch.device):
    like = torch.empty(0, device=device)
    return _to_device(*threedcc._iso_noise_table(severity), like)


def low_light(x, severity, seeds, depth=None):
    out = torch.empty_like(x)
    lo, hi = x.amin(dim=(1, 2, 3)).tolist(), x.amax(dim=(1, 2, 3)).tolist()
    for i, seed in enumerate(seeds):
        tables = _low_light_tables(int(lo[i]), int(hi[i]), severity)
        out[i] = _sample(x[i], tables, seed)
    return out


def iso_noise(x, severity, seeds, depth=None):
    tables = _iso_tables(severity, x.device)
    out = torch.empty_like(x)
    for i, seed in enumerate(seeds):
        out[i] = _sample(x[i], tables, seed)
    return out


# ------------------------------------------------------ depth and fog


def _depths(depth: Optional[torch.Tensor], name: str,
            x: torch.Tensor) -> torch.Tensor:
    if depth is None:
        raise RobustDetError(f'{name} needs a depth map; none given')
    if tuple(depth.shape) != (x.shape[0], ) + tuple(x.shape[2:]):
        raise RobustDetError(
            f'{name}: depth of shape {tuple(depth.shape)} does not match '
            f'the batch {tuple(x.shape)} (expected N×H×W)')
    return depth.to(device=x.device, dtype=torch.float32)


def _lerp_f32(a: np.float32, b: np.float32, t: float) -> np.float32:
    """numpy's ``_lerp`` of two float32 values at a Python float ``t``
    (a weak scalar: the arithmetic is float32)."""
    diff = b - a
    if t >= 0.5:
        return b - diff * np.float32(1 - t)
    return a + diff * np.float32(t)


def _normalised_depth(d: torch.Tensor, name: str,
                      calibration: str) -> torch.Tensor:
    """The core's ``_normalised_depth`` of one H×W float32 depth map.

    ``'percentile'``: ``np.percentile(d[known], FAR_PERCENTILE)`` from the
    two order statistics around ``(n - 1) q`` (``kthvalue``), interpolated
    as numpy does. The others are the core's float32 steps.
    """
    check_calibration(calibration)
    known = torch.isfinite(d) & (d > 0)
    values = d[known]
    n = values.numel()
    if n == 0:
        raise RobustDetError(
            f'{name}: the depth map has no valid value (finite and > 0)')
    # Device divisors: CUDA divides by a CPU scalar as a multiplication by
    # its reciprocal, a bit off numpy's division.
    if calibration == 'taskonomy':
        dn = d / on_device(np.float32(threedcc.TASKONOMY_METRES), d)
        far = ~known | (dn >= 1)
        fill = dn[~far].max() if bool((~far).any()) else 1.0
        dn = torch.where(far, fill, dn)
    elif calibration == 'midas':
        v = torch.where(known, 1 / d.clamp(min=np.finfo(np.float32).tiny),
                        0.0)
        v = v / on_device(np.float32(threedcc.MIDAS_DIVISOR), d) + np.float32(
            threedcc.MIDAS_EPS)
        dn = (1 / v).clamp_(max=threedcc.MIDAS_MAX)
    else:
        virtual = (n - 1) * (FAR_PERCENTILE / 100)
        below = math.floor(virtual)
        if virtual >= n - 1:
            below = n - 1
        pair = [
            values.kthvalue(k + 1).values.item()
            for k in (below, min(below + 1, n - 1))
        ]
        far = _lerp_f32(np.float32(pair[0]), np.float32(pair[1]),
                        float(virtual - below))
        dn = torch.where(known, (d / on_device(far, d)).clamp_(max=1.0), 1.0)
    return dn.clamp_(min=threedcc._MIN_NORMALISED_DEPTH)


def fog_3d(x, severity, seeds, depth=None, calibration=DEFAULT_CALIBRATION):
    depth = _depths(depth, 'fog_3d', x)
    alpha = np.float32(-THREEDCC_PARAMS['fog_3d'][severity - 1])
    out = torch.empty_like(x)
    for i in range(len(x)):
        t = torch.exp(
            _normalised_depth(depth[i], 'fog_3d', calibration) * alpha)
        # The mean of the integers, exact in float64, as numpy's.
        airlight = np.float32(x[i].double().sum().item() / x[i].numel())
        img = (x[i].float() - airlight) * t
        img += airlight  # truncated below, as the source saves
        out[i] = img.to(torch.uint8)
    return out


# --------------------------------------------------------- refocusing


def _quantiles(dn: torch.Tensor) -> np.ndarray:
    """``np.quantile(dn, arange(9) / 8)`` (float64) of a float32 map."""
    values = torch.sort(dn.reshape(-1)).values
    n = values.numel()
    virtual = (n - 1) * (np.arange(N_LAYERS + 1) / N_LAYERS)
    below = np.floor(virtual)
    above = below + 1
    last = virtual >= n - 1
    below[last] = above[last] = n - 1
    gamma = virtual - below
    index = torch.from_numpy(np.concatenate([below, above]).astype(np.int64))
    pair = values[index.to(values.device)].cpu().numpy()
    a, b = pair[:N_LAYERS + 1], pair[N_LAYERS + 1:]
    diff = (b - a).astype(np.float64)  # float32 difference, as numpy's
    return np.where(gamma >= 0.5, b - diff * (1 - gamma), a + diff * gamma)


@functools.lru_cache(maxsize=256)
def _fixed_kernel(taps: int, std: float) -> Tuple[int, ...]:
    """OpenCV's uint8 Gaussian kernel: ``getGaussianKernel`` (its
    bit-exact doubles) quantised to 8 fraction bits by OpenCV's error
    diffusion (``getGaussianKernelFixedPoint_ED``), summing to 256."""
    k = cv2.getGaussianKernel(taps, std, cv2.CV_64F).ravel()
    out = [0] * taps
    err = 0.0
    total = 0
    for i in range(taps // 2):
        adjusted = k[i] * 256.0 + err
        v = round(adjusted)  # cvRound: half to even
        err = adjusted - v
        out[i] = out[taps - 1 - i] = v
        total += v
    out[taps // 2] = 256 - 2 * total
    return tuple(out)


def _symmetric_filter(x: torch.Tensor, kernel: Sequence[int],
                      dim: int) -> torch.Tensor:
    """Integer correlation with a symmetric kernel, replicated border."""
    r = len(kernel) // 2
    if r == 0:
        return x * kernel[0]
    size = x.shape[dim]
    p = x.index_select(dim, border_index(size, r, r, 'replicate', x.device))
    acc = p.narrow(dim, r, size) * kernel[r]
    for j in range(1, r + 1):
        if kernel[r - j]:
            acc += (p.narrow(dim, r - j, size) +
                    p.narrow(dim, r + j, size)) * kernel[r - j]
    return acc


def _cv_gaussian(img: torch.Tensor, taps_x: int, std_x: float, taps_y: int,
                 std_y: float) -> torch.Tensor:
    """``cv2.GaussianBlur`` of a C×H×W uint8 tensor, replicated border.

    OpenCV's bit-exact uint8 path: the rows filtered with the 8-bit
    fixed-point kernel (exact in integers), then the columns, and the
    16 fraction bits rounded half up.
    """
    h, w = img.shape[-2:]
    if w == 1:
        taps_x = 1
    if h == 1:
        taps_y = 1
    if taps_x == 1 and taps_y == 1:
        return img
    acc = _symmetric_filter(img.int(), _fixed_kernel(taps_x, std_x), -1)
    acc = _symmetric_filter(acc, _fixed_kernel(taps_y, std_y), -2)
    return ((acc + (1 << 15)) >> 16).clamp_(0, 255).to(torch.uint8)


def _blur(img: torch.Tensor, std: float) -> torch.Tensor:
    """The core's ``_gaussian_blur`` of a C×H×W uint8 tensor."""
    taps = threedcc._odd_taps(std)
    if std < 0.1 or taps == 1:
        return img
    if taps <= threedcc._MAX_DIRECT_KSIZE:
        return _cv_gaussian(img, taps, std, taps, std)
    x = _fft_filter_lines(img.float(), std, taps)
    x = _fft_filter_lines(x.transpose(-1, -2), std, taps).transpose(-1, -2)
    return torch.round(x).clamp_(0, 255).to(torch.uint8)


def _fft_filter_lines(x: torch.Tensor, std: float,
                      taps: int) -> torch.Tensor:
    """The core's ``_fft_filter_lines``: the last axis correlated with the
    source's truncated Gaussian, replicated border, by float32 FFT."""
    size = x.shape[-1]
    r = taps // 2
    padded = x.index_select(
        -1, border_index(size, r, r, 'replicate', x.device))
    n = threedcc._fft_length(size, taps)
    spectrum = torch.fft.rfft(padded, n=n, dim=-1)
    spectrum *= on_device(threedcc._kernel_spectrum(size, taps, std), x)
    out = torch.fft.irfft(spectrum, n=n, dim=-1)
    return out[..., taps - 1:taps - 1 + size]


def _refocus(img: torch.Tensor, dn: torch.Tensor, aperture: float,
             focus_index: int, reference_size: int) -> torch.Tensor:
    """The core's ``_refocus`` of one 3×H×W image."""
    h, w = dn.shape
    q = _quantiles(dn)
    eps = min(threedcc._QUANTILE_EPS, q[0] / 2)
    q[0] -= eps
    q[-1] += eps
    focus = q[focus_index]
    scale = min(h, w) / reference_size
    stds = np.minimum(aperture * np.abs(q - focus) / q * scale, min(h, w))
    q32 = q.astype(np.float32)
    left = torch.zeros((h, w), dtype=torch.long, device=img.device)
    for k in range(1, N_LAYERS):
        left += dn > float(q32[k])
    q32 = on_device(q32, img)
    q_left = q32[left]
    dist = (dn - q_left) / (q32[left + 1] - q_left)
    weight_right = (2 - dist) * dist
    weight_left = 1 - dist * dist
    counts = torch.bincount(left.view(-1), minlength=N_LAYERS).tolist()
    lower = torch.zeros_like(img)
    upper = torch.zeros_like(img)
    blurred: Dict[float, torch.Tensor] = {}
    for layer in range(N_LAYERS + 1):
        as_left = layer < N_LAYERS and counts[layer] > 0
        as_right = layer > 0 and counts[layer - 1] > 0
        if not (as_left or as_right):
            continue
        std = float(stds[layer])
        if std not in blurred:
            blurred[std] = _blur(img, std)
        if as_left:
            lower = torch.where(left == layer, blurred[std], lower)
        if as_right:
            upper = torch.where(left == layer - 1, blurred[std], upper)
    # cv2.blendLinear: (w_l lower + w_u upper) / (w_l + w_u + 1e-5),
    # float32, rounded half to even.
    num = lower.float() * weight_left + upper.float() * weight_right
    den = weight_left + weight_right + np.float32(1e-5)
    return torch.round(num / den).clamp_(0, 255).to(torch.uint8)


def _focus(name: str, x, severity, depth, calibration):
    depth = _depths(depth, name, x)
    aperture, focus_index = THREEDCC_PARAMS[name][severity - 1]
    out = torch.empty_like(x)
    for i in range(len(x)):
        out[i] = _refocus(x[i],
                          _normalised_depth(depth[i], name, calibration),
                          aperture, focus_index,
                          threedcc.REFERENCE_SIZES[calibration])
    return out


def near_focus(x, severity, seeds, depth=None,
               calibration=DEFAULT_CALIBRATION):
    return _focus('near_focus', x, severity, depth, calibration)


def far_focus(x, severity, seeds, depth=None,
              calibration=DEFAULT_CALIBRATION):
    return _focus('far_focus', x, severity, depth, calibration)


FUNCS: Dict[str, Callable[..., torch.Tensor]] = {
    'low_light': low_light,
    'iso_noise': iso_noise,
    'color_quant': color_quant,
    'fog_3d': fog_3d,
    'near_focus': near_focus,
    'far_focus': far_focus,
}
