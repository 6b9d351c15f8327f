# Copyright (c) robustdet contributors. All rights reserved.
"""ImageNet-C-bar's caustic_refraction (see :mod:`.cbar`): a lens whose
surface is a smoothed caustic pattern refracts the image, plus the
surface's lighting."""

import numpy as np
from scipy import ndimage

from .cbar_grid import REFERENCE_SIZE, effective_scale
from .cbar_grid import float_parameter as _float_parameter
from .cbar_grid import frac as _frac
from .cbar_grid import grid as _grid
from .cbar_grid import strips as _strips
from .cbar_kernels import caustic_pattern


def sample_caustic_refraction(rng, level, h, w):
    """caustic_refraction's parameters, drawn as the source draws them.

    Args:
        rng (np.random.Generator): The image's generator.
        level (float): The severity's level in [0, 1].
        h (int): Image height.
        w (int): Image width.

    Returns:
        dict: The parameters, in native pixels.
    """
    k = effective_scale(h, w)
    return dict(
        time=rng.uniform(0.5, 2.0),
        size=rng.uniform(0.75, 1.25) * REFERENCE_SIZE * k,
        eta=4.0,
        lens_scale=_float_parameter(level, 0.5 * REFERENCE_SIZE) * k,
        lighting_amount=_float_parameter(level, 2.0),
        softening=1.0 * k,
        # The lens normal and the lighting use central differences per
        # reference pixel (native difference times k).
        gradient_scale=k)


def _caustic_pattern(h, w, time, size):
    """The source's caustic noise kernel on the H×W grid, float32 H×W in
    [0, 1] (:func:`.cbar_kernels.caustic_pattern`): ``p = ((row, column)
    / size mod 1) * 2 pi - 250``."""
    p0 = _frac(np.arange(h) / size) * 6.28318530718 - 250.0
    p1 = _frac(np.arange(w) / size) * 6.28318530718 - 250.0
    out = np.empty((h, w), np.float32)
    caustic_pattern(p0, p1, float(time), out)
    return out


def _zero_padded_planes(img: np.ndarray) -> np.ndarray:
    """The channels of ``img`` as float32 planes, C×(H+3)×(W+3), with one
    row and column of zeros before and two after."""
    h, w, channels = img.shape
    planes = np.zeros((channels, h + 3, w + 3), np.float32)
    planes[:, 1:h + 1, 1:w + 1] = np.moveaxis(img, 2, 0)
    return planes


def _bilinear_planes(planes: np.ndarray, py: np.ndarray,
                     px: np.ndarray) -> np.ndarray:
    """Bilinear samples at (py, px) of the image whose planes are
    ``planes`` (:func:`_zero_padded_planes`), zero outside it, as the
    source's ``bilinear_interpolation``: float32, ``py.shape + (C, )``.

    Coordinates are clamped to [-1, size], where every corner read is
    already zero; then four gathers per channel.
    """
    channels, h, stride = planes.shape
    h, w = h - 3, stride - 3
    y = np.clip(py, -1, h)
    x = np.clip(px, -1, w)
    y0 = np.floor(y)
    x0 = np.floor(x)
    wy = y - y0
    wx = x - x0
    i00 = (y0.astype(np.intp) + 1) * stride + (x0.astype(np.intp) + 1)
    i01 = i00 + 1
    i10 = i00 + stride
    i11 = i10 + 1
    out = np.empty(py.shape + (channels, ), np.float32)
    for c, plane in enumerate(planes):
        flat = plane.reshape(-1)
        top = flat.take(i00)
        top += wx * (flat.take(i01) - top)
        bottom = flat.take(i10)
        bottom += wx * (flat.take(i11) - bottom)
        top += wy * (bottom - top)
        out[..., c] = top
    return out


def _bilinear_zero(img: np.ndarray, py: np.ndarray,
                   px: np.ndarray) -> np.ndarray:
    """Bilinear samples of an H×W×C ``img`` at (py, px), zero outside."""
    return _bilinear_planes(_zero_padded_planes(img), py, px)


def _lens_gradients(padded: np.ndarray, scale: float, strip: slice):
    """Central differences (row, column) of the lens surface on the rows
    ``strip``, per reference pixel (native difference times ``scale``).

    ``padded`` is the surface with one row and column of zeros around
    it: the source's ``luma_at_offset`` reads 0 outside the image (a
    one-pixel frame of strong gradients).
    """
    k = np.float32(scale)
    start, stop = strip.start + 1, strip.stop + 1
    grow = (padded[start + 1:stop + 1, 1:-1] -
            padded[start - 1:stop - 1, 1:-1]) * k
    gcol = (padded[start:stop, 2:] - padded[start:stop, :-2]) * k
    return grow, gcol


def _refraction_offsets(grow: np.ndarray, gcol: np.ndarray, eta: float,
                        lens_scale: float):
    """In-plane displacement (row, column) of the refracted ray.

    The source refracts the vertical ray at the normal ``n = (grow, gcol,
    1) / |.|`` (Snell, index ``eta``) by building a rotation matrix per
    pixel, and takes ``lens_scale`` times the first two components of
    the result, rounded to 3 decimals. That is ``sin(a - a') u`` with
    ``a = acos(nz)``, ``sin a' = sin a / eta`` and ``u`` the unit
    gradient direction, i.e. ``lens_scale * nz * (sqrt(1 - rho^2 /
    eta^2) - nz / eta) * (grow, gcol)`` with ``rho = |gradient| nz``;
    where ``nz >= 0.999`` the source leaves the ray vertical.
    """
    g2 = grow * grow + gcol * gcol
    nz = 1.0 / np.sqrt(1.0 + g2)
    eta = np.float32(eta)
    factor = np.float32(lens_scale) * nz * (
        np.sqrt(1.0 - g2 * nz * nz / (eta * eta)) - nz / eta)
    factor[nz >= 0.999] = 0.0
    return np.round(factor * grow, 3), np.round(factor * gcol, 3)


def caustic_refraction_pixels(img, p):
    """caustic_refraction of an RGB uint8 image with parameters ``p``
    (:func:`sample_caustic_refraction`).

    Args:
        img (np.ndarray): H×W×3 uint8 image.
        p (dict): The drawn parameters.

    Returns:
        np.ndarray: The corrupted image, uint8 H×W×3.
    """
    # A lens whose surface is the smoothed caustic pattern: each pixel
    # samples the image (bilinear, zero outside) where the refracted ray
    # lands, plus the lighting lighting_amount * (d/drow - d/dcol) of the
    # surface (the source's (east - west) + (north - south), its "north"
    # being the column before).
    h, w = img.shape[:2]
    caustic = _caustic_pattern(h, w, p['time'], p['size'])
    caustic = ndimage.gaussian_filter(caustic, sigma=p['softening'])
    padded = np.pad(caustic, 1)
    planes = _zero_padded_planes(img)
    ys, xs = _grid(h, w)
    lighting = np.float32(255.0 * p['lighting_amount'])
    out = np.empty_like(img)
    for strip in _strips(h, w):
        grow, gcol = _lens_gradients(padded, p['gradient_scale'], strip)
        drow, dcol = _refraction_offsets(grow, gcol, p['eta'],
                                         p['lens_scale'])
        sample = _bilinear_planes(planes, ys[strip] + drow, xs + dcol)
        sample += (lighting * (grow - gcol))[..., None]
        np.clip(sample, 0, 255, out=sample)
        out[strip] = sample
    return out
