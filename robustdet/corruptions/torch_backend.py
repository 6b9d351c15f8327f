# Copyright (c) robustdet contributors. All rights reserved.
"""The torch backend: every corruption on batches, on the CPU or CUDA.

Made for a benchmark whose model runs on a GPU: images are decoded on the
CPU, corrupted at their original resolution on the GPU, then resized and
normalised for the model. :func:`corrupt_batch` takes a uint8 batch
(``N×3×H×W``) or a list of ``H×W×3`` images of any sizes;
:func:`corrupt_torch` is the single-image numpy function registered as
``backend='torch'`` in :func:`robustdet.corruptions.corrupt`.

The definitions and per-severity parameters are the reference's, read from
:mod:`.table` and :mod:`.common` like the fast backend's, and every step is
the fast backend's step written with torch operations (convolutions,
gathers, slice sums) on the device. What each corruption guarantees
against the fast backend (and hence the reference):

* **Same pixels up to float rounding** (a grey level here and there where
  the final truncation to uint8 falls on the other side): every
  deterministic corruption, and the stochastic ones whose random numbers
  are drawn on the CPU from the reference's stream,
  ``np.random.RandomState(seed)`` in the reference's order, and moved to
  the device: the angle of motion_blur, the flake field and angle of snow,
  the frost texture and crop, the plasma fractal of fog (built on the CPU
  by :func:`.common.plasma_fractal`, which is where its random numbers
  are), the displacement fields of elastic_transform and the liquid layer
  of spatter. glass_blur's shuffle is sequential: the reference's own
  shuffle (:func:`.common.glass_shuffle`, seeded alike) runs on the CPU on
  an image of pixel indices, and the resulting permutation is applied on
  the device between the two blurs. spatter's water drops repeat OpenCV's
  Canny, distance transform and histogram equalisation exactly.
  The displacement fields of elastic_transform are smoothed in float32
  (the fast backend: float64), about 1e-5 pixels apart.
* **Same distribution**: the four noises. The output grey level is drawn,
  per channel and pixel, from the exact distribution of the reference's
  truncated output for that input level (the fast backend's alias
  tables), with one uniform number per value from a ``torch.Generator``
  on the device seeded with the image's seed. The pixels therefore
  differ from the fast backend's (and between the CPU and CUDA), the
  distributions do not.
* jpeg_compression has no GPU codec here: it runs on the CPU through the
  fast backend (Pillow's libjpeg) and the result is moved to the device.
  pixelate repeats Pillow's fixed-point box filter and nearest-neighbour
  upsampling exactly.

The newer families (C-bar, 3DCC) are ports of this package's numpy
definitions (:mod:`.torch_cbar`, :mod:`.torch_threedcc`): their random
numbers are drawn on the CPU from the numpy definitions' own streams, and
the pixels match within a grey level except a few pixels on a jump of
the formula (tests/test_corruptions/test_torch_newer.py).

The device: ``device=`` of :func:`corrupt_batch` (default: the device of a
tensor batch, else the environment variable ``ROBUSTDET_TORCH_DEVICE``,
else ``'cpu'``); :func:`corrupt_torch` uses the variable. Asking for CUDA
where torch has none is an error, never a silent fallback to the CPU.
While it runs, convolutions are asked for in IEEE float32 (cuDNN's
default TF32 would move the blurs by grey levels); the process-wide flags
are restored afterwards.
"""
import contextlib
import functools
import os
from typing import Callable, Dict, List, Optional, Sequence, Tuple, Union

import numpy as np
import torch
import torch.nn.functional as F

from ..utils.errors import RobustDetError
from . import common, fast, torch_cbar, torch_threedcc
from .host import HOST_STEPS, host_draws, host_image_step
from .table import (DEFAULT_CALIBRATION, check_channel_order, check_image_size,
                    check_severity, get_corruption)
from .torch_ops import (box3_sum, canny_edges, chamfer_distance, equalize_hist,
                        gaussian_filter, on_device, pad_hw, sep_filter,
                        shifted_view, take_along, to_uint8)

