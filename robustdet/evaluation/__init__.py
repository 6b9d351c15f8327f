# Copyright (c) robustdet contributors. All rights reserved.
from .functional import (PmkData, class_mean_rpc, grid_coverage,
                         pmk_classification, pmk_map, robustness_summary,
                         video_coverage, video_summary)
from .metrics import FastCocoMetric, PMKMetric

__all__ = [
    'FastCocoMetric', 'PMKMetric', 'PmkData', 'class_mean_rpc',
    'grid_coverage',
    'pmk_classification', 'pmk_map', 'robustness_summary', 'video_coverage',
    'video_summary'
]
