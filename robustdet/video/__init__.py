# Copyright (c) robustdet contributors. All rights reserved.
"""Clip corruptions for video detection data (codecs, transmission errors,
frame-rate and temporal perturbations, camera motion)."""
from .types import (FAMILIES, SEVERITIES, SPATIAL_FAMILIES, TEMPORAL_FAMILIES,
                    ClipCorruption, ClipResult)

__all__ = [
    'FAMILIES', 'SEVERITIES', 'SPATIAL_FAMILIES', 'TEMPORAL_FAMILIES',
    'ClipCorruption', 'ClipResult'
]
