# Copyright (c) robustdet contributors. All rights reserved.
from ..utils.deprecation import moved_names
from .api import BACKENDS, CPU_DEPENDENT, DEFAULT_BACKEND, corrupt
from .table import (BENCHMARK_CORRUPTIONS, BENCHMARK_FAMILY, BENCHMARK_GROUPS,
                    CHANNEL_ORDERS, CLEAN_SEVERITY, CORRUPTION_NAMES,
                    CORRUPTIONS, CORRUPTIONS_BY_NAME, DEFAULT_CALIBRATION,
                    DEPTH_CALIBRATIONS, FAMILIES, GROUPS, HOLDOUT_CORRUPTIONS,
                    IMAGENET_C_CORRUPTIONS, MIN_SIDE, NEEDS_DEPTH,
                    NEWER_FAMILIES, SELECTIONS, SEVERITIES, Corruption,
                    check_channel_order, check_image_size, check_severity,
                    family_corruptions, get_corruption, resolve_corruptions)

__all__ = [
    'BACKENDS', 'BENCHMARK_CORRUPTIONS', 'BENCHMARK_FAMILY',
    'BENCHMARK_GROUPS', 'CHANNEL_ORDERS', 'CLEAN_SEVERITY', 'CORRUPTIONS',
    'CORRUPTIONS_BY_NAME', 'CORRUPTION_NAMES', 'CPU_DEPENDENT', 'Corruption',
    'DEFAULT_BACKEND', 'DEFAULT_CALIBRATION', 'DEPTH_CALIBRATIONS',
    'FAMILIES', 'GROUPS', 'HOLDOUT_CORRUPTIONS',
    'IMAGENET_C_CORRUPTIONS', 'MIN_SIDE', 'NEEDS_DEPTH', 'NEWER_FAMILIES',
    'SELECTIONS', 'SEVERITIES', 'check_channel_order', 'check_image_size',
    'check_severity', 'corrupt', 'family_corruptions', 'get_corruption',
    'resolve_corruptions'
]


# OPENCV_DEPENDENT became CPU_DEPENDENT when numpy joined OpenCV as a
# cause; the old name works for one release.
__getattr__ = moved_names(
    __name__, dict(OPENCV_DEPENDENT=('CPU_DEPENDENT', lambda: CPU_DEPENDENT)))
