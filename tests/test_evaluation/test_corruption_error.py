# Copyright (c) robustdet contributors. All rights reserved.
import pytest

from robustdet.baselines import get_baseline
from robustdet.corruptions import BENCHMARK_CORRUPTIONS
from robustdet.evaluation.functional.corruption_error import (
    MIN_DROP, baseline_p_mpc, corruption_errors, pooled_errors)
from robustdet.evaluation.functional.robustness import robustness_summary
from robustdet.utils.errors import RobustDetError

M = 'coco/bbox_mAP'
NAMES = ('gaussian_noise', 'fog')
# Sums of at most 75 float64 terms and their ratios: rounding is far below
# 1e-12 relative.
REL = 1e-12


def _cells(per_name, metric=M):
    """``{name: [AP at severity 1..5]}`` (None leaves a severity out) in
    the results layout."""
    return {
        name: {
            str(s): {metric: v}
            for s, v in enumerate(values, 1) if v is not None
        }
        for name, values in per_name.items()
    }


# Run: clean 0.40; baseline: clean 0.50.
RUN_CLEAN = {M: 0.40}
RUN = {
    'gaussian_noise': [0.35, 0.30, 0.25, 0.20, 0.10],
    'fog': [0.30] * 5,
}
BASE_CLEAN = {M: 0.50}
BASE = {
    'gaussian_noise': [0.45, 0.40, 0.30, 0.20, 0.15],
    'fog': [0.50, 0.45, 0.40, 0.35, 0.30],
}


def _errors(run=RUN, base=BASE, run_clean=RUN_CLEAN, base_clean=BASE_CLEAN,
            names=NAMES, **kwargs):
    return corruption_errors(run_clean, _cells(run), base_clean,
                             _cells(base), M, 'base-run', names, **kwargs)


def test_hand_computed_two_corruptions():
    out = _errors()
    # gaussian_noise: run errors .65 .70 .75 .80 .90 = 3.8, baseline
    # errors .55 .60 .70 .80 .85 = 3.5; run drops sum 0.8, baseline 1.0.
    # fog: run errors 5 * .7 = 3.5, baseline .5 .55 .6 .65 .7 = 3.0;
    # drops 5 * .1 = 0.5 and 0 + .05 + .1 + .15 + .2 = 0.5.
    assert out['CE']['gaussian_noise'] == pytest.approx(38 / 35, rel=REL)
    assert out['CE']['fog'] == pytest.approx(7 / 6, rel=REL)
    assert out['rCE']['gaussian_noise'] == pytest.approx(0.8, rel=REL)
    assert out['rCE']['fog'] == pytest.approx(1.0, rel=REL)
    assert out['mCE'] == pytest.approx((38 / 35 + 7 / 6) / 2, rel=REL)
    assert out['rmCE'] == pytest.approx(0.9, rel=REL)
    assert out['count'] == out['rcount'] == 2
    assert out['flagged'] == [] and out['missing'] == []
    assert out['severities'] == {n: [1, 2, 3, 4, 5] for n in NAMES}
    assert list(out['CE']) == list(NAMES)


def test_identical_baseline_gives_one():
    out = corruption_errors(RUN_CLEAN, _cells(RUN), RUN_CLEAN, _cells(RUN),
                            M, 'itself', NAMES)
    assert out['CE'] == {n: 1.0 for n in NAMES}
    assert out['rCE'] == {n: 1.0 for n in NAMES}
    assert out['mCE'] == 1.0 and out['rmCE'] == 1.0


def test_default_family_is_the_benchmark():
    cells = {n: [0.2] * 5 for n in BENCHMARK_CORRUPTIONS}
    out = corruption_errors(RUN_CLEAN, _cells(cells), RUN_CLEAN,
                            _cells(cells), M, 'itself')
    assert list(out['CE']) == list(BENCHMARK_CORRUPTIONS)
    assert out['count'] == 15 and out['missing'] == []


