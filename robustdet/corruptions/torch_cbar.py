# Copyright (c) robustdet contributors. All rights reserved.
"""The ten ImageNet-C-bar corruptions of :mod:`.cbar` on torch batches.

Each function takes a uint8 batch ``N×3×H×W`` (RGB) on the CPU or a CUDA
device and returns the corrupted uint8 batch on the same device; every
image has its own seed and its result does not depend on the rest of the
batch. :data:`FUNCS` maps the names of :data:`.cbar.CBAR_NAMES` to them.

What matches the numpy core :func:`.cbar.corrupt_cbar`:

* The parameters are the core's: each image's are drawn on the CPU by
  :func:`.cbar.sample_cbar_params` with the image's seed. The random
  fields of the two FFT noises are drawn on the CPU too, by the core's
  own :func:`.cbar._unit_phasors` from the same Generator, and moved to
  the device; the 1-D lattice tables of perlin_noise come from the
  core's :func:`.cbar._lattice`. So every corruption gives the core's
  pixels up to float rounding; none matches only in distribution.
* The per-pixel work (waves, plasma flow, stars, checker squares, the
  Perlin gradients, the inverse FFTs, the caustic lens and its bilinear
  refraction) runs on the device, vectorised over the batch, with the
  core's float32 / float64 steps in the core's order (the sawtooth, the
  sums of sines and the gradients of the lens are float64 where the
  core's are). scipy's float32 ``gaussian_filter`` of the caustic is
  repeated in float64 with its kernel, border and order of summation.
* What still differs is the last bits of transcendental functions
  (torch's ``sin``, ``cos``, ``atan2``, ``pow`` and ``exp`` against
  numpy's SIMD ones, or CUDA's) and of the FFTs (torch's or cuFFT
  against scipy's pocketfft): a grey level where the final truncation to
  uint8 falls on the other side. Where such a bit decides a threshold of
  the definition itself, a pixel moves further: caustic_refraction's
  lens normal at the source's ``nz >= 0.999`` cut-off (the ray jumps by
  pixels), a pixel on a ring's edge (cocentric_sine_waves: a full
  sawtooth) or on a star's ray boundary. Measured against the core at
  48×80, 56×72 and 480×640, all severities (max / mean ``|diff|``): on
  CPU torch 0 / 0 for single_frequency_greyscale, perlin_noise,
  blue_noise_sample and checkerboard_cutout, 1 / below 5e-5 for the
  others except caustic_refraction, 63 / 5e-5 (above 1 on 6e-7 of the
  values); on CUDA (H200; severities 1 and 5) at most 1 for all but
  cocentric_sine_waves, 39 / 1.3e-4 (above 1 on 1.6e-6 of the values).
  Divisors are device tensors: CUDA divides by a CPU scalar as a
  multiplication by its reciprocal.
"""
import math
from typing import Callable, Dict, List, Sequence

import numpy as np
import torch

from . import cbar
from .cbar import sample_cbar_params
from .torch_ops import border_index, on_device, to_uint8

__all__ = ['FUNCS']

_F32 = np.float32


def _params(name: str, x: torch.Tensor, severity: int,
            seeds: Sequence[int]) -> List[dict]:
    h, w = x.shape[-2:]
    return [sample_cbar_params(name, severity, s, h, w) for s in seeds]


def _col(values, x: torch.Tensor, dtype=torch.float32) -> torch.Tensor:
    """Per-image scalars as an N×1×1 tensor on the device of ``x``.

    float32 values are rounded from the float64 ones first, as the core's
    ``np.float32(value)``.
    """
    array = np.asarray(values, dtype=np.float64)
    if dtype == torch.float32:
        array = array.astype(_F32)
    return on_device(array, x, dtype).view(-1, 1, 1)


def _scalar(value, x: torch.Tensor) -> torch.Tensor:
    """A float32 0-d tensor on the device of ``x``.

    Divisors are made device tensors: CUDA divides by a CPU scalar as a
    multiplication by its reciprocal, a bit off numpy's division.
    """
    return torch.tensor(_F32(value), device=x.device)


