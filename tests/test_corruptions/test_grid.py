# Copyright (c) robustdet contributors. All rights reserved.
"""Planning the grid: passes of consecutive cells."""
import pytest

from robustdet.corruptions.grid import check_cells_per_pass, plan_passes
from robustdet.utils import RobustDetError

CELLS = [('clean', 0), ('fog', 1), ('fog', 2), ('snow', 1), ('snow', 2)]


def test_plan_passes():
    assert plan_passes(CELLS, 1) == [[c] for c in CELLS]
    assert plan_passes(CELLS, 2) == [CELLS[:2], CELLS[2:4], CELLS[4:]]
    assert plan_passes(CELLS, 9) == [CELLS]
    assert plan_passes([], 3) == []


@pytest.mark.parametrize('value', [0, -1, 1.5, True, '2'])
def test_bad_cells_per_pass(value):
    with pytest.raises(RobustDetError, match='--cells-per-pass must be an '
                       'integer >= 1'):
        check_cells_per_pass(value)
