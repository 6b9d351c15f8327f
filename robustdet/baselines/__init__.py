# Copyright (c) robustdet contributors. All rights reserved.
"""Published corruption-robustness results (P, mPC, rPC) as data, each row
with its citation and the config that reproduces it; see
:mod:`robustdet.baselines.michaelis2019`."""
from .michaelis2019 import (CITATIONS, DATASETS, TASKS, TRAININGS, BaselineRow,
                            baseline_rows, get_baseline, metric_of)

__all__ = [
    'CITATIONS', 'DATASETS', 'TASKS', 'TRAININGS', 'BaselineRow',
    'baseline_rows', 'get_baseline', 'metric_of'
]