def _grid(x: torch.Tensor):
    """Row (H×1) and column (1×W) coordinates, float32, on the device."""
    h, w = x.shape[-2:]
    ys = torch.arange(h, dtype=torch.float32, device=x.device)[:, None]
    xs = torch.arange(w, dtype=torch.float32, device=x.device)[None, :]
    return ys, xs


def _frac(t: torch.Tensor) -> torch.Tensor:
    return t - torch.floor(t)


def _add_noise(x: torch.Tensor, noise: torch.Tensor) -> torch.Tensor:
    """The core's ``add_noise``: noise N×H×W (every channel) or N×3×H×W."""
    if noise.dim() == 3:
        noise = noise[:, None]
    return to_uint8(x.float() + noise)


# --------------------------------------------------------- FFT noises


def _amplitude(x: torch.Tensor, blue: bool) -> torch.Tensor:
    """The core's blue (``|f|``) or brownish (``1 / (|f|^2 + 1)``)
    amplitude spectrum, float32 H×W, built as :func:`.cbar.
    _reference_frequencies` does (``np.fft.fftfreq`` times ``s / n``)."""
    h, w = x.shape[-2:]
    s = math.sqrt(h * w)

    def freqs(n):
        # np.fft.fftfreq(n, 1 / n): the integers times 1 / (n * (1 / n)).
        k = np.concatenate([np.arange((n - 1) // 2 + 1), np.arange(-(n // 2),
                                                                  0)])
        return on_device(k, x, torch.float64) * (1.0 / (n * (1.0 / n))) * (
            s / n)

    fy, fx = freqs(h), freqs(w)
    nyquist = cbar.REFERENCE_SIZE / 2
    band = (fy.abs() <= nyquist)[:, None] & (fx.abs() <= nyquist)[None, :]
    f2 = fy[:, None]**2 + fx[None, :]**2
    if blue:
        return (torch.sqrt(f2) * band).float()
    return (band / (f2 + 1.0)).float()


def _spectral_fields(amplitude: torch.Tensor,
                     rngs: List[np.random.Generator],
                     count: int) -> torch.Tensor:
    """The core's ``_spectral_field``, ``count`` per Generator in turn.

    The phasors are drawn on the CPU by the core's own
    :func:`.cbar._unit_phasors` (so the same stream) and moved to the
    device; the inverse FFTs run there, batched.

    Returns:
        torch.Tensor: float32 ``N×count×H×W``, each field divided by its
        own standard deviation.
    """
    h, w = amplitude.shape
    phasors = np.stack([
        np.stack(cbar._unit_phasors(rng, h * w)) for rng in rngs
        for _ in range(count)
    ])
    phasors = on_device(phasors, amplitude).view(len(rngs), count, 2, h, w)
    spectrum = torch.complex(amplitude * phasors[:, :, 0],
                             amplitude * phasors[:, :, 1])
    field = torch.fft.ifft2(spectrum).real
    return field / field.std(dim=(2, 3), unbiased=False, keepdim=True)


def blue_noise_sample(x, severity, seeds, depth=None):
    params = _params('blue_noise_sample', x, severity, seeds)
    rngs = [np.random.default_rng(p['noise_seed']) for p in params]
    field = _spectral_fields(_amplitude(x, True), rngs, 1)
    keep = field > _col([p['threshold'] for p in params], x)[:, None]
    return x * keep.to(torch.uint8)


def brownish_noise(x, severity, seeds, depth=None):
    params = _params('brownish_noise', x, severity, seeds)
    rngs = [np.random.default_rng(p['noise_seed']) for p in params]
    noise = _spectral_fields(_amplitude(x, False), rngs, 3)
    return _add_noise(
        x, _col([p['intensity'] for p in params], x)[:, None] * noise)


# ---------------------------------------------------------- waves


