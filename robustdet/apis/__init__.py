# Copyright (c) robustdet contributors. All rights reserved.
from .results import (load_results, merge_results, merge_shards, parse_shard,
                      results_path, save_results)
from .robustness import RobustnessJob, run_robustness

__all__ = [
    'RobustnessJob', 'load_results', 'merge_results', 'merge_shards',
    'parse_shard', 'results_path', 'run_robustness', 'save_results'
]
