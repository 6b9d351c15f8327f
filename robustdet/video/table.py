# Copyright (c) robustdet contributors. All rights reserved.
"""The one table of clip corruptions: names, families, the parameter of
each severity, the function, and where they come from. Everything else
(CLI choices, families of γa / γr, the table of docs/video.md) derives
from it."""
from typing import Dict, List, Sequence, Tuple

import numpy as np

from ..utils.errors import RobustDetError
from . import camera, codecs, temporal
from .types import FAMILIES, SEVERITIES, ClipCorruption, ClipResult, check_clip

CLIP_CORRUPTIONS: Tuple[ClipCorruption, ...] = (codecs.CORRUPTIONS +
                                                temporal.CORRUPTIONS +
                                                camera.CORRUPTIONS)
CLIP_CORRUPTIONS_BY_NAME: Dict[str, ClipCorruption] = {
    c.name: c
    for c in CLIP_CORRUPTIONS
}
assert len(CLIP_CORRUPTIONS_BY_NAME) == len(CLIP_CORRUPTIONS)
assert all(c.family in FAMILIES and len(c.params) == len(SEVERITIES)
           for c in CLIP_CORRUPTIONS)
CLIP_CORRUPTION_NAMES: Tuple[str, ...] = tuple(c.name
                                              for c in CLIP_CORRUPTIONS)
# Selection words of ``tools/test_robust.py --corruptions``: every clip
# corruption, or one family ('video-codec', ...).
VIDEO_SELECTIONS: Dict[str, Tuple[str, ...]] = {
    'video': CLIP_CORRUPTION_NAMES,
    **{
        f'video-{f}': tuple(c.name for c in CLIP_CORRUPTIONS
                            if c.family == f)
        for f in FAMILIES
    },
}


def resolve_clip_corruptions(tokens: Sequence[str]) -> List[str]:
    """Expand selection words (``video``, ``video-<family>``) and names.

    Args:
        tokens (Sequence[str]): What the user asked for.

    Returns:
        list[str]: Clip corruption names in table order, each once.

    Raises:
        RobustDetError: A token is neither; the message lists the valid.
    """
    chosen = set()
    for token in tokens:
        if token in VIDEO_SELECTIONS:
            chosen.update(VIDEO_SELECTIONS[token])
        elif token in CLIP_CORRUPTIONS_BY_NAME:
            chosen.add(token)
        else:
            raise RobustDetError(
                f'unknown clip corruption {token!r}; valid: '
                f'{", ".join(VIDEO_SELECTIONS)} or a name: '
                f'{", ".join(CLIP_CORRUPTION_NAMES)}')
    return [n for n in CLIP_CORRUPTION_NAMES if n in chosen]


def is_video_corruption(name: str) -> bool:
    """Whether ``name`` is a clip corruption (of this table)."""
    return name in CLIP_CORRUPTIONS_BY_NAME


def moves_boxes(name: str) -> bool:
    """Whether a clip corruption moves the image content, and with it the
    ground-truth boxes (camera motion)."""
    return get_clip_corruption(name).family == 'camera'


def get_clip_corruption(name: str) -> ClipCorruption:
    """The table entry of ``name`` (one-line error listing the names)."""
    if name not in CLIP_CORRUPTIONS_BY_NAME:
        raise RobustDetError(
            f'unknown clip corruption {name!r}; choose from '
            f'{", ".join(CLIP_CORRUPTIONS_BY_NAME)}')
    return CLIP_CORRUPTIONS_BY_NAME[name]


def corrupt_clip(frames: np.ndarray,
                 name: str,
                 severity: int,
                 seed: int = 0) -> ClipResult:
    """Corrupt a clip.

    Args:
        frames (np.ndarray): (T, H, W, 3) uint8 RGB.
        name (str): A corruption of :data:`CLIP_CORRUPTIONS`.
        severity (int): 1-5.
        seed (int): Seed of the random choices (the same seed gives the
            same output).

    Returns:
        ClipResult: Frames of the input's shape, the source frame of
        each, and the box transforms of corruptions that move the image.
    """
    corruption = get_clip_corruption(name)
    if severity not in SEVERITIES:
        raise RobustDetError(
            f'severity of {name} must be one of {SEVERITIES}, got '
            f'{severity!r}')
    frames = np.asarray(frames)
    check_clip(frames, corruption.min_frames, name)
    result = corruption.fn(frames, corruption.params[severity - 1], seed)
    assert result.frames.shape == frames.shape, (name, result.frames.shape)
    return result