def single_frequency_greyscale(x, severity, seeds, depth=None):
    params = _params('single_frequency_greyscale', x, severity, seeds)
    h, w = x.shape[-2:]

    def vec(key):
        return on_device([p[key] for p in params], x, torch.float64)[:, None]

    cols = torch.arange(w, dtype=torch.float64, device=x.device)
    rows = torch.arange(h, dtype=torch.float64, device=x.device)
    a = cols * vec('freq_x') + vec('phase')  # N×W
    b = rows * vec('freq_y')  # N×H
    wave = (torch.cos(b)[:, :, None] * torch.sin(a)[:, None, :] +
            torch.sin(b)[:, :, None] * torch.cos(a)[:, None, :]).float()
    intensity = _col([p['intensity'] for p in params], x)
    return _add_noise(x, intensity * wave)


def cocentric_sine_waves(x, severity, seeds, depth=None):
    params = _params('cocentric_sine_waves', x, severity, seeds)

    def col(key, dtype=torch.float32):
        return _col([p[key] for p in params], x, dtype)

    ys, xs = _grid(x)
    dx = xs - col('x0')
    dy = ys - col('y0')
    angle = torch.atan2(dx, dy)
    radius = torch.sqrt((dx * dx + dy * dy).double())
    wobble = torch.sin(angle * col('freq')) * col('amplitude')
    noise = _frac((radius + wobble) / col('ring_width', torch.float64)) - 0.5
    return _add_noise(x, col('intensity') * noise.float())


def plasma_noise(x, severity, seeds, depth=None):
    # The core's _plasma_pattern, batched: an image with fewer iterations
    # than the batch's most gets a damping of 0 in the extra steps (its
    # coordinates then gain exactly 0).
    params = _params('plasma_noise', x, severity, seeds)
    ys, xs = _grid(x)
    scale = _col([p['scale'] for p in params], x)
    px = xs / scale
    py = ys / scale
    times = [p['time'] for p in params]
    steps = max(p['iterations'] for p in params)
    freq = [1.0] * len(params)
    divisor = [1.0] * len(params)
    damping = [1.0] * len(params)
    for step in range(steps):
        shift = _col([t / d for t, d in zip(times, divisor)], x)
        damp = _col([
            1.0 / d if step < p['iterations'] else 0.0
            for p, d in zip(params, damping)
        ], x)
        f = _col(freq, x)
        r0 = torch.cos(py * f + shift) * damp
        r1 = torch.sin(px * f + shift) * damp
        px = px + (r0 - r1 * _F32(0.3))
        py = py + (r1 + r0 * _F32(0.3))
        for i, p in enumerate(params):
            freq[i] *= 1.93
            divisor[i] *= 1.15
            damping[i] *= 2.25 - p['sharpness']
    t = _col(times, x)
    sin_t = _col([math.sin(v) for v in times], x)
    noise = torch.stack([
        torch.sin(px - t),
        torch.sin((px + py + sin_t) * _F32(0.5)),
        torch.sin(py + t)
    ],
                        dim=1)
    intensity = [p['intensity'] for p in params]
    out = x * _col([1.0 - i / 255.0 for i in intensity], x)[:, None]
    out += _col(intensity, x)[:, None] * noise
    return to_uint8(out)


# ------------------------------------------------------------ perlin


