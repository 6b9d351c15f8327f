# Copyright (c) robustdet contributors. All rights reserved.
"""Robustness runs beside the published leaderboard
(:mod:`robustdet.baselines`): P, mPC and rPC of each run and of the
published rows of the same dataset and task, their differences to one
baseline row, each run's mPC per corruption and, against a CE baseline,
the corruption errors.

:func:`comparison` builds the comparison (``compare.json``: a
JSON-serialisable dict, every value in points, rPC in %); the reports
(:mod:`robustdet.reports.compare`) derive Markdown, CSV and the P-mPC
scatter plot from it alone.
"""
from typing import Any, Dict, Optional, Sequence, Tuple

from ...baselines import (BaselineRow, baseline_rows, guess_dataset, metric_of,
                          resolve_baseline)
from ...corruptions import BENCHMARK_CORRUPTIONS, CORRUPTION_NAMES, SEVERITIES
from ...utils.errors import RobustDetError
from .corruption_error import family_errors, pooled_errors
from .robustness import grid_coverage, robustness_summary
from .run_results import compact_cells, training_warning

FORMAT = 'robustdet.compare/1'
# The corruption-error entries of a comparison row, in %, and how many
# corruptions mCE and rmCE average.
CE_KEYS = ('mCE', 'rmCE', 'CE_pooled', 'rCE_pooled')
CE_COUNTS = dict(mCE='count', rmCE='rcount')

Run = Tuple[str, str, Dict[str, Any]]


def _points(value: Optional[float]) -> Optional[float]:
    """A fraction in [0, 1] as points (× 100); None if undefined."""
    if value is None or value < 0:
        return None
    return round(100 * float(value), 4)


def _diff(a: Optional[float], b: Optional[float]) -> Optional[float]:
    return None if a is None or b is None else round(a - b, 4)


def _value(results: Dict[str, Any], name: str, sev: int,
           metric: str) -> Optional[float]:
    """A cell's metric as a fraction; None if missing or undefined."""
    value = (results['cells'].get(name, {}).get(str(sev)) or {}).get(metric)
    return None if value is None or value < 0 else float(value)


def _run_row(name: str, path: str, results: Dict[str, Any], metric: str,
             what: str) -> Dict[str, Any]:
    """A run's numbers in points, its missing cells and its mPC per
    corruption (``what``: the dataset and task, for the message)."""
    summary = (results.get('summary') or {}).get(metric)
    if summary is None:
        raise RobustDetError(
            f'{path} has no {metric} results, which {what} compares '
            '(see --dataset and --task)')
    missing = [
        f'{n}/{s}' for n in BENCHMARK_CORRUPTIONS for s in SEVERITIES
        if _value(results, n, s, metric) is None
    ]
    total = len(BENCHMARK_CORRUPTIONS) * len(SEVERITIES)
    per_corruption, severities = {}, {}
    for cname in CORRUPTION_NAMES:
        values = [
            v for v in (_value(results, cname, s, metric)
                        for s in SEVERITIES) if v is not None
        ]
        if values:
            per_corruption[cname] = _points(sum(values) / len(values))
            severities[cname] = len(values)
    row = dict(
        kind='run',
        name=name,
        label=name,
        source=path,
        P=_points(summary.get('P')),
        mPC=_points(summary.get('mPC')),
        rPC=_points(summary.get('rPC')),
        rPC_class_mean=_points(summary.get('rPC_class_mean')),
        benchmark_cells=[total - len(missing), total],
        incomplete=bool(missing),
        missing=missing,
        missing_compact=compact_cells(missing),
        per_corruption=per_corruption,
        per_corruption_severities=severities)
    if results.get('imported') is not None:
        row['imported'] = results['imported']
    warning = training_warning(results)
    if warning:
        row['warning'] = warning
    return row


def _published_row(row: BaselineRow) -> Dict[str, Any]:
    return dict(
        kind='published',
        name=row.name,
        label=row.label,
        source=row.citation,
        P=row.P,
        mPC=row.mPC,
        rPC=row.rPC,
        rPC_class_mean=None,
        model=row.model,
        backbone=row.backbone,
        training=row.training,
        config=row.config,
        note=row.note,
        consistent=row.consistent)


def _run_errors(results: Dict[str, Any], ce_baseline: Dict[str, Any],
                metric: str) -> Dict[str, Dict[str, Optional[float]]]:
    """A run's :data:`CE_KEYS` per family against ``ce_baseline``."""
    errors = family_errors(results.get('clean') or {}, results['cells'],
                           ce_baseline, [metric]).get(metric, {})
    return {
        family: dict({k: _points(e.get(k))
                      for k in CE_KEYS},
                     **{c: e.get(c)
                        for c in CE_COUNTS.values()})
        for family, e in errors.items()
    }


