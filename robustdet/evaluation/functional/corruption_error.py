# Copyright (c) robustdet contributors. All rights reserved.
"""Corruption error (CE, mCE) and relative CE for detection (pure Python).

Hendrycks & Dietterich 2019 define them for classification error; for a
detector the error is ``E = 1 − AP``, with AP on the 0-1 scale mmdet
reports (e.g. ``coco/bbox_mAP = 0.374``). For corruption c, the run's AP
``AP_c,s`` at severity s, the baseline's ``AP^B_c,s`` and the clean APs
``AP_clean``, ``AP^B_clean``:

- ``CE_c = Σ_s (1 − AP_c,s) / Σ_s (1 − AP^B_c,s)``,
- ``rCE_c = Σ_s (AP_clean − AP_c,s) / Σ_s (AP^B_clean − AP^B_c,s)``
  (relative CE),
- ``mCE`` = mean of ``CE_c``, ``rmCE`` = mean of ``rCE_c`` over the
  corruptions of a family (default: the 15 benchmark corruptions).

Below 1 the run is more robust than the baseline. The sums run over the
severities the run has for c (partial grids exist); the baseline must
have all of them. Negative values ("undefined" in mmdet) count as
missing.

**Flagging.** rCE divides by the baseline's drop, which can be ≈ 0 (or
negative: the corruption helps the baseline). A corruption is flagged,
its rCE None and left out of rmCE, when the baseline's mean drop per
severity ``Σ_s (AP^B_clean − AP^B_c,s) / n`` is below :data:`MIN_DROP`
(0.005 AP, i.e. 0.5 points) or ≤ 0. 0.5 points is several times the
noise in a drop: published APs are rounded to 0.1 points, and retraining
or resampling the corruption noise moves COCO AP by about 0.1-0.3
points; below it the ratio measures noise. Benchmark corruptions drop a
COCO detector by several points, so they are not flagged.

**Published rows** (:class:`~robustdet.baselines.BaselineRow`) have only
P, mPC and rPC, so per-corruption CE cannot be computed against them.
The pooled forms need only P and mPC:

- ``CE_pooled = (1 − mPC) / (1 − mPC^B)``, which equals
  ``Σ_c Σ_s (1 − AP_c,s) / Σ_c Σ_s (1 − AP^B_c,s)`` when both mPCs
  average the same cells (a complete grid);
- ``rCE_pooled = (P − mPC) / (P^B − mPC^B)``, flagged like rCE when
  ``P^B − mPC^B`` (the mean drop per cell) is below the threshold.

They weigh each corruption by the baseline's error on it, so they differ
from mCE and rmCE unless the baseline errs equally on every corruption.
"""
import math
from typing import Dict, Mapping, Optional, Sequence, Tuple

from ...baselines import BaselineRow
from ...corruptions import (BENCHMARK_CORRUPTIONS, BENCHMARK_FAMILY, FAMILIES,
                            SEVERITIES, family_corruptions)
from ...utils.errors import RobustDetError
from .robustness import defined_value, mean_or_none, robustness_summary

Cells = Mapping[str, Mapping[str, Mapping[str, float]]]

# Smallest mean drop per severity (0-1 AP) of the baseline for which a
# relative CE is computed; see the module docstring.
MIN_DROP = 0.005


def _value(value) -> Optional[float]:
    """The value as float; None when missing, undefined (< 0) or NaN."""
    value = defined_value(value)
    return None if value is None or math.isnan(value) else value


def _checked(value: Optional[float], metric: str, where: str) -> None:
    if value is not None and value > 1:
        raise RobustDetError(
            f"'{metric}' = {value:g} in {where} is above 1: CE needs AP on "
            'the 0-1 scale mmdet reports (were points passed?)')


def _check_min_drop(min_drop: float) -> None:
    if not (isinstance(min_drop, (int, float)) and min_drop >= 0
            and math.isfinite(min_drop)):
        raise RobustDetError(
            f'min_drop must be a finite number >= 0, not {min_drop!r}')