def perlin_noise(x, severity, seeds, depth=None):
    # The core's _perlin_pattern: the 1-D lattice tables (shared by the
    # batch: the period depends on the size only) by the core's _lattice
    # on the CPU, the per-image gradient lookups and the H×W blend on the
    # device.
    params = _params('perlin_noise', x, severity, seeds)
    n, _, h, w = x.shape
    p0 = params[0]
    perm2 = on_device(
        np.stack([np.concatenate([p['perm'], p['perm']]) for p in params]),
        x, torch.long)  # N×512
    grads = on_device(np.stack([p['grads'] for p in params]), x,
                      torch.float32)  # N×256×2: the core's astype(float32)
    g0, g1 = grads[..., 0], grads[..., 1]
    rows = np.arange(h) / p0['period']
    cols = np.arange(w) / p0['period']
    total = torch.zeros((n, h, w), dtype=torch.float32, device=x.device)
    f = 1.0
    while f <= p0['turbulence']:
        cells_r, local_r, rx0, sx = cbar._lattice(f * rows)
        cells_c, local_c, ry0, sy = cbar._lattice(f * cols)
        b0 = on_device(cells_c[local_c], x, torch.long)
        b1 = on_device(cells_c[local_c + 1], x, torch.long)
        pa = perm2[:, on_device(cells_r, x, torch.long)][:, :, None]
        h0 = perm2.gather(1, (pa + b0).reshape(n, -1)).view(n, -1, w)
        h1 = perm2.gather(1, (pa + b1).reshape(n, -1)).view(n, -1, w)
        wy0 = (1.0 - sy).astype(_F32)
        wy1 = sy.astype(_F32)
        a0 = on_device(wy0 * ry0.astype(_F32), x)
        a1 = on_device(wy1 * (ry0 - 1.0).astype(_F32), x)
        wy0, wy1 = on_device(wy0, x), on_device(wy1, x)

        def lookup(g, idx):
            return g.gather(1, idx.reshape(n, -1)).view(idx.shape)

        y0 = wy0 * lookup(g0, h0) + wy1 * lookup(g0, h1)
        y1 = a0 * lookup(g1, h0) + a1 * lookup(g1, h1)
        wx0 = on_device((1.0 - sx).astype(_F32), x)[:, None]
        wx1 = on_device(sx.astype(_F32), x)[:, None]
        rx0f = on_device(rx0.astype(_F32), x)[:, None]
        lr = on_device(local_r, x, torch.long)
        top = rx0f * y0[:, lr] + y1[:, lr]
        bottom = (rx0f - 1) * y0[:, lr + 1] + y1[:, lr + 1]
        octave = (wx0 * top + wx1 * bottom) * 1.5
        total += octave.abs() / _scalar(f, x)
        f *= 2
    noise = (total * _F32(p0['gain']) + _F32(p0['bias'])).clamp_(0.0, 1.0)
    alpha = [p['alpha'] for p in params]
    out = x * _col([1.0 - a for a in alpha], x)[:, None]
    out += (_col([255.0 * a for a in alpha], x) * noise)[:, None]
    return to_uint8(out)


# ----------------------------------------------------------- sparkles


def _stars(x: torch.Tensor, centers, ray_lengths, exponents, eps: float):
    """The core's ``_star`` of one star per image, N×H×W float32.

    Args:
        x (torch.Tensor): The batch (for the size and device).
        centers (list): ``(row, column)`` of each image's star.
        ray_lengths (list[np.ndarray]): Each star's ray lengths.
        exponents (list[float]): Each star's exponent.
        eps (float): The core's ``eps`` (the same for a size).
    """
    n = len(centers)
    ys, xs = _grid(x)
    dy = ys - _col([c[0] for c in centers], x)
    dx = xs - _col([c[1] for c in centers], x)
    rays = [len(r) for r in ray_lengths]
    d = (torch.atan2(dx, dy) + _F32(math.pi)) * _col(
        [r / cbar._TWO_PI for r in rays], x)
    cell = torch.floor(d)
    frac = d - cell
    # The lengths with their first two repeated (the core's wrap), padded
    # to one row per image of a flat table.
    stride = max(rays) + 2
    table = np.zeros((n, stride), _F32)
    for i, r in enumerate(ray_lengths):
        table[i, :len(r) + 2] = np.concatenate([r, r[:2]]).astype(_F32)
    table = on_device(table, x).view(-1)
    offset = torch.arange(n, device=x.device).view(-1, 1, 1) * stride
    i = cell.long() + offset
    l0 = table[i]
    length = l0 + frac * (table[i + 1] - l0)
    g = length * length / (dx * dx + dy * dy + _F32(eps))
    if any(e != 1.0 for e in exponents):
        g = g.pow(_col(exponents, x))
    frac -= _F32(0.5)
    f = (1.0 - frac * frac) * g
    return f.clamp_(0.0, 1.0)


