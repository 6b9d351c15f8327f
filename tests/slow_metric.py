# Copyright (c) robustdet contributors. All rights reserved.
"""A COCO metric that takes its time and a training hook that gets stuck
(tests of the watchdog): imported by the tools through a config's
``custom_imports``."""
import os
import time

from mmdet.evaluation import CocoMetric
from mmdet.registry import HOOKS, METRICS
from mmengine.hooks import Hook


@METRICS.register_module()
class SlowCocoMetric(CocoMetric):
    """mmdet's ``CocoMetric`` that sleeps ``sleep`` seconds before it
    computes, as a large COCO evaluation keeps rank 0 busy; or, on rank
    ``stuck_rank``, never returns from its ``stuck_at``-th ``process``
    (a main thread stuck mid-pass while the process lives on).

    Args:
        sleep (float): Seconds.
        stuck_rank (int, optional): The rank (``RANK``) that gets stuck.
        stuck_at (int): Which call of ``process`` gets stuck.
        **kwargs: ``CocoMetric``'s arguments.
    """

    def __init__(self, sleep: float = 0.0, stuck_rank=None, stuck_at=2,
                 **kwargs) -> None:
        super().__init__(**kwargs)
        self.sleep = sleep
        self.stuck = stuck_rank is not None and os.environ.get(
            'RANK') == str(stuck_rank)
        self.stuck_at = stuck_at
        self.calls = 0

    def process(self, data_batch, data_samples) -> None:
        self.calls += 1
        if self.stuck and self.calls == self.stuck_at:
            time.sleep(3600)
        super().process(data_batch, data_samples)

    def compute_metrics(self, results: list) -> dict:
        time.sleep(self.sleep)
        return super().compute_metrics(results)


@HOOKS.register_module()
class StuckHook(Hook):
    """On rank ``stuck_rank`` (``RANK``), never returns from the end of its
    ``stuck_at``-th training iteration (a main thread stuck mid-epoch
    while the process lives on).

    Args:
        stuck_rank (int): The rank that gets stuck.
        stuck_at (int): Which iteration gets stuck (1-based).
    """

    def __init__(self, stuck_rank: int = 1, stuck_at: int = 2) -> None:
        self.stuck = os.environ.get('RANK') == str(stuck_rank)
        self.stuck_at = stuck_at
        self.calls = 0

    def after_train_iter(self, runner, batch_idx, data_batch=None,
                         outputs=None) -> None:
        self.calls += 1
        if self.stuck and self.calls == self.stuck_at:
            time.sleep(3600)
