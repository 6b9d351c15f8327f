# Copyright (c) robustdet contributors. All rights reserved.
"""What a clip corruption is and what it returns."""
from dataclasses import dataclass, field
from typing import Any, Callable, Optional, Tuple

import numpy as np

from ..utils.errors import RobustDetError

SEVERITIES = (1, 2, 3, 4, 5)
# Families: γa / γr are averaged per family; 'spatial' families change
# pixels within frames, 'temporal' ones change which content a frame shows.
FAMILIES = ('codec', 'transmission', 'blur', 'weather', 'temporal',
            'camera')
SPATIAL_FAMILIES = ('codec', 'transmission', 'blur', 'weather', 'camera')
TEMPORAL_FAMILIES = ('temporal', )
# The papers the corruptions come from (``ClipCorruption.source``).
YI_2021 = ('Yi et al. 2021, "Benchmarking the robustness of '
           'spatial-temporal models against corruptions" (Mini Kinetics-C)')
SCHIAPPA_2023 = ('Schiappa et al. 2023, "A large-scale robustness analysis '
                 'of video action recognition models"')


def after(paper: str) -> str:
    """``source`` of a corruption from ``paper`` whose severity
    parameters are robustdet's own choice."""
    return f'robustdet parameters, after {paper}'


def check_clip(frames: np.ndarray, min_frames: int, name: str) -> int:
    """Check a clip's shape and dtype and that it is long enough.

    Args:
        frames (np.ndarray): (T, H, W, 3) uint8 clip.
        min_frames (int): Shortest clip the corruption accepts.
        name (str): Corruption name, for the error message.

    Returns:
        int: T, the number of frames.
    """
    if (not isinstance(frames, np.ndarray) or frames.ndim != 4
            or frames.shape[-1] != 3 or frames.dtype != np.uint8):
        shape = getattr(frames, 'shape', None)
        dtype = getattr(frames, 'dtype', type(frames).__name__)
        raise RobustDetError(
            f'{name}: frames must be a (T, H, W, 3) uint8 array, got shape '
            f'{shape} dtype {dtype}')
    t = frames.shape[0]
    if t < min_frames:
        raise RobustDetError(f'{name}: clip has {t} frames, needs at least '
                             f'{min_frames} frames')
    return t


@dataclass
class ClipResult:
    """A corrupted clip.

    Attributes:
        frames (np.ndarray): (T, H, W, 3) uint8, the same T, H and W as
            the input clip: frame t is what the pipeline delivers at
            time t (its ground truth is frame t's, transformed by
            ``transforms[t]`` when given).
        source_index (np.ndarray): (T,) int, the input frame whose content
            frame t mostly shows (identity for purely spatial
            corruptions); informational.
        transforms (np.ndarray, optional): (T, 3, 3) float64 homographies
            (in practice affine) mapping input pixel coordinates of frame
            t to output coordinates, for corruptions that move the image
            (camera motion); None when boxes are unchanged.
    """
    frames: np.ndarray
    source_index: np.ndarray
    transforms: Optional[np.ndarray] = None


@dataclass(frozen=True)
class ClipCorruption:
    """One clip corruption of the table.

    Attributes:
        name (str): Unique name, e.g. ``'h264_crf'``.
        family (str): One of :data:`FAMILIES`.
        params (tuple): One parameter per severity 1-5.
        fn (Callable): ``fn(frames, param, seed) -> ClipResult``;
            ``frames`` is (T, H, W, 3) uint8 RGB, ``seed`` an int.
        min_frames (int): Shortest clip it accepts.
        source (str): Where the corruption and its parameters come from.
        extra (dict): Anything else worth recording (units, notes).
    """
    name: str
    family: str
    params: Tuple[Any, ...]
    fn: Callable[..., ClipResult]
    min_frames: int = 1
    source: str = ''
    extra: dict = field(default_factory=dict)
