# Copyright (c) robustdet contributors. All rights reserved.
"""Camera-motion clip corruptions: static rotation, dynamic rotation and
translation shake (Schiappa et al. 2023).

Each frame is warped with ``cv2.warpAffine`` (bilinear) to the same size;
pixels coming from outside the input are filled with black (constant 0),
not reflected, because a reflection would show mirrored copies of objects
that have no ground-truth box. ``ClipResult.transforms[t]`` is the (3, 3)
affine map from input to output *box* coordinates, in which pixel
``(row i, column j)`` covers ``[j, j + 1) x [i, i + 1)`` (the mmdet box
convention); pass it to :func:`robustdet.video.boxes.transform_boxes`.
Rotations are about the image centre ``(W / 2, H / 2)`` in those
coordinates; a positive angle turns the content counter-clockwise on
screen (OpenCV's convention).
"""
import cv2
import numpy as np

from robustdet.utils.seeding import derive_seed
from .types import SCHIAPPA_2023, ClipCorruption, ClipResult, after, check_clip

# Pixel centres are at integer coordinates for OpenCV and at +0.5 in box
# coordinates: box = _TO_BOX @ cv2_pixel.
_TO_BOX = np.array([[1, 0, 0.5], [0, 1, 0.5], [0, 0, 1]], dtype=np.float64)
_FROM_BOX = np.linalg.inv(_TO_BOX)


def rotation_matrix(angle: float, width: int, height: int) -> np.ndarray:
    """(3, 3) rotation about the image centre in box coordinates.

    Args:
        angle (float): Degrees, positive is counter-clockwise on screen.
        width (int): Image width.
        height (int): Image height.

    Returns:
        np.ndarray: (3, 3) float64 affine matrix.
    """
    m = cv2.getRotationMatrix2D((width / 2.0, height / 2.0), float(angle),
                                1.0)
    return np.vstack([m, [0.0, 0.0, 1.0]])


def translation_matrix(dx: float, dy: float) -> np.ndarray:
    """(3, 3) translation by ``(dx, dy)`` pixels.

    Args:
        dx (float): Shift to the right.
        dy (float): Shift down.

    Returns:
        np.ndarray: (3, 3) float64 affine matrix.
    """
    return np.array([[1.0, 0.0, dx], [0.0, 1.0, dy], [0.0, 0.0, 1.0]])


def warp_clip(frames: np.ndarray, transforms: np.ndarray) -> ClipResult:
    """Warp every frame by its box-coordinate transform.

    Args:
        frames (np.ndarray): (T, H, W, 3) uint8 clip.
        transforms (np.ndarray): (T, 3, 3) maps from input to output box
            coordinates.

    Returns:
        ClipResult: Warped frames (black border), identity
        ``source_index`` and ``transforms``.
    """
    t, h, w = frames.shape[:3]
    out = np.empty_like(frames)
    for i in range(t):
        m = (_FROM_BOX @ transforms[i] @ _TO_BOX)[:2]
        out[i] = cv2.warpAffine(
            frames[i],
            m, (w, h),
            flags=cv2.INTER_LINEAR,
            borderMode=cv2.BORDER_CONSTANT,
            borderValue=(0, 0, 0))
    return ClipResult(
        frames=out,
        source_index=np.arange(t, dtype=np.int64),
        transforms=np.asarray(transforms, dtype=np.float64))


def _rng(seed: int, name: str) -> np.random.Generator:
    return np.random.default_rng(derive_seed(seed, name))


def rotation_angles(name: str, num_frames: int, param: float,
                    seed: int) -> np.ndarray:
    """Per-frame angles (degrees) of ``static_rotation`` or
    ``dynamic_rotation``.

    ``static_rotation``: ``param`` for every frame with a random sign.
    ``dynamic_rotation``: ``param * sin(2 pi t / P + phi)`` with period P
    uniform in [15, 45] frames (0.5-1.5 s at 30 fps) and phase phi
    uniform in [0, 2 pi); the sign, P and phi depend only on the seed, so
    the angles of one seed scale with ``param``.

    Args:
        name (str): ``'static_rotation'`` or ``'dynamic_rotation'``.
        num_frames (int): T.
        param (float): Angle or amplitude in degrees.
        seed (int): Seed.

    Returns:
        np.ndarray: (T,) float64 angles.
    """
    rng = _rng(seed, name)
    if name == 'static_rotation':
        sign = 1.0 if rng.random() < 0.5 else -1.0
        return np.full(num_frames, sign * float(param))
    period = rng.uniform(15, 45)
    phase = rng.uniform(0, 2 * np.pi)
    t = np.arange(num_frames, dtype=np.float64)
    return float(param) * np.sin(2 * np.pi * t / period + phase)