#: Environment variable naming the device of ``backend='torch'``.
DEVICE_ENV = 'ROBUSTDET_TORCH_DEVICE'

Images = Union[torch.Tensor, Sequence[Union[np.ndarray, torch.Tensor]]]
Depths = Union[None, torch.Tensor, np.ndarray,
               Sequence[Union[np.ndarray, torch.Tensor]]]
_FUNCS: Dict[str, Callable[..., torch.Tensor]] = {}
# The newer families (C-bar, 3DCC): name -> fn(x, severity, seeds, depth),
# ports of the numpy definitions of .cbar and .threedcc.
_NEWER: Dict[str, Callable[..., torch.Tensor]] = {
    **torch_cbar.FUNCS,
    **torch_threedcc.FUNCS
}


def _register(fn):
    _FUNCS[fn.__name__] = fn
    return fn


def resolve_device(device: Optional[Union[str, torch.device]] = None
                   ) -> torch.device:
    """The device the torch backend runs on.

    Args:
        device (str | torch.device, optional): ``'cpu'``, ``'cuda'`` or
            ``'cuda:N'``. Default: the environment variable
            ``ROBUSTDET_TORCH_DEVICE``, else ``'cpu'``.

    Returns:
        torch.device: The device.

    Raises:
        RobustDetError: The device is not a CPU or CUDA device, or CUDA is
            asked for and torch has none (no fallback to the CPU).
    """
    source = 'device'
    if device is None:
        device = os.environ.get(DEVICE_ENV) or 'cpu'
        source = DEVICE_ENV
    try:
        dev = torch.device(device)
    except (RuntimeError, TypeError):
        dev = None
    if dev is None or dev.type not in ('cpu', 'cuda'):
        raise RobustDetError(f'invalid {source} {device!r} for the torch '
                             f'corruption backend; valid: cpu, cuda, cuda:N')
    if dev.type == 'cuda':
        if not torch.cuda.is_available():
            raise RobustDetError(
                f'the torch corruption backend was asked for {source} '
                f'{str(device)!r}, but CUDA is not available to torch '
                f'{torch.__version__}; use device cpu or backend fast')
        count = torch.cuda.device_count()
        if dev.index is not None and dev.index >= count:
            raise RobustDetError(
                f'{source} {str(device)!r} does not exist; this machine has '
                f'{count} CUDA device(s)')
    return dev


