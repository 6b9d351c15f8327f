# Copyright (c) robustdet contributors. All rights reserved.
"""``corrupt``: the one public entry point for image corruptions."""
from typing import Callable, Dict, Optional, Tuple

import numpy as np

from ..utils.errors import RobustDetError
from .reference import corrupt_reference
# CHANNEL_ORDERS and MIN_SIDE were defined here; kept for code that reads
# them from this module.
from .table import (CHANNEL_ORDERS, DEFAULT_CALIBRATION,  # noqa: F401
                    MIN_SIDE, check_channel_order, check_image_size,
                    check_severity, get_corruption)


def _fast(img: np.ndarray, name: str, severity: int,
          seed: int) -> np.ndarray:
    # Imported on first use: it compiles (or loads) numba kernels.
    from .fast import corrupt_fast
    return corrupt_fast(img, name, severity, seed)


def _torch(img: np.ndarray,
           name: str,
           severity: int,
           seed: int,
           depth: Optional[np.ndarray] = None,
           calibration: str = DEFAULT_CALIBRATION) -> np.ndarray:
    # Imported on first use: it imports torch. Runs on the device named by
    # ROBUSTDET_TORCH_DEVICE (default cpu); batches: torch_backend.
    from .torch_backend import corrupt_torch
    return corrupt_torch(img, name, severity, seed, depth=depth,
                         calibration=calibration)


def _cbar(img: np.ndarray, name: str, severity: int,
          seed: int) -> np.ndarray:
    from .cbar import corrupt_cbar
    return corrupt_cbar(img, name, severity, seed)


def _3dcc(img: np.ndarray,
          name: str,
          severity: int,
          seed: int,
          depth: Optional[np.ndarray] = None,
          calibration: str = DEFAULT_CALIBRATION) -> np.ndarray:
    from .threedcc import corrupt_3dcc
    return corrupt_3dcc(img, name, severity, seed, depth=depth,
                        calibration=calibration)


# backend name -> function(rgb_img, name, severity, seed) -> rgb_img, for
# the 19 of imagecorruptions.
BACKENDS: Dict[str, Callable[..., np.ndarray]] = {
    'reference': corrupt_reference,
    'fast': _fast,
    'torch': _torch,
}
# The newer families have one definition on the CPU, this package's
# (:mod:`.cbar`, :mod:`.threedcc`; their sources have no code that runs at
# a detector's resolution), which the reference and fast backends both
# run; the torch backend has its own port of it (.torch_cbar,
# .torch_threedcc).
CPU_FAMILIES: Dict[str, Callable[..., np.ndarray]] = {
    'cbar': _cbar,
    '3dcc': _3dcc,
}
# The fast backend passes the fidelity tests against the reference for all
# 19 corruptions (tests/test_corruptions/test_fast_backend.py).
DEFAULT_BACKEND = 'fast'
# The corruptions whose pixels, per CPU backend, depend on the CPU that
# computes them. The fast backend has none: its float filters are numba
# loops in an order fixed per pixel (.kernels), frost's texture resize is
# exact integer arithmetic, and every other step is integer work or an
# elementwise float operation that IEEE arithmetic rounds one way on any
# x86-64 CPU, whatever numpy, OpenCV and numba dispatch to.
#
# The reference backend runs the imagecorruptions package, which calls
# code that does depend on the CPU:
#
# * OpenCV's float code and Intel IPP, which picks its own kernels for the
#   CPU (``cv2.setUseOptimized(False)`` turns both IPP and OpenCV's vector
#   code off): defocus_blur (GaussianBlur and filter2D in float), snow
#   (cvtColor in float), frost (a bicubic resize that IPP rounds its own
#   way) and spatter (distanceTransform). defocus_blur differs already
#   with the CPU held back a generation, in a pixel in 10**5 of a photo.
# * numpy's AVX-512 code for ``np.exp`` in float64, which rounds
#   differently from its AVX2 and scalar code: motion_blur's kernel, on
#   an AVX-512 CPU with numpy's AVX-512 code turned off or the CPU held
#   back (a grey level in 0.6 % of the values of a small test image).
#
# The newer families (both CPU backends run one definition) have none
# either: the sines, arctangents and powers of five C-bar corruptions are
# computed with :mod:`.portable`, not numpy's dispatched float32 kernels.
#
# tests/test_corruptions/test_cpu_identical.py holds every other cell of
# the table to identical pixels across CPU settings.
CPU_DEPENDENT: Dict[str, Tuple[str, ...]] = {
    'fast': (),
    'reference': ('defocus_blur', 'motion_blur', 'snow', 'frost', 'spatter'),
}


