# Copyright (c) robustdet contributors. All rights reserved.
from .api import BACKENDS, CPU_DEPENDENT, DEFAULT_BACKEND, corrupt
from .table import (BENCHMARK_CORRUPTIONS, BENCHMARK_GROUPS, CHANNEL_ORDERS,
                    CLEAN_SEVERITY, CORRUPTION_NAMES, CORRUPTIONS,
                    CORRUPTIONS_BY_NAME, GROUPS, HOLDOUT_CORRUPTIONS, MIN_SIDE,
                    SELECTIONS, SEVERITIES, Corruption, check_channel_order,
                    check_image_size, check_severity, get_corruption,
                    resolve_corruptions)

__all__ = [
    'BACKENDS', 'BENCHMARK_CORRUPTIONS', 'BENCHMARK_GROUPS', 'CHANNEL_ORDERS',
    'CLEAN_SEVERITY', 'CORRUPTIONS', 'CORRUPTIONS_BY_NAME', 'CORRUPTION_NAMES',
    'CPU_DEPENDENT', 'Corruption', 'DEFAULT_BACKEND', 'GROUPS',
    'HOLDOUT_CORRUPTIONS', 'MIN_SIDE', 'SELECTIONS', 'SEVERITIES',
    'check_channel_order', 'check_image_size', 'check_severity', 'corrupt',
    'get_corruption', 'resolve_corruptions'
]


def __getattr__(name: str):
    # OPENCV_DEPENDENT became CPU_DEPENDENT when numpy joined OpenCV as a
    # cause; the old name works for one release.
    if name == 'OPENCV_DEPENDENT':
        import warnings
        warnings.warn(
            'robustdet.corruptions.OPENCV_DEPENDENT is deprecated; use '
            'CPU_DEPENDENT', DeprecationWarning, stacklevel=2)
        return CPU_DEPENDENT
    raise AttributeError(f'module {__name__!r} has no attribute {name!r}')
