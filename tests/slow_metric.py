# Copyright (c) robustdet contributors. All rights reserved.
"""A COCO metric that takes its time and a training hook that gets stuck
(tests of the watchdog): imported by the tools through a config's
``custom_imports``."""
import os
import time

from mmdet.evaluation import CocoMetric
from mmdet.registry import HOOKS, METRICS
from mmengine.hooks import Hook

from tests.tool_process import stuck_for_an_hour


class StuckAt:
    """A call that never returns on its ``at``-th call on rank ``rank``
    (``RANK``): a main thread stuck while its process lives on.

    Args:
        rank (int, optional): The rank that gets stuck (None: none).
        at (int): Which call gets stuck (1-based).
    """

    def __init__(self, rank, at: int) -> None:
        self.here = rank is not None and os.environ.get('RANK') == str(rank)
        self.at = at
        self.calls = 0

    def __call__(self) -> None:
        self.calls += 1
        if self.here and self.calls == self.at:
            stuck_for_an_hour()


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
        self.stuck = StuckAt(stuck_rank, stuck_at)

    def process(self, data_batch, data_samples) -> None:
        self.stuck()
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
        self.stuck = StuckAt(stuck_rank, stuck_at)

    def after_train_iter(self, runner, batch_idx, data_batch=None,
                         outputs=None) -> None:
        self.stuck()
