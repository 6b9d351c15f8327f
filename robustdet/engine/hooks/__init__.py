# Copyright (c) robustdet contributors. All rights reserved.
from .grid_progress_hook import GridProgressHook

__all__ = ['GridProgressHook']