def corrupt_batch(images: Images,
                  name: str,
                  severity: int,
                  seeds: Sequence[int],
                  device: Optional[Union[str, torch.device]] = None,
                  channel_order: str = 'rgb',
                  depth: Depths = None,
                  depth_calibration: str = DEFAULT_CALIBRATION,
                  host: Optional[Sequence[Optional[dict]]] = None
                  ) -> Union[torch.Tensor, List[torch.Tensor]]:
    """Corrupt a batch of RGB uint8 images on a torch device.

    Every image gets its own seed and its result does not depend on the
    other images of the batch.

    Args:
        images (torch.Tensor | list): A uint8 tensor ``N×3×H×W`` (RGB), or
            a list of ``H×W×3`` uint8 numpy arrays or tensors of any sizes
            (images of equal size are corrupted together), each side at
            least 32 pixels.
        name (str): Corruption name, see
            :data:`robustdet.corruptions.CORRUPTION_NAMES`.
        severity (int): 1-5; 0 returns a copy.
        seeds (Sequence[int]): One seed in ``[0, 2**32)`` per image.
        device (str | torch.device, optional): Where to compute. Default:
            the device of a tensor batch, else ``ROBUSTDET_TORCH_DEVICE``,
            else ``'cpu'``.
        channel_order (str): As in :func:`robustdet.corruptions.corrupt`:
            ``'rgb'`` applies the published definitions to the RGB images,
            ``'bgr'`` applies them to the channels reversed (what mmdet's
            ``Corrupt`` does to its BGR arrays).
        depth (torch.Tensor | np.ndarray | list, optional): The images'
            depth maps, for the corruptions that need one (fog_3d,
            near_focus, far_focus): an ``N×H×W`` array with a tensor
            batch, a list of ``H×W`` arrays with a list of images.
            Ignored by the other corruptions.
        depth_calibration (str): How depth is normalised, as in
            :func:`robustdet.corruptions.corrupt`.
        host (Sequence[dict | None], optional): Per image, what
            :func:`.host.host_inputs` returned for it (computed where the image
            was decoded, e.g. in a dataloader worker); the images without
            (None) get it computed here. The pixels are the same.

    Returns:
        torch.Tensor | list[torch.Tensor]: uint8 on ``device``, in the
        layout of the input: an ``N×3×H×W`` tensor, or a list of ``H×W×3``
        tensors.

    Raises:
        RobustDetError: A bad name, severity, seed, image or device.
    """
    needs_depth = get_corruption(name).needs_depth
    check_severity(severity, allow_clean=True)
    bgr = check_channel_order(channel_order) == 'bgr'
    if not needs_depth or depth is None:
        depth = None
    if isinstance(images, torch.Tensor):
        dev = resolve_device(images.device if device is None else device)
        _check_batch(images)
        seeds = _check_seeds(seeds, len(images))
        depths = None if depth is None else _depth_tensor(depth).to(dev)
        return _run(images.to(dev), name, severity, seeds, bgr, depths,
                    depth_calibration, _check_host(host, len(images)))
    dev = resolve_device(device)
    images = list(images)
    seeds = _check_seeds(seeds, len(images))
    chw = [_check_hwc(img).to(dev).permute(2, 0, 1) for img in images]
    groups: Dict[Tuple[int, int], List[int]] = {}
    for i, img in enumerate(chw):
        groups.setdefault(tuple(img.shape[1:]), []).append(i)
    out: List[Optional[torch.Tensor]] = [None] * len(chw)
    depths = None if depth is None else [
        _depth_tensor(d).to(dev) for d in depth
    ]
    host = _check_host(host, len(chw))
    for members in groups.values():
        batch = torch.stack([chw[i] for i in members])
        result = _run(
            batch, name, severity, [seeds[i] for i in members], bgr,
            None if depths is None else torch.stack(
                [depths[i] for i in members]), depth_calibration,
            None if host is None else [host[i] for i in members])
        for i, img in zip(members, result):
            out[i] = img.permute(1, 2, 0).contiguous()
    return out


def corrupt_torch(img: np.ndarray,
                  name: str,
                  severity: int,
                  seed: int,
                  depth: Optional[np.ndarray] = None,
                  calibration: str = DEFAULT_CALIBRATION) -> np.ndarray:
    """Corrupt one RGB uint8 image with the torch backend.

    The function behind ``corrupt(..., backend='torch')``: it runs on the
    device named by the environment variable ``ROBUSTDET_TORCH_DEVICE``
    (default ``'cpu'``). Batches: :func:`corrupt_batch`.

    Args:
        img (np.ndarray): RGB uint8 image, H×W×3, at least 32×32.
        name (str): Corruption name.
        severity (int): 1-5.
        seed (int): Seed in ``[0, 2**32)``.
        depth (np.ndarray, optional): H×W depth map, for the corruptions
            that need one.

    Returns:
        np.ndarray: The corrupted RGB uint8 image, H×W×3.
    """
    out = corrupt_batch([img], name, severity, [seed],
                        depth=None if depth is None else [depth],
                        depth_calibration=calibration)[0]
    return out.cpu().numpy()


def _check_host(host: Optional[Sequence[Optional[dict]]],
                count: int) -> Optional[List[Optional[dict]]]:
    if host is None:
        return None
    host = list(host)
    if len(host) != count:
        raise RobustDetError(
            f'corrupt_batch got host inputs for {len(host)} images and '
            f'{count} images')
    return host


def _depth_tensor(depth: Union[np.ndarray, torch.Tensor]) -> torch.Tensor:
    if isinstance(depth, np.ndarray):
        depth = torch.from_numpy(np.ascontiguousarray(depth))
    return depth.to(torch.float32)