def _drop_reason(drop: float, min_drop: float, what: str) -> Optional[str]:
    """Why a relative CE with this mean baseline drop is not computed, or
    None when it is."""
    if drop <= 0:
        return (f'{what} {drop:.4f} AP is not positive (the baseline does '
                'not get worse): relative CE undefined')
    if drop < min_drop:
        return (f'{what} {drop:.4f} AP is below min_drop {min_drop:g}: '
                'relative CE unstable')
    return None


def _severity_values(cells: Cells, name: str,
                     metric: str) -> Dict[int, float]:
    """``{severity: value}`` of the defined values of one corruption."""
    per_sev = cells.get(name) or {}
    out = {}
    for sev in SEVERITIES:
        value = _value((per_sev.get(str(sev)) or {}).get(metric))
        if value is not None:
            out[sev] = value
    return out


def _reject_row(baseline) -> None:
    if isinstance(baseline, BaselineRow):
        raise RobustDetError(
            f'baseline {baseline.name!r} is a published row with only '
            'P/mPC/rPC: per-corruption CE, mCE and relative mCE need a '
            'baseline run JSON with its cells (the pooled CE works with a '
            'published row)')


def corruption_errors(run_clean: Mapping[str, float],
                      run_cells: Cells,
                      base_clean: Mapping[str, float],
                      base_cells: Cells,
                      metric: str,
                      baseline_name: str,
                      names: Sequence[str] = BENCHMARK_CORRUPTIONS,
                      min_drop: float = MIN_DROP) -> Dict[str, object]:
    """CE and relative CE per corruption, mCE and relative mCE of a run
    against a baseline run.

    For each corruption of ``names`` the sums run over the severities at
    which the run's value is defined; the baseline must have a defined
    value at each of them. A corruption the run lacks entirely is left
    out and listed in ``missing``. Flagged corruptions (see the module
    docstring) keep their CE but have rCE None and are left out of rmCE.

    Args:
        run_clean (Mapping): The run's clean metrics ``{metric: value}``.
        run_cells (Mapping): The run's cells
            ``{corruption: {'1': {metric: value}, ...}}``.
        base_clean (Mapping): The baseline run's clean metrics.
        base_cells (Mapping): The baseline run's cells.
        metric (str): The metric key, e.g. ``'coco/bbox_mAP'``; values on
            the 0-1 scale.
        baseline_name (str): The baseline's name, for error messages.
        names (Sequence[str]): The corruptions of the family. Defaults to
            the 15 benchmark corruptions.
        min_drop (float): The flagging threshold on the baseline's mean
            drop per severity (0-1 AP). Defaults to :data:`MIN_DROP`.

    Returns:
        dict: ``CE`` (``{corruption: value}``), ``rCE`` (``{corruption:
        value or None}``), ``severities`` (``{corruption: [severity,
        ...]}`` summed over), ``mCE`` and ``rmCE`` (None when nothing to
        average), ``count`` (corruptions in mCE), ``rcount`` (in rmCE),
        ``flagged`` (``[{'corruption', 'reason'}]``, exactly those with
        rCE None) and ``missing`` (corruptions of ``names`` the run
        lacks). Corruptions appear in the order of ``names``.

    Raises:
        RobustDetError: The baseline is a published row, lacks a
            severity the run has or its clean value, a value is above 1
            (points instead of 0-1), or the baseline's error is 0.
    """
    _reject_row(base_clean)
    _reject_row(base_cells)
    _check_min_drop(min_drop)
    base = f'baseline {baseline_name!r}'
    p = _value(run_clean.get(metric))
    _checked(p, metric, "the run's clean metrics")
    base_p = _value(base_clean.get(metric))
    _checked(base_p, metric, f'the clean metrics of {base}')

    out = dict(CE={}, rCE={}, severities={}, flagged=[], missing=[])
    for name in dict.fromkeys(names):
        run = _severity_values(run_cells, name, metric)
        if not run:
            out['missing'].append(name)
            continue
        ref = _severity_values(base_cells, name, metric)
        lacking = [s for s in run if s not in ref]
        if lacking:
            raise RobustDetError(
                f'{base} lacks corruption {name!r} at severities '
                f'{", ".join(map(str, lacking))} for {metric!r}, which the '
                'run has')
        if base_p is None:
            raise RobustDetError(
                f'{base} has no clean {metric!r}, needed for relative CE')
        for sev, value in run.items():
            _checked(value, metric, f"the run's {name}/{sev}")
            _checked(ref[sev], metric, f'{base} at {name}/{sev}')
        sevs = list(run)
        base_err = sum(1 - ref[s] for s in sevs)
        if base_err <= 0:
            raise RobustDetError(
                f'{base} has AP 1 (no error) at every severity of {name!r} '
                f'for {metric!r}: CE undefined')
        out['severities'][name] = sevs
        out['CE'][name] = sum(1 - run[s] for s in sevs) / base_err
        base_drop = sum(base_p - ref[s] for s in sevs)
        if p is None:
            reason = f'the run has no clean {metric!r}'
        else:
            reason = _drop_reason(base_drop / len(sevs), min_drop,
                                  'mean baseline drop per severity')
        if reason is None:
            out['rCE'][name] = sum(p - run[s] for s in sevs) / base_drop
        else:
            out['rCE'][name] = None
            out['flagged'].append(dict(corruption=name, reason=reason))
    rces = [v for v in out['rCE'].values() if v is not None]
    out['mCE'] = mean_or_none(list(out['CE'].values()))
    out['rmCE'] = mean_or_none(rces)
    out['count'] = len(out['CE'])
    out['rcount'] = len(rces)
    return out


