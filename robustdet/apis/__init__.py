# Copyright (c) robustdet contributors. All rights reserved.
from .import_results import import_results
from .pmk import pmk_config, run_pmk
from .results import (load_results, merge_results, merge_shards, parse_shard,
                      results_path, save_results)
from .robustness import RobustnessJob, run_robustness

__all__ = [
    'RobustnessJob', 'import_results', 'load_results', 'merge_results',
    'merge_shards', 'parse_shard', 'pmk_config', 'results_path', 'run_pmk',
    'run_robustness', 'save_results'
]
