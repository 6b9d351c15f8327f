# Copyright (c) robustdet contributors. All rights reserved.
"""What runs a benchmark job on an mmengine ``Runner``: the grid runners
(passes of cells from one dataloader, or the config's own test loop one
cell at a time), their dataloader pieces, the progress hook, and the
pictures of ``--show-dir`` (:class:`ShowHook` and its image sources),
the hook that keeps RandomCorrupt's epoch current in training, and the
samplers that give each rank whole batches of one process, and the
test loop and training hook that tell the watchdog of their progress."""
from .hooks import (GridProgressHook, RandomCorruptHook, RankZeroLoggerHook,
                    ShowHook, ShowItem, ShowSettings, TrainingRecordHook,
                    WatchdogHook, cell_folder, choose_items, run_seed,
                    with_training_record, with_watchdog, write_set_strips,
                    write_severity_strips)
from .runner import (BaseGridRunner, CellLoopRunner, CellResult, CellRouter,
                     DecodedOnce, DeviceImages, GridDataset, GridImages,
                     LoadedImages, PassCollate, PassRunner, WatchedTestLoop,
                     build_grid_dataloader, cell_dataloader_cfg, grid_images,
                     metrics_ignore_order, pass_dataset, resolve_collate_fn,
                     watched_test_cfg)
from .samplers import BatchRunSampler, PassBatchSampler, with_batch_runs

__all__ = [
    'BaseGridRunner', 'BatchRunSampler', 'CellLoopRunner', 'CellResult',
    'CellRouter', 'DecodedOnce', 'DeviceImages', 'GridDataset', 'GridImages',
    'GridProgressHook', 'LoadedImages', 'PassBatchSampler', 'PassCollate',
    'PassRunner', 'RandomCorruptHook', 'RankZeroLoggerHook', 'ShowHook',
    'ShowItem', 'ShowSettings', 'TrainingRecordHook', 'with_training_record',
    'build_grid_dataloader', 'cell_dataloader_cfg', 'cell_folder',
    'choose_items', 'grid_images', 'metrics_ignore_order', 'pass_dataset',
    'resolve_collate_fn', 'run_seed', 'with_batch_runs', 'write_set_strips',
    'write_severity_strips', 'WatchedTestLoop', 'watched_test_cfg',
    'WatchdogHook', 'with_watchdog'
]
