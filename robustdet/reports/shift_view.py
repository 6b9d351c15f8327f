# Copyright (c) robustdet contributors. All rights reserved.
"""The view model of a shift benchmark's run (the layout of Michaelis et
al. 2019, tables 4 and 5): what ``shift.md`` and the run's section of the
HTML page show, decided once; ``templates/shift.md.j2`` and
``shift_section.html.j2`` lay it out."""
from typing import Any, Dict, List, Sequence, Tuple

from ..evaluation.functional.run_results import training_warning
from .formatting import percent, points
from .robustness_view import cell, label, row, table


def shift_main_metrics(results: Dict[str, Any]) -> List[str]:
    """The metrics the reports of a ``shift.json`` show: mmdet's overall
    mAP keys among its metrics (all if none)."""
    keys = list(results.get('summary') or {})
    return [k for k in keys if k.endswith('mAP')] or keys


def _splits(results: Dict[str, Any]) -> List[str]:
    """The splits, the reference first (from the summary for files
    without ``splits``)."""
    return list(results.get('splits') or {}) or list(
        next(iter(results['summary'].values()), {}).get('splits', {}))


def shift_view(results: Dict[str, Any], index: int = 1) -> Dict[str, Any]:
    """The view model of a shift run.

    Args:
        results (dict): A ``shift.json``.
        index (int): Its number on a page (for the tables' ids).

    Returns:
        dict: ``benchmark``, ``config``, ``checkpoint``, ``reference``,
        ``table`` (the paper's table it follows), ``mean_name`` and per
        main metric its ``splits``, ``ap`` and ``rpc`` cells (coloured
        against P and 1) and the ``mean`` over the splits after the
        reference (None without a ``mean_name``); ``records``
        (:func:`shift_records`, the CSV's).
    """
    splits = _splits(results)
    mean_name = results.get('mean_name')
    metrics = []
    for metric in shift_main_metrics(results):
        values = results['summary'][metric]
        p = values.get('P')
        mean = None
        if mean_name:
            mean = dict(
                name=f'{mean_name} mean', count=len(splits) - 1,
                ap=cell(points(values.get('mean')), values.get('mean'), p),
                rpc=cell(percent(values.get('mean_rPC')),
                         values.get('mean_rPC'), 1.0))
        metrics.append(dict(
            metric=metric,
            id=f'shift-summary-{index}-{metric}',
            splits=splits,
            ap=[cell(points(values['splits'].get(s)),
                     values['splits'].get(s), p) for s in splits],
            rpc=[cell(percent(values['rPC'].get(s)), values['rPC'].get(s),
                      1.0) for s in splits],
            mean=mean))
    return dict(
        benchmark=results.get('benchmark'),
        config=results.get('config'),
        checkpoint=results.get('checkpoint'),
        reference=results.get('reference'),
        table=results.get('table'),
        mean_name=mean_name,
        warning=training_warning(results),
        metrics=metrics,
        records=shift_records(results))


def shift_records(results: Dict[str, Any]) -> Dict[str, Any]:
    """``columns`` and ``rows`` of a ``shift.json``'s ``shift.csv``: one
    row per (metric, split) of every metric, with value, P and rPC, raw
    (None where undefined)."""
    rows = [[metric, split, value, values['P'], values['rPC'].get(split)]
            for metric, values in (results.get('summary') or {}).items()
            for split, value in values['splits'].items()]
    return dict(columns=['metric', 'split', 'value', 'P', 'rPC'], rows=rows)


def shift_runs_view(named: Sequence[Tuple[str, Dict[str, Any]]]
                    ) -> List[Dict[str, Any]]:
    """Shift runs of one benchmark side by side: a table per benchmark
    with two runs or more and main metric of its first, each split's
    value coloured against the run's P.

    Args:
        named (Sequence[tuple[str, dict]]): ``(name, shift.json)`` pairs.

    Returns:
        list[dict]: ``benchmark``, ``metric``, ``table`` and ``warnings``
        (``name``, ``warning`` of each run trained on corruptions or of
        unknown training) each.
    """
    out = []
    benchmarks = list(dict.fromkeys(r.get('benchmark') for _, r in named))
    for bench in benchmarks:
        group = [(n, r) for n, r in named if r.get('benchmark') == bench]
        if len(group) < 2:
            continue
        first = group[0][1]
        for metric in shift_main_metrics(first):
            splits = list(first['summary'][metric]['splits'])
            rows = []
            for name, results in group:
                values = results['summary'].get(metric) or {}
                rows.append(row([label(name)] + [
                    cell(points(v), v, values.get('P'))
                    for v in ((values.get('splits') or {}).get(s)
                              for s in splits)
                ]))
            out.append(dict(
                benchmark=bench, metric=metric,
                table=table(['run'] + splits, rows),
                warnings=[dict(name=n, warning=training_warning(r))
                          for n, r in group if training_warning(r)]))
    return out
