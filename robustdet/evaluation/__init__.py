# Copyright (c) robustdet contributors. All rights reserved.
from .functional import (PmkData, grid_coverage, pmk_classification, pmk_map,
                         robustness_summary, video_coverage, video_summary)
from .metrics import FastCocoMetric, PMKMetric

__all__ = [
    'FastCocoMetric', 'PMKMetric', 'PmkData', 'grid_coverage',
    'pmk_classification', 'pmk_map', 'robustness_summary', 'video_coverage',
    'video_summary'
]