def corrupt(img: np.ndarray,
            name: str,
            severity: int,
            seed: int = 0,
            backend: str = DEFAULT_BACKEND,
            channel_order: str = 'rgb',
            depth: Optional[np.ndarray] = None,
            depth_calibration: str = DEFAULT_CALIBRATION) -> np.ndarray:
    """Corrupt an image as in the PASCAL-C / COCO-C / Cityscapes-C benchmark
    or one of the newer families (C-bar, 3DCC).

    The result depends only on the arguments: the same image, name,
    severity and seed give the same pixels in any process. Global RNG
    state is neither read nor changed. Callers that corrupt many images
    should derive ``seed`` per image with
    :func:`robustdet.utils.derive_seed` (the dataset wrappers do).

    Args:
        img (np.ndarray): uint8 image, RGB H×W×3 or grayscale H×W, at least
            32 pixels on each side.
        name (str): Corruption name, see
            :data:`robustdet.corruptions.CORRUPTION_NAMES`.
        severity (int): 1-5; 0 returns a copy of the image.
        seed (int): Seed in ``[0, 2**32)``.
        backend (str): ``'fast'`` (default; numpy/OpenCV, same
            definitions, pixels within a grey level of the reference except
            for the noises, which have the reference's distribution) or
            ``'reference'`` (the imagecorruptions package, for exact
            reproduction of published numbers) or ``'torch'`` (the fast
            backend's definitions in torch, on the device named by the
            environment variable ``ROBUSTDET_TORCH_DEVICE``, default
            ``'cpu'``; batches on a GPU:
            :func:`robustdet.corruptions.torch_backend.corrupt_batch`).
        channel_order (str): The order of the channels the corruption is
            defined on. ``'rgb'`` (default) applies the published
            definitions. ``'bgr'`` applies them to the channels reversed,
            which is what mmdet's ``Corrupt`` transform does to the BGR
            arrays mmdet loads (frost, snow, fog, jpeg, saturate... then
            differ from the published corruptions); use it only to
            reproduce numbers obtained with mmdet's ``test_robustness.py``.
        depth (np.ndarray, optional): H×W depth, for the corruptions that
            need it (fog_3d, near_focus, far_focus); unknown where not
            finite or not positive.
        depth_calibration (str): How that depth is normalised:
            ``'taskonomy'`` (default: metres, as 3DCC's source),
            ``'midas'`` (the inverse of a monocular network's raw output)
            or ``'percentile'`` (per image); see
            :mod:`robustdet.corruptions.threedcc`.

    Returns:
        np.ndarray: uint8 array of the same shape. Grayscale input is
        corrupted as a 3-channel gray image and converted back with the
        ITU-R 601 luma weights.
    """
    entry = get_corruption(name)
    check_severity(severity, allow_clean=True)
    if backend not in BACKENDS:
        raise RobustDetError(f'unknown corruption backend {backend!r}; '
                             f'valid: {", ".join(BACKENDS)}')
    check_channel_order(channel_order)
    if not isinstance(seed, (int, np.integer)) or not 0 <= seed < 2**32:
        raise RobustDetError(f'seed must be an integer in [0, 2**32), got '
                             f'{seed!r}')
    img = _check_image(img)
    if severity == 0:
        return img.copy()
    gray = img.ndim == 2
    rgb = np.repeat(img[..., None], 3, axis=2) if gray else img
    if channel_order == 'bgr':
        rgb = rgb[..., ::-1]
    fn = BACKENDS[backend]
    if backend != 'torch' and entry.family in CPU_FAMILIES:
        fn = CPU_FAMILIES[entry.family]
    kwargs = dict(
        depth=depth,
        calibration=depth_calibration) if entry.needs_depth else {}
    out = fn(np.ascontiguousarray(rgb), name, severity, int(seed), **kwargs)
    if channel_order == 'bgr':
        out = out[..., ::-1]
    if gray:
        out = _to_gray(out)
    return np.ascontiguousarray(out)


def _check_image(img: np.ndarray) -> np.ndarray:
    if not isinstance(img, np.ndarray) or img.dtype != np.uint8:
        raise RobustDetError(
            'corrupt() needs a uint8 numpy image, got '
            f'{getattr(img, "dtype", type(img).__name__)}')
    if img.ndim == 3 and img.shape[2] == 1:
        img = img[..., 0]
    if not (img.ndim == 2 or (img.ndim == 3 and img.shape[2] == 3)):
        raise RobustDetError(
            f'corrupt() needs an H×W×3 or H×W image, got shape {img.shape}')
    check_image_size(*img.shape[:2])
    return img


def _to_gray(rgb: np.ndarray) -> np.ndarray:
    weights = np.array([0.299, 0.587, 0.114])
    return np.clip(np.rint(rgb.astype(np.float64) @ weights), 0,
                   255).astype(np.uint8)
