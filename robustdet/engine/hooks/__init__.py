# Copyright (c) robustdet contributors. All rights reserved.
from .grid_progress_hook import GridProgressHook
from .random_corrupt_hook import RandomCorruptHook, run_seed
from .rank_zero_logger_hook import RankZeroLoggerHook
from .show_hook import (ShowHook, ShowItem, ShowSettings, cell_folder,
                        choose_items, write_set_strips, write_severity_strips)
from .training_record_hook import TrainingRecordHook, with_training_record
from .watchdog_hook import WatchdogHook, with_watchdog

__all__ = [
    'GridProgressHook', 'RandomCorruptHook', 'RankZeroLoggerHook',
    'ShowHook', 'ShowItem', 'ShowSettings', 'cell_folder', 'choose_items',
    'run_seed',
    'TrainingRecordHook', 'with_training_record', 'write_set_strips',
    'write_severity_strips', 'WatchdogHook', 'with_watchdog'
]
