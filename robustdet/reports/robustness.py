# Copyright (c) robustdet contributors. All rights reserved.
"""Markdown, CSV and plots of a robustness results file.

Everything here is derived from ``robustness.json`` alone, so
``tools/robustness_report.py`` can regenerate it at any time.
"""
import functools
import os.path as osp
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from ..evaluation.functional.run_results import (image_names, main_metrics,
                                                 video_names)
from ..utils.io import write_files_atomic, write_text_atomic
from ..visualization.report_plots import plot_metric, plot_video_metric
from .formatting import csv_text, slug
from .robustness_view import robustness_view, runs_view
from .templating import render


def markdown_report(results: Dict[str, Any],
                    title: str = 'Robustness benchmark') -> str:
    """The Markdown report: ``templates/robustness.md.j2`` over the run's
    view model (:func:`~robustdet.reports.robustness_view.robustness_view`).

    Args:
        results (dict): Results (see :mod:`robustdet.apis.results`).
        title (str): First heading.

    Returns:
        str: Markdown text.
    """
    return render('robustness.md.j2',
                  v=robustness_view(results, title=title))


def compare_markdown(named: Sequence[Any]) -> str:
    """Several models side by side, one row each (the layout of Michaelis
    et al. 2019, table 2), the training warnings of the runs first: a
    Markdown table per headline metric of the first run
    (``templates/runs.md.j2`` over
    :func:`~robustdet.reports.robustness_view.runs_view`).

    Args:
        named (list[tuple[str, dict]]): (row name, results) pairs.

    Returns:
        str: The tables (points, rPC in %, γ as numbers); '' without runs.
    """
    if not named:
        return ''
    return render('runs.md.j2', v=runs_view(named))


def summary_text(results: Dict[str, Any]) -> str:
    """A few plain-text lines of the results, without a final newline
    (``templates/summary.txt.j2`` over the run's view model): P, mPC and
    rPC of the main metrics, and with clip cells a ``<metric> video: mPC
    x  rPC y %  γa z  γr w`` line each (γ over all clip cells), the
    corruption errors, the training warning and what is missing."""
    return render('summary.txt.j2',
                  v=robustness_view(results)).rstrip('\n')


def csv_report(results: Dict[str, Any]) -> str:
    """``robustness.csv``: the view model's cell records
    (:func:`~robustdet.reports.robustness_view.cell_records`)."""
    return csv_text(robustness_view(results)['records']['cells'])


def summary_csv(results: Dict[str, Any]) -> str:
    """``robustness_summary.csv``: the view model's summary records
    (:func:`~robustdet.reports.robustness_view.summary_records`)."""
    return csv_text(robustness_view(results)['records']['summary'])


def _report_plan(results: Dict[str, Any], stem: str,
                 metrics: Optional[Sequence[str]]
                 ) -> List[Tuple[str, Callable[[], Any]]]:
    """``(file name, what makes its text or bytes)`` of each report."""
    plan = [(f'{stem}.md', functools.partial(markdown_report, results)),
            (f'{stem}.csv', functools.partial(csv_report, results)),
            (f'{stem}_summary.csv', functools.partial(summary_csv, results))]
    metrics = metrics or main_metrics(results)
    if image_names(results):
        plan += [(f'{stem}_{slug(m)}.png',
                  functools.partial(plot_metric, results, m))
                 for m in metrics]
    if video_names(results):
        plan += [(f'{stem}_video_{slug(m)}.png',
                  functools.partial(plot_video_metric, results, m))
                 for m in metrics]
    return plan


def report_names(results: Dict[str, Any], stem: str = 'robustness',
                 metrics: Optional[Sequence[str]] = None) -> List[str]:
    """The names of the files :func:`write_reports` writes for
    ``results``, in the order it writes them (what an import with
    ``--overwrite`` removes of the run it replaces).

    Args:
        results (dict): The results.
        stem (str): File name stem.
        metrics (Sequence[str], optional): Metrics to plot (default: the
            main metrics).
    """
    return [name for name, _ in _report_plan(results, stem, metrics)]


def write_reports(results: Dict[str, Any], out_dir: str,
                  stem: str = 'robustness',
                  metrics: Optional[Sequence[str]] = None) -> List[str]:
    """Write Markdown, CSVs and plots next to the results JSON.

    Args:
        results (dict): The results.
        out_dir (str): Directory to write into.
        stem (str): File name stem.
        metrics (Sequence[str], optional): Metrics to plot (default: the
            main metrics).

    Returns:
        list[str]: Paths written: ``{stem}.md``, ``{stem}.csv``,
        ``{stem}_summary.csv``, with image cells ``{stem}_<metric>.png``
        and with clip cells ``{stem}_video_<metric>.png`` per metric.
    """
    return write_files_atomic(out_dir, _report_plan(results, stem, metrics))


def write_region_report(runs: Sequence[Any], out_dir: str) -> str:
    """``regions.md``: the runs of one model under several ``--region``
    settings side by side (:func:`compare_markdown`).

    Args:
        runs (Sequence[tuple]): ``(region, results)`` pairs.
        out_dir (str): Directory to write into.

    Returns:
        str: The path written.
    """
    text = ('# Robustness per region\n\n'
            'One row per `--region`: `all` corrupts the whole image, '
            '`objects` only the ground-truth instances, `background` only '
            'what lies outside them (masks, else boxes, with a soft edge). '
            'P is the same clean evaluation in every row.\n\n' +
            compare_markdown(runs))
    path = osp.join(out_dir, 'regions.md')
    write_text_atomic(text, path)
    return path