def _run(x: torch.Tensor,
         name: str,
         severity: int,
         seeds: List[int],
         bgr: bool,
         depth: Optional[torch.Tensor] = None,
         calibration: str = DEFAULT_CALIBRATION,
         host: Optional[Sequence[Optional[dict]]] = None) -> torch.Tensor:
    if severity == 0:
        return x.clone()
    if bgr:
        x = x.flip(1)
    with torch.no_grad(), _ieee_convolutions():
        if name in _NEWER:
            kwargs = dict(calibration=calibration) if get_corruption(
                name).needs_depth else {}
            out = _NEWER[name](x, severity, seeds, depth=depth, **kwargs)
        else:
            kwargs = dict(host=host) if name in HOST_STEPS else {}
            out = _FUNCS[name](x, common.params(name, severity), seeds,
                               **kwargs)
    return out.flip(1) if bgr else out


@contextlib.contextmanager
def _ieee_convolutions():
    """Full float32 convolutions while corrupting.

    cuDNN convolves float32 in TF32 by default on recent GPUs (a 10-bit
    mantissa), which moves the results by grey levels. The flags are
    process-wide; they are restored afterwards.
    """
    saved = []
    for backend in (torch.backends.cudnn, torch.backends.mkldnn):
        conv = getattr(backend, 'conv', None)
        if conv is not None and hasattr(conv, 'fp32_precision'):
            saved.append((conv, 'fp32_precision', conv.fp32_precision))
            conv.fp32_precision = 'ieee'
    if not saved:  # torch before the fp32_precision API
        cudnn = torch.backends.cudnn
        saved.append((cudnn, 'allow_tf32', cudnn.allow_tf32))
        cudnn.allow_tf32 = False
    try:
        yield
    finally:
        for obj, attr, value in reversed(saved):
            setattr(obj, attr, value)


def _check_batch(images: torch.Tensor) -> None:
    if images.dtype != torch.uint8 or images.dim() != 4 or \
            images.shape[1] != 3:
        raise RobustDetError(
            'corrupt_batch() needs a uint8 N×3×H×W tensor, got '
            f'{images.dtype} of shape {tuple(images.shape)}')
    check_image_size(images.shape[2], images.shape[3])


def _check_hwc(img) -> torch.Tensor:
    if isinstance(img, np.ndarray):
        img = torch.from_numpy(np.ascontiguousarray(img))
    if not isinstance(img, torch.Tensor) or img.dtype != torch.uint8 or \
            img.dim() != 3 or img.shape[2] != 3:
        desc = (f'{img.dtype} of shape {tuple(img.shape)}' if isinstance(
            img, torch.Tensor) else type(img).__name__)
        raise RobustDetError(
            f'corrupt_batch() needs uint8 H×W×3 images, got {desc}')
    check_image_size(img.shape[0], img.shape[1])
    return img


def _check_seeds(seeds: Sequence[int], count: int) -> List[int]:
    seeds = list(seeds)
    if len(seeds) != count:
        raise RobustDetError(
            f'got {len(seeds)} seeds for {count} images; give one per image')
    for seed in seeds:
        if isinstance(seed, bool) or not isinstance(
                seed, (int, np.integer)) or not 0 <= seed < 2**32:
            raise RobustDetError(
                f'seed must be an integer in [0, 2**32), got {seed!r}')
    return [int(s) for s in seeds]


# ---------------------------------------------------------------- noise


def _sample(x: torch.Tensor, tables: Tuple[np.ndarray, np.ndarray],
            seeds: List[int]) -> torch.Tensor:
    """Draw each output level from the distribution of its input level.

    ``tables`` are the fast backend's alias tables (``prob``, ``alias``,
    256×256 each, row = input level): one float64 uniform number per value,
    from a ``torch.Generator`` on the device seeded with the image's seed;
    its integer part (×256) picks a column, its fraction keeps the column
    or takes its alias, as :func:`.kernels.sample_levels` does.
    """
    prob, alias = tables
    prob = on_device(prob, x, torch.float64).reshape(-1)
    alias = on_device(alias, x, torch.uint8).reshape(-1)
    n = 256
    out = torch.empty_like(x)
    for i, seed in enumerate(seeds):
        gen = torch.Generator(device=x.device)
        gen.manual_seed(seed)
        t = torch.rand(
            x[i].shape, generator=gen, dtype=torch.float64,
            device=x.device) * n
        j = t.long().clamp_(max=n - 1)
        cell = x[i].long() * n + j
        keep = (t - j) < prob[cell]
        out[i] = torch.where(keep, j.to(torch.uint8), alias[cell])
    return out


