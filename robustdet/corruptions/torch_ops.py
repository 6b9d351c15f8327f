# Copyright (c) robustdet contributors. All rights reserved.
"""Image operations of the torch backend on N×C×H×W tensors that
reproduce OpenCV's and scipy's: borders, separable filters, Canny edges,
the 5×5 chamfer distance transform and histogram equalisation."""
import numpy as np
import torch
import torch.nn.functional as F

from . import common

__all__ = [
    'border_index', 'box3_sum', 'canny_edges', 'chamfer_distance',
    'equalize_hist', 'gaussian_filter', 'on_device', 'pad_hw', 'sep_filter',
    'shifted_view', 'take_along', 'to_uint8'
]


def to_uint8(x: torch.Tensor) -> torch.Tensor:
    """Values on the 0-255 scale -> uint8, clipped and truncated.

    The reference ends every float corruption with ``np.uint8(np.clip(x,
    0, 1) * 255)``, which truncates.
    """
    return x.clamp_(0, 255).to(torch.uint8)


def on_device(array, like: torch.Tensor, dtype=None) -> torch.Tensor:
    """A copy of a numpy array on the device of ``like``."""
    return torch.tensor(np.asarray(array), dtype=dtype, device=like.device)


def border_index(size: int, before: int, after: int, mode: str,
                  device: torch.device) -> torch.Tensor:
    """Source indices of a padded axis.

    ``'replicate'`` repeats the edge (OpenCV BORDER_REPLICATE, scipy
    'nearest'), ``'reflect101'`` mirrors about the edge pixel (OpenCV's
    default BORDER_REFLECT_101) and ``'symmetric'`` mirrors about the edge
    (OpenCV BORDER_REFLECT, scipy 'reflect'), for any pad width.
    """
    idx = torch.arange(-before, size + after, device=device)
    if mode == 'replicate':
        return idx.clamp_(0, size - 1)
    if mode == 'reflect101':
        period = max(2 * size - 2, 1)
        idx = idx.remainder(period)
        return torch.where(idx >= size, period - idx, idx)
    if mode == 'symmetric':
        period = 2 * size
        idx = idx.remainder(period)
        return torch.where(idx >= size, period - 1 - idx, idx)
    raise ValueError(f'unknown border mode {mode!r}')


def take_along(x: torch.Tensor, dim: int, index: torch.Tensor) -> torch.Tensor:
    """``x.index_select(dim, index)`` for ``dim`` -2 (rows) or -1."""
    # Indexing is several times faster than index_select along the last
    # axis on the CPU, and the same on CUDA.
    return x[..., index] if dim == -1 else x.index_select(dim, index)


def pad_hw(x: torch.Tensor, pad_y: int, pad_x: int, mode: str) -> torch.Tensor:
    """Pad the last two axes of ``x`` by ``(pad_y, pad_x)`` on each side."""
    h, w = x.shape[-2:]
    if pad_y:
        x = take_along(x, -2, border_index(h, pad_y, pad_y, mode, x.device))
    if pad_x:
        x = take_along(x, -1, border_index(w, pad_x, pad_x, mode, x.device))
    return x