def _published_errors(row: BaselineRow, ce_baseline: Dict[str, Any],
                      metric: str) -> Dict[str, Dict[str, Optional[float]]]:
    """A published row's pooled CE against ``ce_baseline`` (the 15 only,
    and only against a complete grid, as the row's own)."""
    if ce_baseline['kind'] == 'published':
        base_p, base_mpc = ce_baseline['P'] / 100, ce_baseline['mPC'] / 100
    else:
        # A run baseline holds its image cells only (load_ce_baseline).
        cells = ce_baseline['cells']
        summary = robustness_summary(ce_baseline['clean'],
                                     cells).get(metric)
        if not grid_coverage(cells)['complete'] or summary is None:
            return {}
        base_p, base_mpc = summary['P'], summary['mPC']
    pooled = pooled_errors(row.P / 100, row.mPC / 100, base_p, base_mpc,
                           ce_baseline['name'])
    return dict(benchmark=dict(
        mCE=None, rmCE=None, CE_pooled=_points(pooled['CE_pooled']),
        rCE_pooled=_points(pooled['rCE_pooled'])))


def comparison(runs: Sequence[Run],
               dataset: Optional[str] = None,
               task: str = 'bbox',
               baseline: Optional[str] = None,
               ce_baseline: Optional[Dict[str, Any]] = None
               ) -> Dict[str, Any]:
    """Runs and the published rows of a dataset and task, side by side.

    Args:
        runs (Sequence[tuple]): ``(name, path, results)`` per run, the
            results as read by :func:`robustdet.apis.load_results`.
        dataset (str, optional): ``'coco'``, ``'voc'`` or
            ``'cityscapes'``; guessed from the first run if None
            (:func:`guess_dataset`).
        task (str): ``'bbox'`` or ``'segm'``.
        baseline (str, optional): Name of the published row the
            differences are taken to (:func:`default_baseline` if None).
        ce_baseline (dict, optional): The baseline of the corruption
            errors (:func:`robustdet.apis.ce_baseline.load_ce_baseline`):
            each row then has ``ce``, ``{family: {'mCE', 'rmCE',
            'CE_pooled', 'rCE_pooled'}}`` in % (published rows: the
            pooled forms of the 15 only).

    Returns:
        dict: ``format``, ``dataset``, ``task``, ``metric``, ``baseline``
        (its name), ``corruptions`` (those with a cell in some run, table
        order) and ``rows``: the runs in the given order, then the
        published rows sorted by mPC, descending. Each row has ``kind``
        (``'run'`` or ``'published'``), ``name``, ``label``, ``source``
        (the run's file, or the citation key), ``P``, ``mPC``, ``rPC``,
        ``rPC_class_mean`` and the differences ``dP``, ``dmPC``, ``drPC``
        to the baseline (points, rPC in %, None where undefined); runs
        also ``incomplete``, ``missing`` (benchmark cells without the
        metric), ``per_corruption`` (mPC over the severities present) and
        ``per_corruption_severities``.
    """
    if not runs:
        raise RobustDetError('no run to compare')
    if dataset is None:
        dataset = guess_dataset(runs[0][2])
    metric = metric_of(dataset, task)
    base = resolve_baseline(baseline, dataset, task)
    rows = [
        _run_row(name, path, results, metric, f'{dataset} {task}')
        for name, path, results in runs
    ]
    published = sorted(baseline_rows(dataset, task), key=lambda r: -r.mPC)
    rows += [_published_row(r) for r in published]
    for row in rows:
        row['baseline'] = row['name'] == base.name and \
            row['kind'] == 'published'
        row['dP'] = _diff(row['P'], base.P)
        row['dmPC'] = _diff(row['mPC'], base.mPC)
        row['drPC'] = _diff(row['rPC'], base.rPC)
    if ce_baseline is not None:
        for row, (_, _, results) in zip(rows, runs):
            row['ce'] = _run_errors(results, ce_baseline, metric)
        for row, published_row in zip(rows[len(runs):], published):
            row['ce'] = _published_errors(published_row, ce_baseline,
                                          metric)
    corruptions = [
        n for n in CORRUPTION_NAMES
        if any(n in r.get('per_corruption', {}) for r in rows)
    ]
    return dict(
        ce_baseline=None if ce_baseline is None else {
            k: v
            for k, v in ce_baseline.items() if k not in ('clean', 'cells')
        },
        format=FORMAT,
        dataset=dataset,
        task=task,
        metric=metric,
        baseline=base.name,
        baseline_label=base.label,
        corruptions=corruptions,
        rows=rows)
