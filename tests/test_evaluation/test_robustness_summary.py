# Copyright (c) robustdet contributors. All rights reserved.
import pytest

from robustdet.corruptions import (BENCHMARK_CORRUPTIONS, CORRUPTIONS_BY_NAME,
                                   HOLDOUT_CORRUPTIONS)
from robustdet.evaluation import grid_coverage, robustness_summary


def _full_grid():
    """A hand-made grid: cell value = 0.01 * (index of corruption) +
    0.001 * severity, on two metrics, plus hold-out cells at 0.9."""
    cells = {}
    for i, name in enumerate(BENCHMARK_CORRUPTIONS):
        cells[name] = {
            str(s): {'m/a': 0.01 * i + 0.001 * s, 'm/b': 0.5}
            for s in range(1, 6)
        }
    for name in HOLDOUT_CORRUPTIONS:
        cells[name] = {str(s): {'m/a': 0.9, 'm/b': 0.9} for s in range(1, 6)}
    return cells


def test_full_grid_arithmetic():
    clean = {'m/a': 0.4, 'm/b': 0.8}
    summary = robustness_summary(clean, _full_grid())
    # mean over i = 0..14 of 0.01 i is 0.07; mean over s of 0.001 s = 0.003
    # Means of at most 75 float64 values (and their ratios to P): the
    # rounding is below 75 * 2**-53 < 1e-14 relative, hence rel=1e-12.
    assert summary['m/a']['P'] == 0.4
    assert summary['m/a']['mPC'] == pytest.approx(0.073, rel=1e-12)
    assert summary['m/a']['rPC'] == pytest.approx(0.073 / 0.4, rel=1e-12)
    assert summary['m/b']['mPC'] == pytest.approx(0.5, rel=1e-12)
    assert summary['m/b']['rPC'] == pytest.approx(0.5 / 0.8, rel=1e-12)
    # Hold-out cells never enter mPC.
    assert summary['m/a']['mPC_holdout'] == pytest.approx(0.9, rel=1e-12)
    # noise = indices 0, 1, 2 -> mean 0.01 + 0.003
    assert summary['m/a']['mPC_noise'] == pytest.approx(0.013, rel=1e-12)
    # digital = indices 11..14 -> mean 0.125 + 0.003
    assert summary['m/a']['mPC_digital'] == pytest.approx(0.128, rel=1e-12)
    groups = [summary['m/a'][f'mPC_{g}']
              for g in ('noise', 'blur', 'weather', 'digital')]
    sizes = [3, 4, 4, 4]
    assert sum(g * n for g, n in zip(groups, sizes)) / 15 == pytest.approx(
        summary['m/a']['mPC'], rel=1e-12)
    assert grid_coverage(_full_grid()) == dict(
        benchmark=[75, 75], holdout=[20, 20], complete=True, missing=[])


def test_ratio_of_means_not_mean_of_ratios():
    clean = {'m': 0.5}
    cells = {'fog': {'1': {'m': 0.1}, '2': {'m': 0.3}}}
    s = robustness_summary(clean, cells)['m']
    # (0.1 + 0.3) / 2 and its ratio to 0.5: float64 rounding, rel=1e-12.
    assert s['mPC'] == pytest.approx(0.2, rel=1e-12)
    assert s['rPC'] == pytest.approx(0.4, rel=1e-12)
    assert s['mPC_weather'] == pytest.approx(0.2, rel=1e-12)
    assert s['mPC_noise'] is None and s['mPC_holdout'] is None


def test_incomplete_grid_is_reported():
    cells = _full_grid()
    del cells['fog']['3']
    del cells['snow']
    cov = grid_coverage(cells)
    assert cov['benchmark'] == [69, 75] and not cov['complete']
    assert cov['missing'][0] == 'snow/1' and 'fog/3' in cov['missing']
    assert CORRUPTIONS_BY_NAME['fog'].group == 'weather'


def test_zero_clean_gives_no_rpc():
    s = robustness_summary({'m': 0.0}, {'fog': {'1': {'m': 0.0}}})['m']
    assert s['mPC'] == 0.0 and s['rPC'] is None


def test_undefined_values_are_left_out():
    # mmdet reports -1 when a metric is undefined (no large objects...).
    cells = {'fog': {'1': {'m': -1.0}, '2': {'m': 0.3}},
             'snow': {'1': {'m': -1.0}}}
    s = robustness_summary({'m': -1.0}, cells)['m']
    assert s['P'] is None and s['rPC'] is None
    assert s['mPC'] == 0.3  # the mean of one value: exact
