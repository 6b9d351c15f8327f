# Copyright (c) robustdet contributors. All rights reserved.
"""Effective robustness of detectors on COCO-O, pure Python.

Across many models, performance under a natural distribution shift
tends to follow performance on the in-distribution test set (Taori et al.,
NeurIPS 2020, "effective robustness", for ImageNet classifiers). Mao et
al. (ICCV 2023) report an ER per detector on COCO-O. A run's effective
robustness is how far it lies above that trend; here:

- fit ``y = a·x + b`` by ordinary least squares over a set of runs, with
  ``x`` the COCO mAP and ``y`` the COCO-O mAP (the mean over its six
  domains);
- ER of a run = ``y − (a·x + b)``.

The fit is linear in the values as given (mAP, in the caller's unit, so
ER is in that unit too); no logit transform. Whether the COCO-O paper fits
in linear or logit space, and over which detectors, could not be checked
from a source read for robustdet, so robustdet ships neither the paper's
line nor its (COCO mAP, COCO-O mAP) rows: the line is fitted over the
user's own runs. Which runs it is fitted over is part of the result: an
ER is only meaningful together with that list.
"""
import math
from dataclasses import dataclass
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

from ...utils.errors import RobustDetError


@dataclass(frozen=True)
class Line:
    """A fitted line ``y = slope·x + intercept``.

    Args:
        slope (float): ``a``.
        intercept (float): ``b``.
        fitted (tuple[str]): Names of the runs it was fitted over.
    """
    slope: float
    intercept: float
    fitted: Tuple[str, ...] = ()

    def predict(self, x: float) -> float:
        """The line's ``y`` at ``x``."""
        return self.slope * x + self.intercept


def _check_values(values: Sequence[float], what: str) -> List[float]:
    out = []
    for v in values:
        if (not isinstance(v, (int, float)) or isinstance(v, bool)
                or not math.isfinite(v)):
            raise RobustDetError(f'{what} must be finite numbers, got {v!r}')
        out.append(float(v))
    return out


def fit_line(xs: Sequence[float],
             ys: Sequence[float],
             names: Sequence[str] = ()) -> Line:
    """Least-squares line of ``ys`` against ``xs``.

    Args:
        xs (Sequence[float]): ``x`` per run (COCO mAP).
        ys (Sequence[float]): ``y`` per run (COCO-O mAP).
        names (Sequence[str]): The runs' names, kept in
            :attr:`Line.fitted`.

    Returns:
        Line: ``a = Σ(x − x̄)(y − ȳ) / Σ(x − x̄)²``, ``b = ȳ − a·x̄``.

    Raises:
        RobustDetError: Fewer than 2 runs, or all at the same ``x`` (no
            line is defined), or values that are not finite numbers.
    """
    xs = _check_values(xs, 'x values')
    ys = _check_values(ys, 'y values')
    if len(xs) != len(ys):
        raise RobustDetError(
            f'{len(xs)} x values but {len(ys)} y values')
    if names and len(names) != len(xs):
        raise RobustDetError(f'{len(names)} names for {len(xs)} runs')
    if len(set(xs)) < 2:
        raise RobustDetError(
            'the effective robustness line needs at least 2 runs with '
            f'different x (COCO mAP); got {len(xs)} run(s) with '
            f'{len(set(xs))} distinct x')
    n = len(xs)
    mx = math.fsum(xs) / n
    my = math.fsum(ys) / n
    sxx = math.fsum((x - mx)**2 for x in xs)
    sxy = math.fsum((x - mx) * (y - my) for x, y in zip(xs, ys))
    slope = sxy / sxx
    return Line(slope, my - slope * mx, tuple(names))


def effective_robustness(line: Line, x: float, y: float) -> float:
    """ER of one run: ``y − (a·x + b)``.

    Args:
        line (Line): The fitted line.
        x (float): The run's COCO mAP.
        y (float): The run's COCO-O mAP.

    Returns:
        float: Its effective robustness (in the unit of ``y``).
    """
    return y - line.predict(x)


def effective_robustness_table(
        runs: Mapping[str, Tuple[float, float]],
        fit: Optional[Sequence[str]] = None) -> Dict[str, object]:
    """Fit the line over some runs and give every run its ER.

    Args:
        runs (Mapping): ``{name: (x, y)}`` (COCO mAP, COCO-O mAP), in the
            order to report.
        fit (Sequence[str], optional): The runs to fit the line over
            (default: all).

    Returns:
        dict: ``line`` (the :class:`Line`) and ``runs``: ``{name: {'x',
        'y', 'expected' (a·x + b), 'er', 'fitted' (bool)}}``.

    Raises:
        RobustDetError: An unknown name in ``fit``, or no line (see
            :func:`fit_line`).
    """
    names = list(runs)
    chosen = names if fit is None else list(fit)
    unknown = [n for n in chosen if n not in runs]
    if unknown:
        raise RobustDetError(
            f'unknown run {unknown[0]!r} to fit the line over; runs: '
            f'{", ".join(names)}')
    chosen = [n for n in names if n in set(chosen)]
    line = fit_line([runs[n][0] for n in chosen],
                    [runs[n][1] for n in chosen], chosen)
    table = {}
    for name in names:
        x, y = runs[name]
        table[name] = dict(
            x=x,
            y=y,
            expected=line.predict(x),
            er=effective_robustness(line, x, y),
            fitted=name in line.fitted)
    return dict(line=line, runs=table)


