# Copyright (c) robustdet contributors. All rights reserved.
from .batch_run_sampler import BatchRunSampler, with_batch_runs
from .pass_batch_sampler import PassBatchSampler, batch_runs

__all__ = [
    'BatchRunSampler', 'PassBatchSampler', 'batch_runs', 'with_batch_runs'
]
