# Copyright (c) robustdet contributors. All rights reserved.
"""Backend-independent pieces of the corruption definitions.

The reference definitions (imagecorruptions, after Hendrycks & Dietterich
2019) fix more than the severity parameters of :mod:`.table`: the kernel
of defocus_blur, the tap positions of motion_blur, the crop and the
corner-aligned sampling grid of zoom_blur (``scipy.ndimage.zoom``), the
frost textures and how they are scaled, the plasma fractal of fog and the
order in which each corruption draws random numbers. The fast and torch
backends take all of these from here, so the two cannot drift apart.
"""
import functools
import importlib.resources
import math
from typing import List, Tuple

import cv2
import numpy as np

from . import kernels
from .table import get_corruption

# Truncation of the Gaussian kernels (scipy.ndimage.gaussian_filter and
# hence skimage.filters.gaussian default to 4 standard deviations).
GAUSSIAN_TRUNCATE = 4.0
# elastic_transform smooths its displacement fields with truncate=3.
ELASTIC_TRUNCATE = 3.0
FROST_FILES = ('frost1.png', 'frost2.png', 'frost3.png', 'frost4.jpg',
               'frost5.jpg', 'frost6.jpg')


# spatter: the water drops (severities 1-3) are the edges (Canny, these
# thresholds) of the liquid mask shaded by an embossed distance map capped
# at SPATTER_DIST_CAP; colours are added to the channels in array order.
# The water colour is pale turquoise in BGR, but the reference feeds it RGB
# arrays, so on screen the drops come out pale pink; mud is brown in RGB.
SPATTER_CANNY = (50, 150)
SPATTER_DIST_CAP = 20.
SPATTER_EMBOSS = ((-2, -1, 0), (-1, 1, 1), (0, 1, 2))
SPATTER_WATER = np.array([175, 238, 238], np.float32) / 255.
SPATTER_MUD = np.array([63, 42, 20], np.float32) / 255.


def params(name: str, severity: int):
    """The table parameters of ``name`` at ``severity``."""
    return get_corruption(name).severity_params(severity)


def gaussian_kernel1d(sigma: float, truncate: float) -> np.ndarray:
    """The normalised 1-D kernel of ``scipy.ndimage.gaussian_filter1d``.

    Args:
        sigma (float): Standard deviation in pixels.
        truncate (float): Radius in standard deviations.

    Returns:
        np.ndarray: float64 kernel of length ``2 * int(truncate * sigma +
        0.5) + 1``.
    """
    radius = int(truncate * float(sigma) + 0.5)
    # math.exp, not np.exp: numpy's exp has AVX-512 code whose last bit
    # differs from the C library's.
    k = np.array([
        math.exp(-0.5 * (x / sigma)**2) for x in range(-radius, radius + 1)
    ])
    return k / k.sum()


@functools.lru_cache(maxsize=None)
def disk_kernel(radius: int, alias_blur: float) -> np.ndarray:
    """The anti-aliased disk of defocus_blur, as the reference builds it.

    Args:
        radius (int): Disk radius in pixels.
        alias_blur (float): Sigma of the anti-aliasing Gaussian.

    Returns:
        np.ndarray: float32 kernel (17×17 up to radius 8, else
        ``2 * radius + 1`` square), read-only.
    """
    half = 8 if radius <= 8 else radius
    ksize = 3 if radius <= 8 else 5
    coords = np.arange(-half, half + 1)
    xx, yy = np.meshgrid(coords, coords)
    disk = np.array((xx**2 + yy**2) <= radius**2, dtype=np.float32)
    disk /= np.sum(disk)
    # cv2.GaussianBlur(disk, (ksize, ksize), alias_blur) (BORDER_REFLECT_101
    # and cv2.getGaussianKernel's weights), in float64 with numpy: OpenCV's
    # float32 filter rounds differently on each CPU.
    offsets = [i - (ksize - 1) / 2 for i in range(ksize)]
    weights = np.array([
        math.exp(-0.5 / alias_blur**2 * x * x) for x in offsets
    ])
    weights /= weights.sum()
    r = ksize // 2
    kernel = np.pad(disk.astype(np.float64), r, mode='reflect')
    for axis in (0, 1):
        kernel = sum(
            w * np.take(kernel, np.arange(i, i + disk.shape[axis]), axis)
            for i, w in enumerate(weights))
    kernel = kernel.astype(np.float32)
    kernel.setflags(write=False)
    return kernel


