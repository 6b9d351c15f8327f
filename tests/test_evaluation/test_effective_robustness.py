# Copyright (c) robustdet contributors. All rights reserved.
"""The effective robustness line and ER values on hand-made numbers."""
import pytest

from robustdet.evaluation.functional.effective_robustness import (
    Line, effective_robustness, effective_robustness_table, fit_line)
from robustdet.utils import RobustDetError


def test_least_squares_line_and_er():
    # x̄ = 2, ȳ = 13/3, Σ(x-x̄)(y-ȳ) = 5, Σ(x-x̄)² = 2: a = 5/2,
    # b = 13/3 - 5 = -2/3; residuals 1/6, -1/3, 1/6.
    line = fit_line([1, 2, 3], [2, 4, 7], ['a', 'b', 'c'])
    assert line.slope == pytest.approx(2.5, rel=1e-15)
    assert line.intercept == pytest.approx(-2 / 3, rel=1e-15)
    assert line.fitted == ('a', 'b', 'c')
    ers = [effective_robustness(line, x, y)
           for x, y in ((1, 2), (2, 4), (3, 7))]
    assert ers == pytest.approx([1 / 6, -1 / 3, 1 / 6], abs=1e-14)
    # Points on a line: that line, ER 0.
    exact = fit_line([0.2, 0.4, 0.6], [0.1, 0.2, 0.3])
    assert exact.slope == pytest.approx(0.5, rel=1e-12)
    assert exact.intercept == pytest.approx(0.0, abs=1e-15)
    assert effective_robustness(Line(2.0, 1.0), 3.0, 8.0) == 1.0
    # Two runs: the line through both.
    two = fit_line([30.0, 40.0], [10.0, 20.0])
    assert (two.slope, two.intercept) == (1.0, -20.0)


@pytest.mark.parametrize('xs,ys,match', [
    ([0.4], [0.2], r'at least 2 runs with different x .*got 1 run'),
    ([], [], 'got 0 run'),
    ([0.4, 0.4, 0.4], [0.1, 0.2, 0.3], '3 run.* with 1 distinct x'),
    ([0.1, 0.2], [0.1], '2 x values but 1 y values'),
    ([0.1, float('nan')], [0.1, 0.2], 'finite numbers'),
    ([0.1, 0.2], [0.1, None], 'finite numbers'),
])
def test_no_line_is_one_line_error(xs, ys, match):
    with pytest.raises(RobustDetError, match=match) as e:
        fit_line(xs, ys)
    assert '\n' not in str(e.value)


def test_table_fits_over_the_chosen_runs():
    runs = dict(a=(30.0, 12.0), b=(40.0, 16.0), c=(50.0, 23.0),
                new=(45.0, 25.0))
    # Over a, b, c: a = 110 / 200 = 0.55, b = 17 - 22 = -5.
    table = effective_robustness_table(runs, fit=['c', 'a', 'b'])
    line = table['line']
    assert line.slope == pytest.approx(0.55, rel=1e-14)
    assert line.intercept == pytest.approx(-5.0, rel=1e-14)
    assert line.fitted == ('a', 'b', 'c')  # in the runs' order
    assert list(table['runs']) == ['a', 'b', 'c', 'new']
    ers = {n: r['er'] for n, r in table['runs'].items()}
    assert ers == pytest.approx(dict(a=0.5, b=-1.0, c=0.5, new=5.25),
                                abs=1e-12)
    assert table['runs']['new']['expected'] == pytest.approx(19.75)
    assert [r['fitted'] for r in table['runs'].values()] == [
        True, True, True, False]
    # Over all four runs, another line.
    every = effective_robustness_table(runs)
    assert every['line'].fitted == ('a', 'b', 'c', 'new')
    assert every['line'].slope != pytest.approx(0.55)
    with pytest.raises(RobustDetError, match="unknown run 'd'"):
        effective_robustness_table(runs, fit=['a', 'd'])
    with pytest.raises(RobustDetError, match='at least 2 runs'):
        effective_robustness_table(runs, fit=['new'])
