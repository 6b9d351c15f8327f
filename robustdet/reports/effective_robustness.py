# Copyright (c) robustdet contributors. All rights reserved.
"""Effective robustness of COCO-O runs: the COCO-O mAP (mean over the six
domains) of each run against its COCO mAP, a least-squares line over the
chosen runs and each run's distance above it
(:mod:`robustdet.evaluation.functional.effective_robustness`).

:func:`er_report` builds the report (a JSON-serialisable dict, every value
in points: mAP × 100) from ``shift.json`` files of ``--benchmark coco-o``;
Markdown and the scatter plot are derived from it alone. Used by
``tools/effective_robustness.py``.
"""
import os.path as osp
from typing import Any, Dict, List, Optional, Sequence, Tuple

from ..evaluation.functional.effective_robustness import \
    effective_robustness_table
from ..utils.errors import RobustDetError
from ..utils.io import dump_json_atomic, write_bytes_atomic, write_text_atomic
from ..visualization.report_plots import er_plot
from .formatting import DASH, one_decimal
from .templating import render

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


def er_view(data: Dict[str, Any]) -> Dict[str, Any]:
    """The view model of the report: the line written out, a row of
    written cells per run.

    Args:
        data (dict): From :func:`er_report`.

    Returns:
        dict: ``metric``, ``fitted``, ``slope``, ``intercept`` (its sign
        and magnitude, ``'− 37.31'``), ``domains`` and ``rows``.
    """
    line = data['line']
    sign = '+' if line['intercept'] >= 0 else '−'
    return dict(
        metric=data['metric'],
        fitted=list(line['fitted']),
        slope=f'{line["slope"]:.4f}',
        intercept=f'{sign} {abs(line["intercept"]):.2f}',
        domains=list(data['domains']),
        rows=[[r['name'], one_decimal(r['coco']), one_decimal(r['coco_o'])] +
              [one_decimal(r['domains'][d]) for d in data['domains']] +
              [DASH if r['er'] is None else f'{r["er"]:+.2f}',
               'yes' if r['fitted'] else 'no']
              for r in data['runs']])


def er_markdown(data: Dict[str, Any]) -> str:
    """The report as Markdown (``templates/effective_robustness.md.j2``
    over :func:`er_view`): the line, then one row per run."""
    return render('effective_robustness.md.j2', v=er_view(data))


def write_er_report(data: Dict[str, Any], out_dir: str) -> List[str]:
    """Write ``effective_robustness.json`` (first), ``.md`` and ``.png``
    into ``out_dir``, each atomically (files already there are replaced).

    Args:
        data (dict): From :func:`er_report`.
        out_dir (str): Directory (created).

    Returns:
        list[str]: The paths written.
    """
    paths = [osp.join(out_dir, f'{STEM}.{ext}')
             for ext in ('json', 'md', 'png')]
    dump_json_atomic(data, paths[0])
    write_text_atomic(er_markdown(data), paths[1])
    write_bytes_atomic(er_plot(data), paths[2])
    return paths