def motion_taps(radius: int, sigma: float, angle: float,
                shape: Tuple[int, int]) -> List[Tuple[int, int, float]]:
    """The taps of the reference motion blur.

    The reference adds ``kernel[i] * shift(image, dx_i, dy_i)`` for
    ``i < 2 * radius + 1`` and stops (without renormalising) at the first
    shift that reaches the image border. ``shift`` moves the image by
    ``(dx, dy)`` and repeats the edge, so the result is
    ``sum_i w_i * image[clamp(y - dy_i), clamp(x - dx_i)]``.

    Args:
        radius (int): Kernel radius (width ``2 * radius + 1``).
        sigma (float): Sigma of the one-sided Gaussian weights.
        angle (float): Direction in degrees.
        shape (tuple[int, int]): Image height and width.

    Returns:
        list[tuple[int, int, float]]: ``(dx, dy, weight)`` per tap.
    """
    width = 2 * radius + 1
    # math, not numpy: numpy's exp, sin and cos have AVX-512 code whose
    # last bit differs from the C library's.
    k = np.array([math.exp(-i**2 / (2 * sigma**2)) for i in range(width)
                  ]) / (math.sqrt(2 * math.pi) * sigma)
    k = k / np.sum(k)
    point = (width * math.sin(math.radians(angle)),
             width * math.cos(math.radians(angle)))
    hypot = math.hypot(point[0], point[1])
    taps = []
    for i in range(width):
        dy = -math.ceil(((i * point[0]) / hypot) - 0.5)
        dx = -math.ceil(((i * point[1]) / hypot) - 0.5)
        if abs(dy) >= shape[0] or abs(dx) >= shape[1]:
            break
        taps.append((dx, dy, float(k[i])))
    return taps


def zoom_axis(length: int,
              factor: float,
              full: bool = False) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Sampling grid of the reference ``clipped_zoom`` along one axis.

    The reference crops the centred ``ceil(length / factor)`` pixels,
    enlarges them with ``scipy.ndimage.zoom(order=1)`` to ``round(crop *
    factor)`` pixels and keeps the first ``length``. scipy's zoom aligns
    the corner pixels (output ``o`` samples input ``o * (crop - 1) / (out -
    1)``), unlike OpenCV's pixel-centre resize, so the grid is built here.
    scipy (mode 'constant') returns 0 for a sample whose coordinate exceeds
    ``crop - 1``; float rounding makes that happen to the last sample for
    some sizes, which leaves a black last row or column in that zoom layer
    of the reference.

    Args:
        length (int): Image size along the axis.
        factor (float): Zoom factor (> 1).
        full (bool): Return the whole enlarged crop (``round(crop *
            factor)`` pixels) instead of its first ``length``, as snow
            uses it.

    Returns:
        tuple[np.ndarray, np.ndarray, np.ndarray]: For each output pixel,
        the index of its first source pixel in the uncropped image (intp,
        the second is the next one), the weight of the second (float64),
        and 1 where scipy samples the image, 0 where it returns its
        constant 0 (float64).
    """
    crop = int(np.ceil(length / float(factor)))
    top = (length - crop) // 2
    out = int(round(crop * factor))
    size = out if full else length
    if out > 1 and crop > 1:
        src = np.arange(size, dtype=np.float64) * ((crop - 1) / (out - 1))
    else:
        src = np.zeros(size, dtype=np.float64)
    first = np.minimum(np.floor(src).astype(np.intp), max(crop - 2, 0))
    weight = src - first
    inside = (src <= max(crop - 1, 0)).astype(np.float64)
    return first + top, weight, inside


def zoom_grid(length: int,
              factors,
              full: bool = False) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`zoom_axis` for several factors, stacked (factors first)."""
    axes = [zoom_axis(length, f, full) for f in factors]
    return tuple(
        np.ascontiguousarray(np.stack([a[i] for a in axes]))
        for i in range(3))


@functools.lru_cache(maxsize=None)
def frost_texture(index: int) -> np.ndarray:
    """One of the six frost photographs of the reference, BGR uint8."""
    ref = importlib.resources.files('imagecorruptions') / 'frost' / \
        FROST_FILES[index]
    with importlib.resources.as_file(ref) as path:
        img = cv2.imread(str(path))
    if img is None:
        raise FileNotFoundError(f'cannot read the frost texture {ref}')
    img.setflags(write=False)
    return img


# Two image sizes' worth of the six textures: a dataset of one size (VOC-
# like, Cityscapes) always hits; one of many sizes (COCO) misses as the
# reference does, without holding many large textures per worker.
@functools.lru_cache(maxsize=12)
def frost_rescaled(index: int, height: int, width: int) -> np.ndarray:
    """The frost texture scaled as the reference scales it for an image.

    The texture is enlarged (bicubic, OpenCV) until it covers the image,
    then by another 10 %. Read-only RGB uint8; cached per image size.
    """
    frost = frost_texture(index)
    fh, fw = frost.shape[:2]
    scale = 1.0
    if fh < height and fw >= width:
        scale = height / fh
    elif fh >= height and fw < width:
        scale = width / fw
    elif fh < height and fw < width:
        scale = max(height / fh, width / fw)
    scale *= 1.1
    width_out, height_out = int(np.ceil(fw * scale)), int(np.ceil(fh * scale))
    cols, col_w = cubic_taps(fw, width_out)
    rows, row_w = cubic_taps(fh, height_out)
    # Taps and weights per value of a flattened row (three channels).
    taps = (cols.T[:, :, None] * 3 + np.arange(3)).reshape(4, -1)
    tap_w = np.repeat(col_w.T, 3, axis=1).astype(np.float64)
    out = np.empty((height_out, width_out, 3), np.uint8)
    kernels.resize_cubic(frost, taps.astype(np.int32), tap_w, rows,
                         row_w.astype(np.float64), out)
    out = np.ascontiguousarray(out[..., ::-1])
    out.setflags(write=False)
    return out