def _noise(tables, x, c, seeds):
    return _sample(x, tables(c), seeds)


# The fast backend's exact per-level output distributions (alias tables).
for _name, _tables in fast.NOISE_TABLES.items():
    _FUNCS[_name] = functools.partial(_noise, _tables)


# ----------------------------------------------------------------- blur


@_register
def gaussian_blur(x, c, seeds):
    return to_uint8(gaussian_filter(x.float(), c))


@_register
def defocus_blur(x, c, seeds):
    kernel = on_device(common.disk_kernel(*c), x)
    r = kernel.shape[0] // 2
    weight = kernel.view(1, 1, *kernel.shape).expand(3, 1, -1, -1)
    padded = pad_hw(x.float(), r, r, 'reflect101')
    return to_uint8(F.conv2d(padded, weight, groups=3))


@_register
def glass_blur(x, c, seeds, host=None):
    sigma, delta, iterations = c
    n, ch, h, w = x.shape
    blurred = gaussian_filter(x.float(), sigma).clamp_(0, 255).to(torch.uint8)
    perm = np.stack([
        d['perm'] for d in host_draws('glass_blur', c, seeds, h, w, host)
    ])
    perm = on_device(perm, x).unsqueeze(1).expand(n, ch, h * w)
    shuffled = blurred.reshape(n, ch, h * w).gather(2, perm)
    shuffled = shuffled.reshape(n, ch, h, w).float()
    return to_uint8(gaussian_filter(shuffled, sigma))


def _motion(layer: torch.Tensor, radius: int, sigma: float,
            angle: float) -> torch.Tensor:
    """The reference ``_motion_blur`` of a C×H×W float tensor."""
    h, w = layer.shape[-2:]
    taps = common.motion_taps(radius, sigma, angle, (h, w))
    out = torch.zeros_like(layer)
    if not taps:
        return out
    pad_x = max(abs(t[0]) for t in taps)
    pad_y = max(abs(t[1]) for t in taps)
    padded = pad_hw(layer, pad_y, pad_x, 'replicate')
    for dx, dy, weight in taps:
        top, left = pad_y - dy, pad_x - dx
        out += weight * padded[..., top:top + h, left:left + w]
    return out


@_register
def motion_blur(x, c, seeds):
    out = torch.empty_like(x)
    for i, seed in enumerate(seeds):
        angle = np.random.RandomState(seed).uniform(-45, 45)
        out[i] = to_uint8(_motion(x[i].float(), c[0], c[1], angle))
    return out


def _zoom_sum(x: torch.Tensor, factors, full: bool = False) -> torch.Tensor:
    """Sum of the reference ``clipped_zoom`` of ``x`` (N×C×H×W) per factor.

    scipy's corner-aligned bilinear zoom of the centred crop, from the
    grids of :func:`.common.zoom_grid`, as two gathers per factor.
    """
    # ``*_in``: 0 where scipy returns its constant 0 (see common.zoom_axis).
    rows, row_w, row_in = common.zoom_grid(x.shape[2], factors, full)
    cols, col_w, col_in = common.zoom_grid(x.shape[3], factors, full)
    rows, cols = on_device(rows, x), on_device(cols, x)
    row_w, row_in = (on_device(a, x, x.dtype) for a in (row_w, row_in))
    col_w, col_in = (on_device(a, x, x.dtype) for a in (col_w, col_in))
    out = x.new_zeros(x.shape[:2] + (rows.shape[1], cols.shape[1]))
    for k in range(len(rows)):
        top = take_along(x, -2, rows[k])
        line = top + row_w[k, :, None] * (take_along(x, -2, rows[k] + 1) - top)
        line *= row_in[k, :, None]
        left = take_along(line, -1, cols[k])
        out += col_in[k] * (
            left + col_w[k] * (take_along(line, -1, cols[k] + 1) - left))
    return out