def sep_filter(x: torch.Tensor, kernel_y: np.ndarray, kernel_x: np.ndarray,
                mode: str) -> torch.Tensor:
    """Separable correlation of each channel of ``x`` (N×C×H×W)."""
    c = x.shape[1]
    x = pad_hw(x, len(kernel_y) // 2, len(kernel_x) // 2, mode)
    ky = on_device(kernel_y, x, x.dtype).view(1, 1, -1, 1).expand(c, 1, -1, 1)
    kx = on_device(kernel_x, x, x.dtype).view(1, 1, 1, -1).expand(c, 1, 1, -1)
    return F.conv2d(F.conv2d(x, ky, groups=c), kx, groups=c)


def gaussian_filter(x: torch.Tensor, sigma: float) -> torch.Tensor:
    """skimage's ``gaussian`` (mode 'nearest') of each channel."""
    k = common.gaussian_kernel1d(sigma, common.GAUSSIAN_TRUNCATE)
    return sep_filter(x, k, k, 'replicate')


def box3_sum(x: torch.Tensor) -> torch.Tensor:
    """Sum over the 3×3 neighbourhood, OpenCV's default border."""
    h, w = x.shape[-2:]
    p = pad_hw(x, 1, 1, 'reflect101')
    out = torch.zeros_like(x)
    for dy in range(3):
        for dx in range(3):
            out += p[..., dy:dy + h, dx:dx + w]
    return out


# OpenCV's DIST_L2 5×5 chamfer mask: cost of a step by (|dy|, |dx|)
# sorted, in float32 (OpenCV adds them in float32).
_CHAMFER_COST = {(0, 1): 1.0, (1, 1): 1.4, (1, 2): 2.1969}
_CHAMFER = tuple(((dy, dx), float(np.float32(cost)))
                 for dy in range(-2, 3) for dx in range(-2, 3)
                 for step, cost in _CHAMFER_COST.items()
                 if tuple(sorted((abs(dy), abs(dx)))) == step)


def shifted_view(x: torch.Tensor, dy: int, dx: int, pad: int) -> torch.Tensor:
    """``x[..., i + dy, j + dx]`` of a tensor padded by ``pad``."""
    h, w = x.shape[-2] - 2 * pad, x.shape[-1] - 2 * pad
    return x[..., pad + dy:pad + dy + h, pad + dx:pad + dx + w]


def canny_edges(img: torch.Tensor, low: float, high: float) -> torch.Tensor:
    """``cv2.Canny(img, low, high)`` of N×1×H×W uint8: a bool edge map.

    3×3 Sobel with the edge replicated, L1 magnitude, OpenCV's integer
    sector test and strict/non-strict comparisons for non-maximum
    suppression (magnitude 0 outside), then hysteresis: candidates
    8-connected to a pixel above the high threshold.
    """
    p = pad_hw(img.int(), 1, 1, 'replicate')

    def s(dy, dx):
        return shifted_view(p, dy, dx, 1)

    gx = (s(-1, 1) + 2 * s(0, 1) + s(1, 1)) - (
        s(-1, -1) + 2 * s(0, -1) + s(1, -1))
    gy = (s(1, -1) + 2 * s(1, 0) + s(1, 1)) - (
        s(-1, -1) + 2 * s(-1, 0) + s(-1, 1))
    mag = gx.abs() + gy.abs()
    mp = F.pad(mag, (1, 1, 1, 1))

    def m(dy, dx):
        return shifted_view(mp, dy, dx, 1)

    ax = gx.abs().long()
    ay = gy.abs().long() << 15
    tg22x = ax * 13573  # round(tan(22.5°) * 2**15)
    horizontal = ay < tg22x
    vertical = ay > tg22x + (ax << 16)
    opposite = (gx < 0) != (gy < 0)
    keep = torch.where(
        horizontal, (mag > m(0, -1)) & (mag >= m(0, 1)),
        torch.where(
            vertical, (mag > m(-1, 0)) & (mag >= m(1, 0)),
            torch.where(opposite, (mag > m(-1, 1)) & (mag > m(1, -1)),
                        (mag > m(-1, -1)) & (mag > m(1, 1)))))
    candidate = keep & (mag > low)
    edge = (candidate & (mag > high)).float()
    candidate = candidate.float()
    while True:
        before = edge
        for _ in range(8):
            edge = F.max_pool2d(edge, 3, stride=1, padding=1) * candidate
        if torch.equal(edge, before):
            return edge.bool()


def chamfer_distance(edges: torch.Tensor, cap: float) -> torch.Tensor:
    """``cv2.distanceTransform(255 - edges, DIST_L2, 5)`` up to ``cap``.

    The 5×5 chamfer distance to the nearest edge pixel (outside the image
    counts as far), in float32 as OpenCV computes it, by parallel
    relaxation; exact wherever it is below ``cap`` (a path of cost below
    ``cap`` has fewer than ``cap`` steps), at least ``cap`` elsewhere.
    """
    far = 1e20
    dist = torch.where(edges, 0., far)
    for _ in range(int(np.ceil(cap))):
        p = F.pad(dist, (2, 2, 2, 2), value=far)
        new = dist
        for (dy, dx), cost in _CHAMFER:
            new = torch.minimum(new, shifted_view(p, dy, dx, 2) + cost)
        if torch.equal(new, dist):
            break
        dist = new
    return dist


def equalize_hist(img: torch.Tensor) -> torch.Tensor:
    """``cv2.equalizeHist`` of each image of an N×1×H×W uint8 tensor."""
    n = img.shape[0]
    flat = img.reshape(n, -1).long()
    offsets = torch.arange(n, device=img.device)[:, None] * 256
    hist = torch.bincount((flat + offsets).reshape(-1), minlength=256 * n)
    hist = hist.reshape(n, 256)
    first = (hist > 0).long().argmax(dim=1, keepdim=True)
    total = flat.shape[1]
    count_first = hist.gather(1, first)
    cum = hist.cumsum(1)
    above = (cum - cum.gather(1, first)).float()
    scale = torch.tensor(255., device=img.device) / (
        total - count_first).clamp(min=1).float()
    lut = torch.round(above * scale).clamp_(0, 255)
    lut = torch.where(count_first == total, first.float(), lut)
    return lut.gather(1, flat).reshape(img.shape).to(torch.uint8)