def cubic_taps(src: int, dst: int) -> Tuple[np.ndarray, np.ndarray]:
    """Taps and integer weights of OpenCV's bicubic resize along one axis.

    OpenCV's coordinates and coefficients (``cv::resize`` with
    ``INTER_CUBIC``, A = -0.75, in float32, scaled by 2**11 and rounded
    to the nearest even), with the edge pixels repeated.

    Args:
        src (int): Source length.
        dst (int): Output length.

    Returns:
        tuple[np.ndarray, np.ndarray]: ``(dst, 4)`` source indices (intp)
        and weights (int32, summing to about 2**11).
    """
    scale = 1. / (dst / src)
    pos = ((np.arange(dst) + 0.5) * scale - 0.5).astype(np.float32)
    first = np.floor(pos)
    x = pos - first
    a, one = np.float32(-0.75), np.float32(1)
    x1 = x + one
    c0 = ((a * x1 - np.float32(5) * a) * x1 + np.float32(8) * a) * x1 - \
        np.float32(4) * a
    c1 = ((a + np.float32(2)) * x - (a + np.float32(3))) * x * x + one
    y = one - x
    c2 = ((a + np.float32(2)) * y - (a + np.float32(3))) * y * y + one
    c3 = one - c0 - c1 - c2
    coeffs = np.stack([c0, c1, c2, c3], axis=1) * np.float32(2048)
    weights = np.rint(coeffs).astype(np.int32)
    taps = first.astype(np.intp)[:, None] + np.arange(-1, 3)
    return np.ascontiguousarray(np.clip(taps, 0, src - 1)), weights


def frost_draw(rng: np.random.RandomState, height: int,
               width: int) -> Tuple[int, int, int]:
    """Draw frost's texture index and crop origin in the reference order.

    Returns:
        tuple[int, int, int]: Texture index, crop top, crop left.
    """
    index = int(rng.randint(6))
    frost = frost_rescaled(index, height, width)
    top = int(rng.randint(0, frost.shape[0] - height))
    left = int(rng.randint(0, frost.shape[1] - width))
    return index, top, left


def plasma_fractal(rng: np.random.RandomState, mapsize: int,
                   wibbledecay: float) -> np.ndarray:
    """Diamond-square height map in [0, 1], drawing as the reference does.

    The reference fog draws its fractal from numpy's global generator;
    given a :class:`numpy.random.RandomState` seeded alike, this makes the
    same draws in the same order, so the map is the reference's.

    Args:
        rng (np.random.RandomState): The generator.
        mapsize (int): Side, a power of two.
        wibbledecay (float): Factor by which the noise amplitude shrinks
            per level.

    Returns:
        np.ndarray: float32 ``mapsize × mapsize`` map.
    """
    grid = np.zeros((mapsize, mapsize), dtype=np.float32)
    step = mapsize
    wibble = 100.0
    while step >= 2:
        # One call per level: the draws the reference makes in three
        # calls of uniform(-wibble, wibble), in the same order.
        n = mapsize // step
        kernels.plasma_level(grid, step, wibble,
                             rng.random_sample(3 * n * n))
        step //= 2
        wibble /= wibbledecay
    grid -= grid.min()
    return grid / grid.max()


def glass_shuffle(img: np.ndarray, delta: int, iterations: int,
                  seed: int) -> np.ndarray:
    """The reference glass_blur pixel shuffle of an H×W×C uint8 array.

    The reference draws ``dx, dy`` per pixel with numba's
    ``np.random.randint(-delta, delta)`` after seeding numba's generator
    with ``seed``; numba's generator is numpy's legacy Mersenne Twister, so
    :class:`numpy.random.RandomState` gives the same numbers, drawn here a
    pass at a time (vectorised) for the compiled copy loop.

    Args:
        img (np.ndarray): C-contiguous uint8 array, shuffled in place.
        delta (int): Largest displacement.
        iterations (int): Number of passes.
        seed (int): The seed.

    Returns:
        np.ndarray: ``img``.
    """
    rng = np.random.RandomState(seed)
    rows = max(img.shape[0] - 2 * delta, 0)
    cols = max(img.shape[1] - 2 * delta, 0)
    for _ in range(iterations):
        offsets = rng.randint(-delta, delta, size=2 * rows * cols,
                              dtype=np.int32)
        kernels.glass_pass(img, offsets, delta)
    return img


def next_power_of_2(x: int) -> int:
    """The smallest power of two ``>= x`` (1 for 0)."""
    return 1 if x == 0 else 2**(x - 1).bit_length()
