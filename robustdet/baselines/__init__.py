# Copyright (c) robustdet contributors. All rights reserved.
"""Published corruption-robustness results (P, mPC, rPC) as data, each row
with its citation and the config that reproduces it; see
:mod:`robustdet.baselines.michaelis2019`; which row a run is compared
with: :mod:`robustdet.baselines.selection`."""
from .michaelis2019 import (CITATIONS, DATASETS, TASKS, TRAININGS, BaselineRow,
                            baseline_rows, get_baseline, metric_of)
from .selection import default_baseline, guess_dataset, resolve_baseline

__all__ = [
    'CITATIONS', 'DATASETS', 'TASKS', 'TRAININGS', 'BaselineRow',
    'baseline_rows', 'default_baseline', 'get_baseline', 'guess_dataset',
    'metric_of', 'resolve_baseline'
]
