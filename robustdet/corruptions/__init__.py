# Copyright (c) robustdet contributors. All rights reserved.
from .api import (BACKENDS, CHANNEL_ORDERS, CPU_DEPENDENT, DEFAULT_BACKEND,
                  corrupt)
from .table import (BENCHMARK_CORRUPTIONS, BENCHMARK_GROUPS, CLEAN_SEVERITY,
                    CORRUPTION_NAMES, CORRUPTIONS, CORRUPTIONS_BY_NAME, GROUPS,
                    HOLDOUT_CORRUPTIONS, SELECTIONS, SEVERITIES, Corruption,
                    check_severity, get_corruption, resolve_corruptions)

__all__ = [
    'BACKENDS', 'BENCHMARK_CORRUPTIONS', 'BENCHMARK_GROUPS', 'CHANNEL_ORDERS',
    'CLEAN_SEVERITY', 'CORRUPTIONS', 'CORRUPTIONS_BY_NAME', 'CORRUPTION_NAMES',
    'DEFAULT_BACKEND', 'CPU_DEPENDENT',
    'Corruption', 'GROUPS', 'HOLDOUT_CORRUPTIONS', 'SELECTIONS', 'SEVERITIES',
    'check_severity', 'corrupt', 'get_corruption', 'resolve_corruptions'
]