@_register
def zoom_blur(x, c, seeds):
    factors = np.arange(*c)
    x = x.float() * (1 / 255.)
    x += _zoom_sum(x, factors)
    x *= 255. / (len(factors) + 1)
    return to_uint8(x)


# -------------------------------------------------------------- weather


def _gray(x: torch.Tensor) -> torch.Tensor:
    """OpenCV's RGB -> gray of an N×3×H×W float tensor, N×1×H×W."""
    return 0.299 * x[:, :1] + 0.587 * x[:, 1:2] + 0.114 * x[:, 2:]


@_register
def snow(x, c, seeds, host=None):
    loc, scale, zoom, threshold, radius, sigma, mix = c
    n, _, h, w = x.shape
    layers = []
    for draw in host_draws('snow', c, seeds, h, w, host):
        flakes, angle = draw['flakes'], draw['angle']
        flakes = _zoom_sum(on_device(flakes, x)[None, None], [zoom], True)[0]
        flakes = torch.where(flakes < threshold, 0, flakes).clamp_(0, 1)
        flakes = _motion(flakes, radius, sigma, angle)
        layers.append(torch.round(flakes * 255).to(torch.uint8)[:, :h, :w])
    flakes = torch.stack(layers).float()
    x = x.float()
    x = mix * x + (1 - mix) * torch.maximum(x, _gray(x) * 1.5 + 127.5)
    x += flakes
    x += flakes.flip(2, 3)
    return to_uint8(x)


@_register
def frost(x, c, seeds, host=None):
    n, _, h, w = x.shape
    textures = [
        d['texture'] for d in host_draws('frost', c, seeds, h, w, host)
    ]
    texture = on_device(np.stack(textures), x).permute(0, 3, 1, 2)
    return to_uint8(c[0] * x.float() + c[1] * texture.float())


@_register
def fog(x, c, seeds, host=None):
    n, _, h, w = x.shape
    fractal = np.stack(
        [d['fractal'] for d in host_draws('fog', c, seeds, h, w, host)])
    fractal = on_device(fractal, x)[:, None]
    max_val = x.amax(dim=(1, 2, 3), keepdim=True).double() / 255.
    gain = (max_val / (max_val + c[0])).float()
    out = x.float() + (255. * c[0]) * fractal
    return to_uint8(out * gain)


@_register
def brightness(x, c, seeds):
    # V += c in HSV keeps hue and saturation, and HSV -> RGB is linear in
    # V: every channel scales by min(V + c, 1) / V. Black (V = 0) becomes
    # grey c (see the fast backend).
    x = x.float()
    value = x.amax(dim=1, keepdim=True)
    black = value == 0
    gain = torch.clamp(value + 255. * c, max=255.) / torch.where(
        black, 1., value)
    return to_uint8(torch.where(black, 255. * c, x * gain))


# -------------------------------------------------------------- digital


@_register
def contrast(x, c, seeds):
    means = x.double().mean(dim=(2, 3), keepdim=True)
    return to_uint8(x.float() * c + (means * (1 - c)).float())


@_register
def saturate(x, c, seeds):
    # S -> clip(S a + b) with H and V kept; grey pixels have hue 0 (red).
    # The closed form of the fast backend.
    x = x.float()
    value = x.amax(dim=1, keepdim=True)
    spread = value - x.amin(dim=1, keepdim=True)
    sat = torch.where(value > 0, spread / value.clamp(min=1), 0.)
    new_sat = (sat * c[0] + c[1]).clamp_(0, 1)
    grey = spread == 0
    ratio = torch.where(grey, 0., new_sat / torch.where(grey, 1., sat))
    out = value - ratio * (value - x)
    grey_out = torch.cat([value, value * (1 - new_sat),
                          value * (1 - new_sat)], dim=1)
    return to_uint8(torch.where(grey, grey_out, out))


