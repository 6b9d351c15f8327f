# Copyright (c) robustdet contributors. All rights reserved.
"""Progress with an ETA across a whole grid of evaluations."""
import datetime
import time
from typing import Dict, List, Optional, Sequence

from mmengine.hooks import Hook
from mmengine.logging import print_log

from ...corruptions.grid import Cell, cell_key


def _hms(seconds: float) -> str:
    return str(datetime.timedelta(seconds=int(max(seconds, 0))))


class GridProgressHook(Hook):
    """Log progress over all cells of a grid, not per pass.

    Every ``interval`` seconds (and when a pass starts) it logs the cells
    being evaluated, batches done over the whole grid (one batch of one
    cell counts one), elapsed time and the ETA of the grid, from the mean
    time per batch so far. It also counts the instances predicted in each
    cell (``predictions``; ``cell_predictions`` for the current cell),
    since a cell without any detection needs special care (see
    :func:`robustdet.apis.results.record_cell`).

    A pass evaluates consecutive cells of ``cells`` together; the loop
    calls :meth:`start_pass` (or :meth:`start_cell` for a pass of one
    cell) before it, and :meth:`set_cell` before the iteration hooks of
    each cell's batch.

    Args:
        cells (Sequence[Cell]): The cells that will be evaluated.
        interval (float): Seconds between progress lines.
    """

    def __init__(self, cells: Sequence[Cell], interval: float = 30.0):
        self.cells = list(cells)
        self.interval = interval
        self.batches_per_cell: Optional[int] = None
        self.cell_index = -1
        self.pass_cells: List[Cell] = []
        self.current: Optional[Cell] = None
        self.done = 0
        self.predictions: Dict[Cell, int] = {}
        self.start = time.perf_counter()
        self.last = 0.0

    @property
    def total(self) -> int:
        return (self.batches_per_cell or 0) * len(self.cells)

    @property
    def cell_predictions(self) -> int:
        """Instances predicted so far in the current cell."""
        return self.predictions.get(self.current, 0)

    def start_cell(self, cell: Cell, num_batches: int) -> None:
        """Call before a cell evaluated on its own."""
        self.start_pass([cell], num_batches)

    def start_pass(self, cells: Sequence[Cell], num_batches: int) -> None:
        """Call before a pass over consecutive cells of the grid.

        Args:
            cells (Sequence[Cell]): The pass's cells, in grid order.
            num_batches (int): Batches per cell.
        """
        self.pass_cells = list(cells)
        self.cell_index = self.cells.index(self.pass_cells[0])
        self.batches_per_cell = num_batches
        self.done = self.cell_index * num_batches
        for cell in self.pass_cells:
            self.predictions[cell] = 0
        self.current = self.pass_cells[0]
        self._log(force=True)

    def set_cell(self, cell: Cell) -> None:
        """The cell whose batch the next iteration hooks see."""
        self.current = cell

    def after_test_iter(self, runner, batch_idx, data_batch=None,
                        outputs=None) -> None:
        self.done += 1
        count = 0
        for sample in outputs or ():
            pred = getattr(sample, 'pred_instances', None)
            count += 0 if pred is None else len(pred)
        self.predictions[self.current] = self.cell_predictions + count
        self._log(runner=runner)

    def eta(self) -> Optional[float]:
        """Seconds left for the grid, or None before the first batch."""
        if not self.done:
            return None
        elapsed = time.perf_counter() - self.start
        return elapsed / self.done * (self.total - self.done)

    def line(self) -> str:
        first = self.cell_index + 1
        keys = ', '.join(cell_key(c) for c in self.pass_cells)
        if len(self.pass_cells) > 1:
            what = (f'cells {first}-{first + len(self.pass_cells) - 1}/'
                    f'{len(self.cells)} ({keys})')
        else:
            what = f'cell {first}/{len(self.cells)} ({keys})'
        eta = self.eta()
        return (f'[robustness] {what} | batches {self.done}/{self.total} | '
                f'elapsed {_hms(time.perf_counter() - self.start)} | ETA '
                f'{"?" if eta is None else _hms(eta)}')

    def _log(self, runner=None, force: bool = False) -> None:
        now = time.perf_counter()
        if not force and now - self.last < self.interval:
            return
        self.last = now
        print_log(self.line(), logger='current')
