# Copyright (c) robustdet contributors. All rights reserved.
"""The size rule and pixel grids shared by the ImageNet-C-bar corruptions
(:mod:`.cbar`, :mod:`.cbar_caustic`): lengths of the source's 224×224
image times ``k = sqrt(H * W) / 224`` (see :mod:`.cbar`)."""
import math
from typing import Tuple

import numpy as np

REFERENCE_SIZE = 224

TWO_PI = 2.0 * math.pi


def effective_scale(height: int, width: int) -> float:
    """The length factor ``k = sqrt(H * W) / REFERENCE_SIZE``.

    Args:
        height (int): Image height in pixels.
        width (int): Image width in pixels.

    Returns:
        float: Native pixels per pixel of the source's 224×224 image.
    """
    return math.sqrt(height * width) / REFERENCE_SIZE


def float_parameter(level: float, maxval: float) -> float:
    """The source's map from severity level (0-10) to a parameter."""
    return float(level) * maxval / 10.0


def add_noise(img: np.ndarray, noise: np.ndarray) -> np.ndarray:
    """``uint8(clip(img + noise, 0, 255))`` (truncating, as the source);
    ``noise`` is H×W (added to every channel) or H×W×3."""
    if noise.ndim == 2:
        noise = noise[..., None]
    out = img + noise.astype(np.float32, copy=False)
    np.clip(out, 0, 255, out=out)
    return out.astype(np.uint8)


def grid(h: int, w: int) -> Tuple[np.ndarray, np.ndarray]:
    """Row coordinates (H×1) and column coordinates (1×W), float32."""
    return (np.arange(h, dtype=np.float32)[:, None],
            np.arange(w, dtype=np.float32)[None, :])


def frac(x: np.ndarray) -> np.ndarray:
    """``x mod 1`` (non-negative), faster than ``np.mod``."""
    return x - np.floor(x)


# Pixels per block of rows in the per-pixel pipelines: their float32
# temporaries (64 KiB) stay in cache and below malloc's mmap threshold,
# where whole-image temporaries are mapped and page-faulted anew each
# time (which doubled the time of caustic_refraction).
STRIP_PIXELS = 1 << 14


def strips(h: int, w: int):
    """Slices of consecutive rows of about ``STRIP_PIXELS`` pixels."""
    rows = max(1, STRIP_PIXELS // w)
    for start in range(0, h, rows):
        yield slice(start, min(h, start + rows))