def test_flagged_small_and_negative_baseline_drop():
    base = dict(BASE)
    # Mean drop 0.001 AP per severity (0.1 points) < MIN_DROP.
    base['fog'] = [0.499] * 5
    # The baseline gets better under frost.
    base['frost'] = [0.51] * 5
    run = dict(RUN, frost=[0.3] * 5)
    out = _errors(run=run, base=base, names=NAMES + ('frost', ))
    assert out['rCE']['fog'] is None and out['rCE']['frost'] is None
    flagged = {f['corruption']: f['reason'] for f in out['flagged']}
    assert set(flagged) == {'fog', 'frost'}
    assert 'below min_drop' in flagged['fog']
    assert 'not positive' in flagged['frost']
    # CE stays defined; rmCE averages the one left and says so.
    assert out['CE']['fog'] == pytest.approx(3.5 / (5 * 0.501), rel=REL)
    assert out['count'] == 3 and out['rcount'] == 1
    assert out['rmCE'] == pytest.approx(0.8, rel=REL)


def test_flag_threshold_is_a_mean_per_severity():
    # Baseline drop 0.006 per severity: kept at the default 0.005, flagged
    # at 0.01; the run's partial severities do not change the mean.
    base = dict(BASE, fog=[0.494] * 5)
    run = dict(RUN, fog=[0.3, 0.3, None, None, None])
    out = _errors(run=run, base=base)
    assert MIN_DROP == 0.005
    assert out['rCE']['fog'] == pytest.approx(0.2 / 0.012, rel=1e-9)
    out = _errors(run=run, base=base, min_drop=0.01)
    assert out['rCE']['fog'] is None
    assert [f['corruption'] for f in out['flagged']] == ['fog']


def test_all_flagged_gives_no_relative_mce():
    base = {n: [0.5] * 5 for n in NAMES}
    out = _errors(base=base)
    assert out['rmCE'] is None and out['rcount'] == 0
    assert out['mCE'] is not None and len(out['flagged']) == 2


def test_baseline_lacks_a_corruption():
    base = {'gaussian_noise': BASE['gaussian_noise']}
    with pytest.raises(ValueError) as err:
        _errors(base=base)
    msg = str(err.value)
    assert "'fog'" in msg and '1, 2, 3, 4, 5' in msg
    assert "'base-run'" in msg and '\n' not in msg


def test_baseline_lacks_a_severity_or_it_is_undefined():
    base = dict(BASE, fog=[0.5, 0.45, None, 0.35, -1])
    with pytest.raises(ValueError, match=r"'fog' at severities 3, 5 "):
        _errors(base=base)
    # Severities the run lacks are not needed from the baseline.
    run = dict(RUN, fog=[0.3, 0.3, None, 0.3, None])
    out = _errors(run=run, base=base)
    assert out['severities']['fog'] == [1, 2, 4]
    assert out['CE']['fog'] == pytest.approx(2.1 / 1.7, rel=REL)


def test_run_lacks_a_corruption():
    run = {'gaussian_noise': RUN['gaussian_noise']}
    out = _errors(run=run, names=NAMES + ('frost', ))
    assert out['missing'] == ['fog', 'frost']
    assert out['count'] == 1
    assert out['mCE'] == pytest.approx(38 / 35, rel=REL)
    assert 'fog' not in out['CE'] and 'fog' not in out['rCE']


def test_run_without_cells_of_the_family():
    out = _errors(run={})
    assert out['mCE'] is None and out['rmCE'] is None
    assert out['count'] == 0 and out['missing'] == list(NAMES)
    assert out['CE'] == {} and out['flagged'] == []


def test_undefined_values_are_missing():
    # The run's severity 5 of gaussian_noise is undefined (-1): left out
    # of both sums; a corruption undefined everywhere is missing.
    run = dict(RUN, gaussian_noise=[0.35, 0.30, 0.25, 0.20, -1],
               fog=[-1] * 5)
    out = _errors(run=run)
    assert out['CE']['gaussian_noise'] == pytest.approx(2.9 / 2.65,
                                                        rel=REL)
    assert out['rCE']['gaussian_noise'] == pytest.approx(0.5 / 0.65,
                                                         rel=REL)
    assert out['missing'] == ['fog']


def test_run_without_clean_value():
    out = _errors(run_clean={M: -1})
    assert out['rCE'] == {n: None for n in NAMES}
    assert out['rmCE'] is None
    assert all('no clean' in f['reason'] for f in out['flagged'])
    assert out['mCE'] == pytest.approx((38 / 35 + 7 / 6) / 2, rel=REL)


