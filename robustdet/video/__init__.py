# Copyright (c) robustdet contributors. All rights reserved.
"""Clip corruptions for video detection data (codecs, transmission errors,
frame-rate and temporal perturbations, camera motion). PyAV is imported
only when a codec or transmission corruption runs."""
from .boxes import transform_boxes
from .table import (CLIP_CORRUPTION_NAMES, CLIP_CORRUPTIONS,
                    CLIP_CORRUPTIONS_BY_NAME, VIDEO_SELECTIONS, corrupt_clip,
                    get_clip_corruption, is_video_corruption, moves_boxes)
from .types import (FAMILIES, SEVERITIES, SPATIAL_FAMILIES, TEMPORAL_FAMILIES,
                    ClipCorruption, ClipResult)

__all__ = [
    'CLIP_CORRUPTION_NAMES', 'CLIP_CORRUPTIONS', 'CLIP_CORRUPTIONS_BY_NAME',
    'VIDEO_SELECTIONS', 'FAMILIES', 'SEVERITIES',
    'SPATIAL_FAMILIES', 'TEMPORAL_FAMILIES', 'ClipCorruption', 'ClipResult',
    'corrupt_clip', 'get_clip_corruption', 'is_video_corruption',
    'moves_boxes', 'transform_boxes'
]
