# Copyright (c) robustdet contributors. All rights reserved.
from .fast_coco_metric import FastCocoMetric
from .pmk_metric import PMKMetric

__all__ = ['FastCocoMetric', 'PMKMetric']
