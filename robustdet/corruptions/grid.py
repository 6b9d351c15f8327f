# Copyright (c) robustdet contributors. All rights reserved.
"""The benchmark grid: cells of (corruption, severity), cut into shards
(independent jobs) and passes (cells that share one pass over the data).

Pure: the planning step of ``tools/test_robust.py``
(:mod:`robustdet.apis`), the engine that runs the passes
(:mod:`robustdet.engine`) and the results file all speak of cells in
these terms.
"""
from typing import Any, List, Sequence, Tuple

from ..utils.errors import RobustDetError
from .table import CLEAN_SEVERITY

# A cell: ``(corruption name, severity)``; ``('clean', 0)`` is the clean
# cell.
Cell = Tuple[str, int]
CLEAN = 'clean'


def cell_key(cell: Cell) -> str:
    """``'clean'`` or ``'<corruption>/<severity>'``."""
    name, severity = cell
    return CLEAN if severity == CLEAN_SEVERITY else f'{name}/{severity}'


def grid_cells(corruptions: Sequence[str],
               severities: Sequence[int]) -> List[Cell]:
    """The cells of a grid: clean first (if severity 0 is asked for), then
    corruptions in the given order × severities ascending.

    Args:
        corruptions (Sequence[str]): Corruption names, in grid order.
        severities (Sequence[int]): Severities; 0 is the clean cell.

    Returns:
        list[Cell]: The cells.
    """
    sevs = sorted(set(severities))
    cells: List[Cell] = []
    if CLEAN_SEVERITY in sevs:
        cells.append((CLEAN, CLEAN_SEVERITY))
    cells += [(name, s) for name in corruptions for s in sevs
              if s != CLEAN_SEVERITY]
    return cells


def shard_cells(cells: Sequence[Cell], index: int, count: int) -> List[Cell]:
    """The cells of shard ``index`` (1-based) of ``count``: round robin, so
    every shard gets a mix of cheap and expensive corruptions."""
    return list(cells[index - 1::count])


def check_cells_per_pass(value: Any) -> int:
    """``--cells-per-pass``: an integer >= 1, else a user error."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise RobustDetError(
            f'--cells-per-pass must be an integer >= 1, got {value!r}')
    return value


def plan_passes(cells: Sequence[Cell],
                cells_per_pass: int) -> List[List[Cell]]:
    """Split cells, in order, into passes of at most ``cells_per_pass``.

    Args:
        cells (Sequence[Cell]): The cells to evaluate, in grid order.
        cells_per_pass (int): K.

    Returns:
        list[list[Cell]]: The passes.
    """
    k = check_cells_per_pass(cells_per_pass)
    cells = list(cells)
    return [cells[i:i + k] for i in range(0, len(cells), k)]
