# Copyright (c) robustdet contributors. All rights reserved.
from .functional import (PmkData, grid_coverage, pmk_classification, pmk_map,
                         robustness_summary)
from .metrics import PMKMetric

__all__ = [
    'PMKMetric', 'PmkData', 'grid_coverage', 'pmk_classification', 'pmk_map',
    'robustness_summary'
]
