# Copyright (c) robustdet contributors. All rights reserved.
from .pmk_metric import PMKMetric

__all__ = ['PMKMetric']