def sparkles(x, severity, seeds, depth=None):
    # 255 - (255 - img) * prod(1 - f) over the five stars, as the core.
    params = _params('sparkles', x, severity, seeds)
    n, _, h, w = x.shape
    keep = torch.ones((n, h, w), dtype=torch.float32, device=x.device)
    exponents = [(100.0 - p['amount']) / 50.0 for p in params]
    for star in range(len(params[0]['centers'])):
        keep *= 1.0 - _stars(x, [p['centers'][star] for p in params],
                             [p['ray_lengths'][star] for p in params],
                             exponents, params[0]['eps'])
    out = 255.0 - (255.0 - x.float()) * keep[:, None]
    return to_uint8(out)


def inverse_sparkles(x, severity, seeds, depth=None):
    params = _params('inverse_sparkles', x, severity, seeds)
    f = _stars(x, [p['center'] for p in params],
               [p['ray_lengths'] for p in params],
               [(100.0 - p['amount']) / 50.0 for p in params],
               params[0]['eps'])
    return to_uint8(255.0 - (255.0 - x.float()) * f[:, None])


# -------------------------------------------------------- checkerboard


def checkerboard_cutout(x, severity, seeds, depth=None):
    # The core's squares and coins: floor() for the parity, truncation
    # (with Python's negative indices) for the coin, as there.
    params = _params('checkerboard_cutout', x, severity, seeds)
    n = len(params)
    ys, xs = _grid(x)
    c = _col([math.cos(p['angle']) / p['side'] for p in params], x)
    s = _col([math.sin(p['angle']) / p['side'] for p in params], x)
    nx = c * ys + s * xs
    ny = c * xs - s * ys
    same = ((torch.floor(nx).long() + torch.floor(ny).long()) & 1) == 0
    sizes = [p['cut'].shape[0] for p in params]
    m = max(sizes)
    cut = np.zeros((n, m, m), bool)
    for i, p in enumerate(params):
        cut[i, :sizes[i], :sizes[i]] = p['cut']
    cut = on_device(cut, x).view(-1)
    size = on_device(sizes, x, torch.long).view(-1, 1, 1)
    ix = nx.long()  # truncation towards zero
    iy = ny.long()
    ix = torch.where(ix < 0, ix + size, ix)
    iy = torch.where(iy < 0, iy + size, iy)
    offset = torch.arange(n, device=x.device).view(-1, 1, 1) * (m * m)
    mask = same & cut[offset + ix * m + iy]
    return torch.where(mask[:, None], x.new_tensor(128), x)


# ------------------------------------------------------------ caustic


def _caustic_pattern(x: torch.Tensor, times, sizes) -> torch.Tensor:
    """The core's ``_caustic_pattern`` of each image, N×H×W float32."""
    h, w = x.shape[-2:]

    def axis(n):
        coords = torch.arange(n, dtype=torch.float64, device=x.device)
        p = _frac(coords / on_device(sizes, x, torch.float64)[:, None])
        p = p * 6.28318530718 - 250.0
        return (p + 80 * math.pi).float(), (p * 0.005).float()

    q0, num0 = (t[:, :, None] for t in axis(h))
    q1, num1 = (t[:, None, :] for t in axis(w))
    i0, i1 = q0, q1
    c = torch.ones((len(times), h, w), dtype=torch.float32, device=x.device)
    for n in range(5):
        t = _col([tm * (1.0 - 3.5 / (n + 1)) for tm in times], x)
        i0, i1 = (q0 + torch.cos(t - i0) + torch.sin(t + i1),
                  q1 + torch.sin(t - i1) + torch.cos(t + i0))
        a = num0 / torch.sin(i0 + t)
        b = num1 / torch.cos(i1 + t)
        c += 1.0 / torch.sqrt(a * a + b * b)
    c *= _F32(1 / 5)
    c = 1.17 - c.pow(1.4)
    c = c * c
    c = c * c
    c = c * c
    return c.clamp_(max=1.0)