def _rotation(name: str, frames: np.ndarray, param: float,
              seed: int) -> ClipResult:
    t, h, w = check_clip(frames, 1, name), frames.shape[1], frames.shape[2]
    angles = rotation_angles(name, t, param, seed)
    mats = np.stack([rotation_matrix(a, w, h) for a in angles])
    return warp_clip(frames, mats)


def static_rotation(frames: np.ndarray, param: float,
                    seed: int) -> ClipResult:
    """Rotate the whole clip by one angle of ``param`` degrees.

    Args:
        frames (np.ndarray): (T, H, W, 3) uint8 clip.
        param (float): Angle in degrees; the sign is drawn from ``seed``.
        seed (int): Seed for the sign.

    Returns:
        ClipResult: The rotated clip with its transforms.
    """
    return _rotation('static_rotation', frames, param, seed)


def dynamic_rotation(frames: np.ndarray, param: float,
                     seed: int) -> ClipResult:
    """Rotate each frame by a sinusoidally swaying angle.

    See :func:`rotation_angles` for the angle of frame t.

    Args:
        frames (np.ndarray): (T, H, W, 3) uint8 clip.
        param (float): Amplitude in degrees.
        seed (int): Seed for period and phase.

    Returns:
        ClipResult: The rotated clip with its transforms.
    """
    return _rotation('dynamic_rotation', frames, param, seed)


def translation_shifts(num_frames: int, width: int, height: int,
                       param: float, seed: int) -> np.ndarray:
    """Per-frame ``(dx, dy)`` of the ``translation`` shake.

    Each axis is an independent Gaussian random walk (the first step is
    taken at frame 0) scaled so that its largest absolute value is
    ``param * W`` for x and ``param * H`` for y: the walk's shape depends
    only on the seed and its size only on ``param``.

    Args:
        num_frames (int): T.
        width (int): W.
        height (int): H.
        param (float): Largest shift as a fraction of the image size.
        seed (int): Seed.

    Returns:
        np.ndarray: (T, 2) float64 shifts in pixels.
    """
    rng = _rng(seed, 'translation')
    walk = np.cumsum(rng.standard_normal((num_frames, 2)), axis=0)
    peak = np.abs(walk).max(axis=0)
    walk = walk / np.where(peak > 0, peak, 1.0)
    return walk * float(param) * np.array([width, height], np.float64)


def translation(frames: np.ndarray, param: float, seed: int) -> ClipResult:
    """Shake the camera: translate each frame along a random walk.

    See :func:`translation_shifts`.

    Args:
        frames (np.ndarray): (T, H, W, 3) uint8 clip.
        param (float): Largest shift as a fraction of the image size.
        seed (int): Seed for the walk.

    Returns:
        ClipResult: The shaken clip with its transforms.
    """
    t, h, w = check_clip(frames, 1, 'translation'), *frames.shape[1:3]
    shifts = translation_shifts(t, w, h, param, seed)
    mats = np.stack([translation_matrix(dx, dy) for dx, dy in shifts])
    return warp_clip(frames, mats)


CORRUPTIONS = (
    ClipCorruption(
        name='static_rotation',
        family='camera',
        params=(5, 10, 15, 20, 30),
        fn=static_rotation,
        min_frames=1,
        source=after(SCHIAPPA_2023),
        extra=dict(
            unit='degrees',
            note='one angle for the clip, seeded sign, black border')),
    ClipCorruption(
        name='dynamic_rotation',
        family='camera',
        params=(2.5, 5, 7.5, 10, 15),
        fn=dynamic_rotation,
        min_frames=1,
        source=after(SCHIAPPA_2023),
        extra=dict(
            unit='degrees (amplitude)',
            note='angle = param * sin(2 pi t / P + phi), P in [15, 45] '
            'frames, black border')),
    ClipCorruption(
        name='translation',
        family='camera',
        params=(0.02, 0.04, 0.06, 0.08, 0.10),
        fn=translation,
        min_frames=1,
        source=after(SCHIAPPA_2023),
        extra=dict(
            unit='largest shift / image size',
            note='per-axis Gaussian random walk scaled to the largest '
            'shift, black border')),
)

__all__ = [
    'CORRUPTIONS', 'rotation_angles', 'rotation_matrix', 'translation_matrix',
    'translation_shifts', 'warp_clip'
]
