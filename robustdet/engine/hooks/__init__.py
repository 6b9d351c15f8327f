# Copyright (c) robustdet contributors. All rights reserved.
from .grid_progress_hook import GridProgressHook
from .show_hook import (ShowHook, ShowItem, ShowSettings, cell_folder,
                        choose_items, write_set_strips, write_severity_strips)

__all__ = [
    'GridProgressHook', 'ShowHook', 'ShowItem', 'ShowSettings',
    'cell_folder', 'choose_items', 'write_set_strips',
    'write_severity_strips'
]
