# Copyright (c) robustdet contributors. All rights reserved.
from ...utils.evaluator_cfg import metrics_ignore_order
from .base import BaseGridRunner, CellResult
from .cell_datasets import (CellRouter, DecodedOnce, cell_dataloader_cfg,
                            pass_dataset)
from .cell_loop import CellLoopRunner
from .grid_dataloader import (GridDataset, PassCollate, build_grid_dataloader,
                              resolve_collate_fn)
from .pass_runner import PassRunner
from .show_images import DeviceImages, GridImages, LoadedImages, grid_images
from .watched_test_loop import WatchedTestLoop, watched_test_cfg

__all__ = [
    'BaseGridRunner', 'CellLoopRunner', 'CellResult', 'CellRouter',
    'DecodedOnce', 'DeviceImages', 'GridDataset', 'GridImages',
    'LoadedImages', 'PassCollate', 'PassRunner', 'build_grid_dataloader',
    'cell_dataloader_cfg', 'grid_images', 'metrics_ignore_order',
    'pass_dataset', 'resolve_collate_fn', 'WatchedTestLoop',
    'watched_test_cfg'
]
