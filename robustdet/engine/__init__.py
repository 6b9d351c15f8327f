# Copyright (c) robustdet contributors. All rights reserved.
"""What runs a benchmark job on an mmengine ``Runner``: the grid runners
(passes of cells from one dataloader, or the config's own test loop one
cell at a time), their dataloader pieces and the progress hook."""
from .hooks import GridProgressHook
from .runner import (BaseGridRunner, CellLoopRunner, CellResult, CellRouter,
                     DecodedOnce, GridDataset, PassCollate, PassRunner,
                     build_grid_dataloader, cell_dataloader_cfg,
                     metrics_ignore_order, pass_dataset, resolve_collate_fn)
from .samplers import PassBatchSampler

__all__ = [
    'BaseGridRunner', 'CellLoopRunner', 'CellResult', 'CellRouter',
    'DecodedOnce', 'GridDataset', 'GridProgressHook', 'PassBatchSampler',
    'PassCollate', 'PassRunner', 'build_grid_dataloader',
    'cell_dataloader_cfg', 'metrics_ignore_order', 'pass_dataset',
    'resolve_collate_fn'
]