def test_baseline_without_clean_value():
    with pytest.raises(ValueError, match='no clean'):
        _errors(base_clean={})


@pytest.mark.parametrize('where', ['run_clean', 'run', 'base_clean', 'base'])
def test_points_instead_of_fractions(where):
    kwargs = dict(run_clean={M: 40.0}) if where == 'run_clean' else {}
    if where == 'base_clean':
        kwargs = dict(base_clean={M: 50.0})
    elif where == 'run':
        kwargs = dict(run=dict(RUN, fog=[30.0] * 5))
    elif where == 'base':
        kwargs = dict(base=dict(BASE, fog=[50, 45, 40, 35, 30]))
    with pytest.raises(ValueError, match='0-1 scale'):
        _errors(**kwargs)


def _grid(value):
    return {
        n: [value(i, s) for s in range(1, 6)]
        for i, n in enumerate(BENCHMARK_CORRUPTIONS)
    }


def test_pooled_equals_sums_on_a_complete_grid():
    run = _grid(lambda i, s: 0.30 - 0.01 * i - 0.02 * s)
    base = _grid(lambda i, s: 0.35 - 0.005 * i - 0.03 * s)
    run_clean, base_clean = {M: 0.38}, {M: 0.42}
    run_sum = robustness_summary(run_clean, _cells(run))[M]
    base_sum = robustness_summary(base_clean, _cells(base))[M]
    out = pooled_errors(run_sum['P'], run_sum['mPC'], base_sum['P'],
                        base_sum['mPC'], 'base-run')
    run_vals = [v for vs in run.values() for v in vs]
    base_vals = [v for vs in base.values() for v in vs]
    ce = sum(1 - v for v in run_vals) / sum(1 - v for v in base_vals)
    rce = (sum(0.38 - v for v in run_vals) /
           sum(0.42 - v for v in base_vals))
    assert out['CE_pooled'] == pytest.approx(ce, rel=REL)
    assert out['rCE_pooled'] == pytest.approx(rce, rel=REL)
    assert out['flagged'] is None
    # Pooled weighs corruptions by the baseline's error: not the mCE here.
    per = corruption_errors(run_clean, _cells(run), base_clean,
                            _cells(base), M, 'base-run')
    assert per['mCE'] != pytest.approx(out['CE_pooled'], rel=1e-6)


def test_pooled_equals_mean_when_baseline_errs_equally():
    # Same baseline values (permuted) on every corruption: equal error
    # and drop sums, so the weighted pooled forms are plain means.
    run = _grid(lambda i, s: 0.30 - 0.01 * i - 0.02 * s)
    base = _grid(lambda i, s: 0.30 - 0.04 * ((s + i) % 5))
    run_clean, base_clean = {M: 0.38}, {M: 0.42}
    run_sum = robustness_summary(run_clean, _cells(run))[M]
    base_sum = robustness_summary(base_clean, _cells(base))[M]
    out = pooled_errors(run_sum['P'], run_sum['mPC'], base_sum['P'],
                        base_sum['mPC'], 'base-run')
    per = corruption_errors(run_clean, _cells(run), base_clean,
                            _cells(base), M, 'base-run')
    assert per['count'] == 15
    assert out['CE_pooled'] == pytest.approx(per['mCE'], rel=1e-9)
    assert out['rCE_pooled'] == pytest.approx(per['rmCE'], rel=1e-9)


def test_pooled_flagged_and_missing():
    out = pooled_errors(0.40, 0.20, 0.50, 0.498, 'b')
    assert out['rCE_pooled'] is None and 'below min_drop' in out['flagged']
    assert out['CE_pooled'] == pytest.approx(0.8 / 0.502, rel=REL)
    out = pooled_errors(0.40, 0.20, 0.50, 0.52, 'b')
    assert out['rCE_pooled'] is None and 'not positive' in out['flagged']
    out = pooled_errors(None, 0.20, 0.50, 0.30, 'b')
    assert out['rCE_pooled'] is None and 'no P' in out['flagged']
    assert out['CE_pooled'] == pytest.approx(0.8 / 0.7, rel=REL)
    out = pooled_errors(0.40, None, 0.50, 0.30, 'b')
    assert out['CE_pooled'] is None and out['rCE_pooled'] is None
    with pytest.raises(ValueError, match="'b' lacks P or mPC"):
        pooled_errors(0.40, 0.20, 0.50, None, 'b')