def baseline_p_mpc(row: BaselineRow) -> Tuple[float, float]:
    """P and mPC of a published row on the 0-1 scale.

    Rows publish points (× 100); rPC is not used, so a row whose rPC
    disagrees with P and mPC (``consistent=False``) gives its published
    P and mPC.

    Args:
        row (BaselineRow): The published row.

    Returns:
        tuple[float, float]: ``(P / 100, mPC / 100)``.
    """
    return row.P / 100, row.mPC / 100


def pooled_errors(p: Optional[float],
                  mpc: Optional[float],
                  base_p: float,
                  base_mpc: float,
                  baseline_name: str,
                  min_drop: float = MIN_DROP) -> Dict[str, object]:
    """Pooled CE and relative CE from P and mPC (0-1 scale).

    Both mPCs should average the same cells (a complete benchmark grid,
    as published rows do); then ``CE_pooled`` is
    ``Σ_c Σ_s (1 − AP) / Σ_c Σ_s (1 − AP^B)``. For a published row pass
    :func:`baseline_p_mpc`.

    Args:
        p (float, optional): The run's clean AP; None or < 0 when
            missing.
        mpc (float, optional): The run's mPC; None or < 0 when missing.
        base_p (float): The baseline's clean AP.
        base_mpc (float): The baseline's mPC.
        baseline_name (str): The baseline's name, for messages.
        min_drop (float): Flagging threshold on ``P^B − mPC^B``.
            Defaults to :data:`MIN_DROP`.

    Returns:
        dict: ``CE_pooled`` (None without the run's mPC), ``rCE_pooled``
        (None when flagged) and ``flagged`` (None, or the reason
        ``rCE_pooled`` is None).

    Raises:
        RobustDetError: A value above 1, or the baseline lacks P or mPC
            or has mPC 1.
    """
    _check_min_drop(min_drop)
    base = f'baseline {baseline_name!r}'
    p, mpc = _value(p), _value(mpc)
    base_p, base_mpc = _value(base_p), _value(base_mpc)
    _checked(p, 'P', 'the run')
    _checked(mpc, 'mPC', 'the run')
    _checked(base_p, 'P', base)
    _checked(base_mpc, 'mPC', base)
    if base_p is None or base_mpc is None:
        raise RobustDetError(f'{base} lacks P or mPC')
    if base_mpc >= 1:
        raise RobustDetError(f'{base} has mPC 1 (no error): CE undefined')
    ce = None if mpc is None else (1 - mpc) / (1 - base_mpc)
    if mpc is None:
        reason = 'the run has no mPC'
    elif p is None:
        reason = 'the run has no P'
    else:
        reason = _drop_reason(base_p - base_mpc, min_drop,
                              'baseline drop P - mPC')
    rce = None if reason else (p - mpc) / (base_p - base_mpc)
    return dict(CE_pooled=ce, rCE_pooled=rce, flagged=reason)


