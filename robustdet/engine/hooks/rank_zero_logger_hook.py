# Copyright (c) robustdet contributors. All rights reserved.
"""mmengine's logger hook with the test metrics written by rank 0 only."""
from typing import Dict, Optional

from mmdet.registry import HOOKS
from mmengine.dist import is_main_process
from mmengine.hooks import LoggerHook


@HOOKS.register_module()
class RankZeroLoggerHook(LoggerHook):
    """mmengine's ``LoggerHook``, except that after a test epoch only rank
    0 logs the metrics and dumps them to ``<log_dir>/<timestamp>.json``:
    mmengine's writes that file on every rank of a launched job (the
    same metrics, into the same file). A launched job's config gets it
    in place of ``LoggerHook`` (:func:`robustdet.utils.dist.
    prepare_runner_cfg`); its arguments are ``LoggerHook``'s.
    """

    def after_test_epoch(self,
                         runner,
                         metrics: Optional[Dict[str, float]] = None) -> None:
        """Log and dump the test metrics, on rank 0."""
        if is_main_process():
            super().after_test_epoch(runner, metrics)