def test_published_row_pooled_works_per_corruption_raises():
    row = get_baseline('michaelis2019/coco/faster-rcnn_r50_fpn/standard/'
                       'bbox')
    base_p, base_mpc = baseline_p_mpc(row)
    assert (base_p, base_mpc) == pytest.approx((0.363, 0.182), rel=REL)
    out = pooled_errors(0.374, 0.200, base_p, base_mpc, row.name)
    assert out['CE_pooled'] == pytest.approx(0.8 / 0.818, rel=1e-9)
    assert out['rCE_pooled'] == pytest.approx(0.174 / 0.181, rel=1e-9)
    with pytest.raises(ValueError, match='0-1 scale'):
        pooled_errors(0.374, 0.200, row.P, row.mPC, row.name)
    for base_clean, base_cells in ((row, None), ({M: base_p}, row)):
        with pytest.raises(ValueError) as err:
            corruption_errors(RUN_CLEAN, _cells(RUN), base_clean,
                              base_cells, M, row.name, NAMES)
        msg = str(err.value)
        assert 'P/mPC/rPC' in msg and 'baseline run JSON' in msg
        assert row.name in msg and '\n' not in msg


def test_bad_min_drop():
    with pytest.raises(ValueError, match='min_drop'):
        _errors(min_drop=-0.1)


def test_family_errors_per_family_against_a_run():
    from robustdet.evaluation.functional.corruption_error import family_errors

    # gaussian_noise and fog are of the 15; sparkles of C-bar.
    run = dict(RUN, sparkles=[0.2] * 5)
    base = dict(BASE, sparkles=[0.4] * 5)
    baseline = dict(kind='run', name='base-run', clean=BASE_CLEAN,
                    cells=_cells(base))
    out = family_errors(RUN_CLEAN, _cells(run), baseline, [M])[M]
    assert list(out) == ['benchmark', 'cbar']
    assert out['benchmark']['mCE'] == pytest.approx(
        (38 / 35 + 7 / 6) / 2, rel=REL)
    assert out['cbar']['CE'] == {'sparkles': pytest.approx(0.8 / 0.6)}
    assert out['cbar']['rCE'] == {'sparkles': pytest.approx(0.2 / 0.1)}
    # Pooled over the family's cells: the means of the same 10 cells.
    run_mpc = sum(RUN['gaussian_noise'] + RUN['fog']) / 10
    base_mpc = sum(BASE['gaussian_noise'] + BASE['fog']) / 10
    assert out['benchmark']['CE_pooled'] == pytest.approx(
        (1 - run_mpc) / (1 - base_mpc), rel=REL)
    assert out['benchmark']['rCE_pooled'] == pytest.approx(
        (0.4 - run_mpc) / (0.5 - base_mpc), rel=REL)
    # A baseline without the C-bar cells lacks the corruption.
    baseline['cells'] = _cells(BASE)
    with pytest.raises(RobustDetError, match="lacks corruption 'sparkles'"):
        family_errors(RUN_CLEAN, _cells(run), baseline, [M])


def test_family_errors_against_a_published_row():
    from robustdet.evaluation.functional.corruption_error import family_errors
    row = get_baseline('michaelis2019/coco/faster-rcnn_r50_fpn/standard/'
                       'bbox')
    published = dict(kind='published', name=row.name, metric=M, P=row.P,
                     mPC=row.mPC)
    out = family_errors(RUN_CLEAN, _cells(RUN), published, [M])[M]
    run = robustness_summary(RUN_CLEAN, _cells(RUN))[M]
    assert list(out) == ['benchmark']
    assert set(out['benchmark']) == {'CE_pooled', 'rCE_pooled',
                                     'pooled_flagged'}
    assert out['benchmark']['CE_pooled'] == pytest.approx(
        (1 - run['mPC']) / (1 - row.mPC / 100), rel=REL)
    with pytest.raises(RobustDetError, match='has no cbar numbers'):
        family_errors(RUN_CLEAN, _cells(dict(RUN, sparkles=[0.2] * 5)),
                      published, [M])
