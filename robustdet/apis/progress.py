# Copyright (c) robustdet contributors. All rights reserved.
"""Progress with an ETA across a whole grid of evaluations."""
import datetime
import time
from typing import Optional, Sequence

from mmengine.hooks import Hook

from .results import Cell, cell_key


def _hms(seconds: float) -> str:
    return str(datetime.timedelta(seconds=int(max(seconds, 0))))


class GridProgressHook(Hook):
    """Log progress over all cells of a grid, not per pass.

    Every ``interval`` seconds (and when a cell starts) it logs the cell,
    batches done over the whole grid, elapsed time and the ETA of the grid,
    from the mean time per batch so far. It also counts the instances
    predicted in the current cell (``cell_predictions``), since a cell
    without any detection needs special care (see
    :func:`robustdet.apis.results.record_cell`).

    Args:
        cells (Sequence[Cell]): The cells that will be evaluated.
        interval (float): Seconds between progress lines.
    """

    def __init__(self, cells: Sequence[Cell], interval: float = 30.0):
        self.cells = list(cells)
        self.interval = interval
        self.batches_per_cell: Optional[int] = None
        self.cell_index = -1
        self.done = 0
        self.cell_predictions = 0
        self.start = time.perf_counter()
        self.last = 0.0

    @property
    def total(self) -> int:
        return (self.batches_per_cell or 0) * len(self.cells)

    def start_cell(self, cell: Cell, num_batches: int) -> None:
        """Call before each cell's evaluation."""
        self.cell_index = self.cells.index(cell)
        self.batches_per_cell = num_batches
        self.done = self.cell_index * num_batches
        self.cell_predictions = 0
        self._log(force=True)

    def after_test_iter(self, runner, batch_idx, data_batch=None,
                        outputs=None) -> None:
        self.done += 1
        for sample in outputs or ():
            pred = getattr(sample, 'pred_instances', None)
            self.cell_predictions += 0 if pred is None else len(pred)
        self._log(runner=runner)

    def eta(self) -> Optional[float]:
        """Seconds left for the grid, or None before the first batch."""
        if not self.done:
            return None
        elapsed = time.perf_counter() - self.start
        return elapsed / self.done * (self.total - self.done)

    def line(self) -> str:
        cell = cell_key(self.cells[self.cell_index])
        eta = self.eta()
        return (f'[robustness] cell {self.cell_index + 1}/{len(self.cells)} '
                f'({cell}) | batches {self.done}/{self.total} | elapsed '
                f'{_hms(time.perf_counter() - self.start)} | ETA '
                f'{"?" if eta is None else _hms(eta)}')

    def _log(self, runner=None, force: bool = False) -> None:
        now = time.perf_counter()
        if not force and now - self.last < self.interval:
            return
        self.last = now
        from mmengine.logging import print_log
        print_log(self.line(), logger='current')