# The report of COCO-O runs (``tools/effective_robustness.py``) --------

FORMAT = 'robustdet.effective_robustness/1'
STEM = 'effective_robustness'
BENCHMARK = 'coco-o'
DEFAULT_METRIC = 'coco/bbox_mAP'

Run = Tuple[str, str, Dict[str, Any]]


def _points(value: Optional[float]) -> Optional[float]:
    return None if value is None else 100 * float(value)


def coco_o_row(name: str, path: str, results: Dict[str, Any],
               metric: str) -> Dict[str, Any]:
    """One run's numbers, in points.

    Args:
        name (str): The run's name.
        path (str): Where its ``shift.json`` was read from (for messages).
        results (dict): The ``shift.json`` of a ``coco-o`` run.
        metric (str): The metric, e.g. ``'coco/bbox_mAP'``.

    Returns:
        dict: ``name``, ``path``, ``coco`` (the reference split's value),
        ``coco_o`` (the mean over the domains) and ``domains`` (value per
        domain).

    Raises:
        RobustDetError: Not a ``coco-o`` run, no such metric, or not every
            domain evaluated.
    """
    if results.get('benchmark') != BENCHMARK:
        raise RobustDetError(
            f'{path} holds a {results.get("benchmark")!r} shift benchmark, '
            f'not {BENCHMARK!r}')
    row = (results.get('summary') or {}).get(metric)
    if row is None:
        raise RobustDetError(
            f'{path} has no {metric}; it has '
            f'{", ".join(results.get("summary") or {}) or "none"}')
    reference = results['reference']
    domains = {s: v for s, v in row['splits'].items() if s != reference}
    missing = [s for s, v in domains.items() if v is None]
    if row['P'] is None or row.get('mean') is None or missing:
        what = missing[0] if missing else reference
        raise RobustDetError(
            f'{path} has no COCO-O {metric}: split {what!r} is not '
            'evaluated (run tools/test_shift.py --benchmark coco-o on every '
            'split)')
    return dict(
        name=name,
        path=path,
        coco=_points(row['P']),
        coco_o=_points(row['mean']),
        domains={s: _points(v) for s, v in domains.items()})


def er_report(runs: Sequence[Run],
              metric: str = DEFAULT_METRIC,
              fit: Optional[Sequence[str]] = None) -> Dict[str, Any]:
    """The effective robustness report of COCO-O runs.

    Args:
        runs (Sequence[tuple]): ``(name, path, shift results)`` per run.
        metric (str): The metric (default bbox mAP).
        fit (Sequence[str], optional): Names of the runs to fit the line
            over (default: all).

    Returns:
        dict: ``format``, ``metric``, ``units`` (points), ``domains``,
        ``line`` (``slope``, ``intercept``, ``fitted``: the runs it was
        fitted over) and ``runs`` (each with ``coco``, ``coco_o``,
        ``domains``, ``expected`` = a·coco + b, ``er`` = coco_o −
        expected, ``fitted``).
    """
    names = [name for name, _, _ in runs]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise RobustDetError(
            f'two runs are named {dup[0]!r}; name them NAME=JSON')
    rows = [coco_o_row(name, path, results, metric)
            for name, path, results in runs]
    domains = list(rows[0]['domains']) if rows else []
    for row in rows:
        if list(row['domains']) != domains:
            raise RobustDetError(
                f'{row["path"]} has the domains '
                f'{", ".join(row["domains"])}, {rows[0]["path"]} has '
                f'{", ".join(domains)}')
    table = effective_robustness_table(
        {r['name']: (r['coco'], r['coco_o'])
         for r in rows}, fit)
    line = table['line']
    for row in rows:
        er = table['runs'][row['name']]
        row.update(expected=er['expected'], er=er['er'], fitted=er['fitted'])
    return dict(
        format=FORMAT,
        metric=metric,
        units='points (mAP x 100)',
        definition='ER = COCO-O mAP - (slope * COCO mAP + intercept), the '
        'line fitted by least squares (linear, not logit) over the runs '
        'in line.fitted',
        domains=domains,
        line=dict(
            slope=line.slope,
            intercept=line.intercept,
            fitted=list(line.fitted)),
        runs=rows)
