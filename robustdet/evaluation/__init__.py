# Copyright (c) robustdet contributors. All rights reserved.
from .functional import grid_coverage, robustness_summary

__all__ = ['grid_coverage', 'robustness_summary']