def _remap_reflect(x: torch.Tensor, dy: torch.Tensor,
                   dx: torch.Tensor) -> torch.Tensor:
    """Bilinear sampling at ``(i + dy, j + dx)``, half-sample reflection.

    scipy's ``map_coordinates(order=1, mode='reflect')``: each of the two
    taps per axis is reflected about the border before interpolating, as
    :func:`.kernels.remap_reflect` does. ``dy``/``dx``: N×H×W.
    """
    n, c, h, w = x.shape
    rows = torch.arange(h, device=x.device, dtype=torch.float64)
    cols = torch.arange(w, device=x.device, dtype=torch.float64)
    y = rows[:, None] + dy.double()
    xx = cols + dx.double()
    y0, x0 = torch.floor(y), torch.floor(xx)
    fy, fx = (y - y0).float()[:, None], (xx - x0).float()[:, None]
    y0, x0 = y0.long(), x0.long()

    def reflect(idx, size):
        idx = idx.remainder(2 * size)
        return torch.where(idx >= size, 2 * size - 1 - idx, idx)

    ya, yb = reflect(y0, h), reflect(y0 + 1, h)
    xa, xb = reflect(x0, w), reflect(x0 + 1, w)
    flat = x.reshape(n, c, h * w)

    def tap(yi, xi):
        idx = (yi * w + xi).reshape(n, 1, h * w).expand(n, c, h * w)
        return flat.gather(2, idx).reshape(n, c, h, w)

    a, b = tap(ya, xa), tap(ya, xb)
    top = a + fx * (b - a)
    a, b = tap(yb, xa), tap(yb, xb)
    bottom = a + fx * (b - a)
    return top + fy * (bottom - top)


@_register
def elastic_transform(x, c, seeds, host=None):
    n, _, h, w = x.shape
    fields = np.stack([
        d['fields']
        for d in host_draws('elastic_transform', c, seeds, h, w, host)
    ])
    kernel_y = common.gaussian_kernel1d(h * 0.01, common.ELASTIC_TRUNCATE)
    kernel_x = common.gaussian_kernel1d(w * 0.01, common.ELASTIC_TRUNCATE)
    # Smoothed in float32 (the fast backend: float64): the displacements
    # move by about 1e-5 pixels, and the convolution is 5× faster.
    fields = sep_filter(
        on_device(fields, x, torch.float32), kernel_y, kernel_x,
        'symmetric') * c
    return to_uint8(_remap_reflect(x.float(), fields[:, 1], fields[:, 0]))


# Canny thresholds, distance cap and emboss kernel of the reference's
# water drops (spatter severities 1-3).
_CANNY_LOW, _CANNY_HIGH = common.SPATTER_CANNY
_DIST_CAP = common.SPATTER_DIST_CAP
_EMBOSS = common.SPATTER_EMBOSS


def _water(layer: torch.Tensor) -> torch.Tensor:
    """The shading of the reference water drops, N×1×H×W float32."""
    dist = chamfer_distance(canny_edges(layer, _CANNY_LOW, _CANNY_HIGH),
                            _DIST_CAP).clamp_(max=_DIST_CAP)
    dist = (box3_sum(dist.double()) * (1 / 9)).float().to(torch.uint8)
    dist = pad_hw(equalize_hist(dist).int(), 1, 1, 'reflect101')
    emboss = torch.zeros_like(layer, dtype=torch.int32)
    for dy, row in enumerate(_EMBOSS):
        for dx, k in enumerate(row):
            if k:
                emboss += k * shifted_view(dist, dy - 1, dx - 1, 1)
    emboss = emboss.clamp_(0, 255)
    # cv2.blur of uint8 rounds (a ninth is never exactly half way).
    return torch.floor(box3_sum(emboss).double() / 9 + 0.5).float()


@_register
def spatter(x, c, seeds, host=None):
    loc, scale, sigma, threshold, strength, mud = c
    n, _, h, w = x.shape
    liquid = np.stack(
        [d['liquid'] for d in host_draws('spatter', c, seeds, h, w, host)])
    liquid = gaussian_filter(on_device(liquid, x)[:, None], sigma)
    liquid = torch.where(liquid < threshold, 0., liquid)
    out = x.float() / 255.
    if not mud:
        layer = (liquid * 255).to(torch.uint8)
        m = layer.float() * _water(layer)
        m = m / m.amax(dim=(2, 3), keepdim=True) * strength
        out += m * on_device(common.SPATTER_WATER, x).view(1, 3, 1, 1)
    else:
        m = gaussian_filter((liquid > threshold).float(), strength)
        m = torch.where(m < 0.8, 0., m)
        mud = on_device(common.SPATTER_MUD, x).view(1, 3, 1, 1)
        out = out * (1 - m) + m * mud
    return to_uint8(out * 255)


