# Copyright (c) robustdet contributors. All rights reserved.
from .pass_batch_sampler import PassBatchSampler

__all__ = ['PassBatchSampler']