def _scipy_gaussian(img: torch.Tensor, sigma: float) -> torch.Tensor:
    """``scipy.ndimage.gaussian_filter(img, sigma)`` of float32 N×H×W.

    scipy's kernel (``np.exp``, radius ``int(4 sigma + 0.5)``), its
    'reflect' border, one axis after the other with the result rounded
    to float32 in between, each in float64 summed as scipy sums a
    symmetric kernel: the centre tap, then the pairs from the outside
    in.
    """
    radius = int(4.0 * float(sigma) + 0.5)
    xk = np.arange(-radius, radius + 1)
    weights = np.exp(-0.5 / (sigma * sigma) * xk**2)
    weights = (weights / weights.sum()).tolist()
    out = img
    for dim in (-2, -1):
        size = out.shape[dim]
        idx = border_index(size, radius, radius, 'symmetric', out.device)
        padded = out.double().index_select(dim, idx)
        acc = padded.narrow(dim, radius, size) * weights[radius]
        for j in range(radius, 0, -1):
            acc += (padded.narrow(dim, radius - j, size) +
                    padded.narrow(dim, radius + j, size)) * weights[radius + j]
        out = acc.float()
    return out


def caustic_refraction(x, severity, seeds, depth=None):
    params = _params('caustic_refraction', x, severity, seeds)
    n, ch, h, w = x.shape
    p0 = params[0]  # size-only parameters are the same for all
    caustic = _scipy_gaussian(
        _caustic_pattern(x, [p['time'] for p in params],
                         [p['size'] for p in params]), p0['softening'])
    padded = torch.nn.functional.pad(caustic, (1, 1, 1, 1))
    k = _F32(p0['gradient_scale'])
    grow = (padded[:, 2:, 1:-1] - padded[:, :-2, 1:-1]) * k
    gcol = (padded[:, 1:-1, 2:] - padded[:, 1:-1, :-2]) * k
    # The core's _refraction_offsets.
    g2 = grow * grow + gcol * gcol
    nz = 1.0 / torch.sqrt(1.0 + g2)
    eta = _scalar(p0['eta'], x)
    factor = _col([p['lens_scale'] for p in params], x) * nz * (
        torch.sqrt(1.0 - g2 * nz * nz / (eta * eta)) - nz / eta)
    factor = torch.where(nz >= _F32(0.999), 0.0, factor)
    drow = torch.round(factor * grow, decimals=3)
    dcol = torch.round(factor * gcol, decimals=3)
    # The core's _bilinear_planes: zero outside, coordinates clamped to
    # [-1, size] where every corner read is already zero.
    ys, xs = _grid(x)
    py = (ys + drow).clamp_(-1, h)
    px = (xs + dcol).clamp_(-1, w)
    y0, x0 = torch.floor(py), torch.floor(px)
    wy = (py - y0)[:, None]
    wx = (px - x0)[:, None]
    stride = w + 3
    planes = x.new_zeros((n, ch, h + 3, stride), dtype=torch.float32)
    planes[:, :, 1:h + 1, 1:w + 1] = x
    planes = planes.view(n, ch, -1)
    i00 = ((y0.long() + 1) * stride + (x0.long() + 1)).view(n, 1, -1)

    def read(offset):
        idx = (i00 + offset).expand(n, ch, -1)
        return planes.gather(2, idx).view(n, ch, h, w)

    top = read(0)
    top += wx * (read(1) - top)
    bottom = read(stride)
    bottom += wx * (read(stride + 1) - bottom)
    top += wy * (bottom - top)
    lighting = _col([255.0 * p['lighting_amount'] for p in params], x)
    top += (lighting * (grow - gcol))[:, None]
    return to_uint8(top)


FUNCS: Dict[str, Callable[..., torch.Tensor]] = {
    'caustic_refraction': caustic_refraction,
    'inverse_sparkles': inverse_sparkles,
    'sparkles': sparkles,
    'perlin_noise': perlin_noise,
    'blue_noise_sample': blue_noise_sample,
    'plasma_noise': plasma_noise,
    'checkerboard_cutout': checkerboard_cutout,
    'cocentric_sine_waves': cocentric_sine_waves,
    'single_frequency_greyscale': single_frequency_greyscale,
    'brownish_noise': brownish_noise,
}