@functools.lru_cache(maxsize=64)
def _box_taps(in_size: int, out_size: int) -> Tuple[np.ndarray, np.ndarray]:
    """Pillow's BOX resampling coefficients along one axis.

    Pillow's ``precompute_coeffs`` with the box filter (support 1/2,
    inclusive right edge), normalised and converted to its 22-bit fixed
    point. Returns the source indices and integer weights, ``out × taps``.
    """
    scale = in_size / out_size
    filterscale = max(scale, 1.0)
    support = 0.5 * filterscale
    taps = int(np.ceil(support)) * 2 + 1
    center = (np.arange(out_size) + 0.5) * scale
    xmin = np.maximum((center - support + 0.5).astype(np.int64), 0)
    xmax = np.minimum((center + support + 0.5).astype(np.int64), in_size)
    offsets = np.arange(taps)
    valid = offsets[None] < (xmax - xmin)[:, None]
    pos = (offsets[None] + xmin[:, None] - center[:, None] + 0.5) / filterscale
    weight = ((pos > -0.5) & (pos <= 0.5) & valid).astype(np.float64)
    weight /= weight.sum(axis=1, keepdims=True)
    fixed = (0.5 + weight * (1 << 22)).astype(np.int64)
    index = np.minimum(xmin[:, None] + offsets[None], in_size - 1)
    return index, fixed


@functools.lru_cache(maxsize=64)
def _nearest_index(in_size: int, out_size: int) -> np.ndarray:
    """Pillow's NEAREST source index per output pixel along one axis.

    Pillow steps a double ``(x + 0.5) * in / out`` by repeated addition and
    truncates; the cumulative sum repeats its rounding exactly.
    """
    step = in_size / out_size
    steps = np.full(out_size, step)
    steps[0] = step * 0.5
    return np.minimum(np.cumsum(steps).astype(np.int64), in_size - 1)


def _box_resample(x: torch.Tensor, out_size: int, dim: int) -> torch.Tensor:
    """Pillow's BOX resize of an int64 tensor along ``dim`` (-2 or -1)."""
    index, fixed = _box_taps(x.shape[dim], out_size)
    index, fixed = on_device(index, x), on_device(fixed, x)
    shape = (-1, 1) if dim == -2 else (-1, )
    acc = 1 << 21  # Pillow rounds its 22-bit fixed point
    for k in range(index.shape[1]):
        acc = acc + take_along(x, dim, index[:, k]) * fixed[:, k].view(shape)
    return (acc >> 22).clamp_(0, 255)


@_register
def pixelate(x, c, seeds):
    # Pillow: horizontal pass first, each pass rounded to uint8.
    h, w = x.shape[-2:]
    small = _box_resample(x.long(), int(w * c), -1)
    small = _box_resample(small, int(h * c), -2)
    cols = on_device(_nearest_index(small.shape[-1], w), x)
    rows = on_device(_nearest_index(small.shape[-2], h), x)
    small = take_along(take_along(small, -1, cols), -2, rows)
    return small.to(torch.uint8)


@_register
def jpeg_compression(x, c, seeds, host=None):
    # No JPEG codec on the device: Pillow's libjpeg on the CPU, as the
    # fast backend (and the reference) does it; in the dataloader workers
    # when they gave the result (host).
    out = []
    for i, given in enumerate(host or [None] * len(x)):
        if given is None:
            img = np.ascontiguousarray(x[i].permute(1, 2, 0).cpu().numpy())
            given = host_image_step('jpeg_compression', img, c)
        out.append(given['image'])
    return on_device(np.stack(out), x).permute(0, 3, 1, 2).contiguous()
