# Copyright (c) robustdet contributors. All rights reserved.
"""Deprecated: the pass machinery moved to :mod:`robustdet.engine` (grid
runners, dataloader pieces, batch sampler) and the planning of passes to
:mod:`robustdet.corruptions.grid`. This path works for one release."""
import warnings
from typing import Any, Dict, Sequence

from ..corruptions.grid import Cell, check_cells_per_pass, plan_passes
from ..engine import (CellRouter, DecodedOnce, GridDataset, GridProgressHook,
                      PassBatchSampler, PassCollate, build_grid_dataloader,
                      metrics_ignore_order, pass_dataset, resolve_collate_fn)
from ..engine.runner import pass_runner
from .robustness import results_recorder

__all__ = [
    'CellRouter', 'DecodedOnce', 'GridDataset', 'PassBatchSampler',
    'PassCollate', 'PassRunner', 'build_grid_dataloader',
    'check_cells_per_pass', 'metrics_ignore_order', 'pass_dataset',
    'plan_passes', 'resolve_collate_fn'
]

warnings.warn(
    'robustdet.apis.passes is deprecated; import the pass machinery from '
    'robustdet.engine and plan_passes / check_cells_per_pass from '
    'robustdet.corruptions.grid', DeprecationWarning, stacklevel=2)


class PassRunner(pass_runner.PassRunner):
    """:class:`robustdet.engine.PassRunner` with its former signature:
    the caller registers ``progress`` and calls the runner's
    ``before_run`` / ``after_run``; finished cells are recorded into
    ``results`` and its file on rank 0.

    Args:
        runner (Runner): The runner (model loaded, hooks registered).
        job (RobustnessJob): The job.
        dl_cfg (dict): The test dataloader config.
        test_cfg (dict): The test loop config.
        evaluator_cfg (dict | list): The test evaluator config.
        progress (GridProgressHook): The registered progress hook.
        results (dict): The results to record into.
    """

    def __init__(self, runner: Any, job: Any, dl_cfg: Dict[str, Any],
                 test_cfg: Dict[str, Any], evaluator_cfg: Any,
                 progress: GridProgressHook, results: Dict[str,
                                                          Any]) -> None:
        super().__init__(runner, job, dl_cfg, test_cfg, evaluator_cfg,
                         results_recorder(job, results))
        self.progress = progress
        self.results = results

    def run(self, passes: Sequence[Sequence[Cell]]) -> None:
        """Evaluate every pass, recording after each (no run hooks)."""
        self.run_passes([list(p) for p in passes])
