# Copyright (c) robustdet contributors. All rights reserved.
"""What the grid runners share: the run around the passes, progress, and
handing each finished cell to the caller."""
import numbers
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Optional, Sequence

from ...corruptions.grid import Cell, cell_key
from ..hooks import GridProgressHook, ShowHook, cell_folder


@dataclass
class CellResult:
    """A finished cell, as the runners hand it to their ``record``.

    Args:
        cell (Cell): ``(corruption, severity)``.
        metrics (dict): The evaluator's real-valued metrics.
        seconds (float): The cell's wall time.
        num_predictions (int): Instances this rank predicted in the cell.
    """
    cell: Cell
    metrics: Dict[str, float]
    seconds: float
    num_predictions: int


def real_metrics(metrics: Dict[str, Any]) -> Dict[str, float]:
    """The real-valued entries of an evaluator's metrics."""
    return {
        k: v
        for k, v in metrics.items()
        if isinstance(v, numbers.Real) and not isinstance(v, bool)
    }


class BaseGridRunner:
    """Run the passes of a grid on a built mmengine ``Runner``.

    :meth:`run` registers a :class:`GridProgressHook` over all the cells,
    calls the runner's ``before_run``, evaluates the passes
    (:meth:`run_passes`, by the subclass) and calls ``after_run``, also when
    a pass fails. After each pass the finished cells go to ``record`` on
    every rank (the caller decides which rank writes), then each is logged.

    Args:
        runner (Runner): The runner (model loaded).
        job (RobustnessJob): The job (seed, backend, channel order, clip
            settings, ground truth), see
            :mod:`robustdet.engine.runner.cell_datasets`.
        dl_cfg (dict): The test dataloader config of the clean cell.
        test_cfg (dict): The test loop config.
        evaluator_cfg (dict | list): The test evaluator config.
        record (Callable[[list[CellResult]], None]): Takes the cells of
            each finished pass.
        show (ShowHook, optional): Draws the chosen images of every cell
            (``--show-dir``); registered with the progress hook and told
            each cell (:meth:`set_cell`).
    """

    def __init__(self,
                 runner: Any,
                 job: Any,
                 dl_cfg: Dict[str, Any],
                 test_cfg: Dict[str, Any],
                 evaluator_cfg: Any,
                 record: Callable[[List[CellResult]], None],
                 show: Optional[ShowHook] = None) -> None:
        self.runner = runner
        self.job = job
        self.dl_cfg = dl_cfg
        self.test_cfg = test_cfg
        self.evaluator_cfg = evaluator_cfg
        self.record = record
        self.show = show
        self.progress = None

    def run(self, passes: Sequence[Sequence[Cell]]) -> None:
        """Evaluate every pass, recording after each.

        Args:
            passes (Sequence[Sequence[Cell]]): Consecutive cells of the
                grid, in grid order.
        """
        passes = [list(p) for p in passes]
        self.progress = GridProgressHook([c for p in passes for c in p])
        self.runner.register_hook(self.progress, priority='VERY_LOW')
        if self.show is not None:
            self.runner.register_hook(self.show, priority='VERY_LOW')
        self.runner.call_hook('before_run')
        try:
            self.run_passes(passes)
        finally:
            self.runner.call_hook('after_run')

    def run_passes(self, passes: List[List[Cell]]) -> None:
        """Evaluate the passes; hand each pass's cells to :meth:`done`."""
        raise NotImplementedError

    def set_cell(self, cell: Cell) -> None:
        """The cell whose batch the next iteration hooks see."""
        self.progress.set_cell(cell)
        if self.show is not None:
            self.show.set_cell(cell, cell_folder(cell))

    @property
    def fresh_evaluators(self) -> bool:
        """Whether every pass needs new evaluators: without an
        ``ann_file`` (ground truth from the pipeline), CocoMetric keeps the
        ground truth of its first evaluation."""
        return self.job.ground_truth == 'pipeline'

    def done(self, finished: List[CellResult]) -> None:
        """Hand a pass's finished cells to ``record``, then log them."""
        self.record(finished)
        for result in finished:
            self.runner.logger.info(
                f'[robustness] {cell_key(result.cell)} done in '
                f'{result.seconds:.1f}s: ' +
                ', '.join(f'{k}={v:.4f}' for k, v in result.metrics.items()))
