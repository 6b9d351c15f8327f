# Copyright (c) robustdet contributors. All rights reserved.
"""Deprecated: the pass machinery moved to :mod:`robustdet.engine` (grid
runners, dataloader pieces, batch sampler) and the planning of passes to
:mod:`robustdet.corruptions.grid`. This path works for one release."""
import warnings

from ..corruptions.grid import check_cells_per_pass, plan_passes
from ..engine import (CellRouter, DecodedOnce, GridDataset, PassBatchSampler,
                      PassCollate, PassRunner, build_grid_dataloader,
                      metrics_ignore_order, pass_dataset, resolve_collate_fn)

__all__ = [
    'CellRouter', 'DecodedOnce', 'GridDataset', 'PassBatchSampler',
    'PassCollate', 'PassRunner', 'build_grid_dataloader',
    'check_cells_per_pass', 'metrics_ignore_order', 'pass_dataset',
    'plan_passes', 'resolve_collate_fn'
]

warnings.warn(
    'robustdet.apis.passes is deprecated; import the pass machinery from '
    'robustdet.engine and plan_passes / check_cells_per_pass from '
    'robustdet.corruptions.grid', DeprecationWarning, stacklevel=2)