def family_errors(clean: Mapping[str, float], cells: Cells,
                  baseline: Mapping[str, object],
                  metrics: Sequence[str]) -> Dict[str, Dict[str, object]]:
    """CE, relative CE and their pooled forms of a run, per metric and per
    family of corruptions it has cells of, against a stored baseline.

    Args:
        clean (Mapping): The run's clean metrics.
        cells (Mapping): The run's cells; only those of the corruption
            table are read (clip corruption cells are ignored).
        baseline (Mapping): The baseline as the results store it: ``kind``
            ``'run'`` with ``name``, ``clean`` and ``cells``, or
            ``'published'`` with ``name``, ``metric``, ``P`` and ``mPC``
            (points, the 15 benchmark corruptions).
        metrics (Sequence[str]): The metrics (0-1 AP) to compare.

    Returns:
        dict: ``{metric: {family: errors}}``. Against a run, ``errors`` is
        :func:`corruption_errors` plus ``CE_pooled``, ``rCE_pooled`` and
        ``pooled_flagged`` over the family's cells; against a published
        row only the pooled entries, for the 15 (the family
        ``'benchmark'``) and its metric.

    Raises:
        RobustDetError: The baseline lacks a family, corruption, severity
            or metric of the run (see :func:`corruption_errors`).
    """
    name = str(baseline['name'])
    families = [
        f for f in FAMILIES
        if any(cells.get(n) for n in family_corruptions(f))
    ]
    out: Dict[str, Dict[str, object]] = {}
    if baseline['kind'] == 'published':
        others = [f for f in families if f != BENCHMARK_FAMILY]
        if others:
            raise RobustDetError(
                f'baseline {name!r} is a published row of the 15 benchmark '
                f'corruptions: it has no {", ".join(others)} numbers; give '
                'a baseline run JSON with those cells')
        metric = str(baseline['metric'])
        if BENCHMARK_FAMILY in families and metric in metrics:
            summary = robustness_summary(clean, cells)[metric]
            pooled = pooled_errors(summary['P'], summary['mPC'],
                                   baseline['P'] / 100,
                                   baseline['mPC'] / 100, name)
            out[metric] = {BENCHMARK_FAMILY: _pooled(pooled)}
        return out
    base_clean, base_cells = baseline['clean'], baseline['cells']
    run_summary = robustness_summary(clean, cells)
    for metric in metrics:
        out[metric] = {}
        for family in families:
            names = family_corruptions(family)
            errors = corruption_errors(clean, cells, base_clean, base_cells,
                                       metric, name, names)
            # Pooled over the same cells: the baseline's mean over them.
            base_mpc = mean_or_none([
                _value(base_cells[n][str(s)].get(metric))
                for n, sevs in errors['severities'].items() for s in sevs
            ])
            pooled = dict(CE_pooled=None, rCE_pooled=None, flagged=None)
            if base_mpc is not None:
                pooled = pooled_errors(
                    run_summary[metric]['P'],
                    _family_mpc(run_summary[metric], family),
                    _value(base_clean.get(metric)), base_mpc, name)
            errors.update(_pooled(pooled))
            out[metric][family] = errors
    return out


def _family_mpc(row: Mapping[str, Optional[float]],
                family: str) -> Optional[float]:
    return row['mPC'] if family == BENCHMARK_FAMILY else row[f'mPC_{family}']


def _pooled(pooled: Mapping[str, object]) -> Dict[str, object]:
    return dict(
        CE_pooled=pooled['CE_pooled'],
        rCE_pooled=pooled['rCE_pooled'],
        pooled_flagged=pooled['flagged'])
