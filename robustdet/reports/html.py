# Copyright (c) robustdet contributors. All rights reserved.
"""One self-contained HTML page of one or more robustdet runs
(robustness, shift and pm-k results), written by
``tools/robustness_report.py --html``.

Like the Markdown reports it is derived from the results JSON alone (and,
with ``--show-dir``, the example strips of ``tools/test_robust.py``). The
page references nothing outside itself: inline CSS, the plots and strips
as ``data:`` URIs, no script (see :mod:`robustdet.reports.html_parts`).
Every text from the results is escaped.
"""
import os
import os.path as osp
from typing import Any, Dict, List, NamedTuple, Optional, Sequence

from markupsafe import Markup

from ..baselines import baseline_rows, guess_dataset, metric_of
from ..evaluation.functional.comparison import comparison
from ..utils.errors import RobustDetError
from ..utils.io import write_text_atomic
from ..visualization.report_plots import (plot_metric, plot_report,
                                          plot_video_metric, shift_plot)
from ..visualization.strips import data_uri, strips
from .compare_view import compare_view
from .corruption_errors import COUNT_WORDS
from .html_parts import page, provenance
from .pmk_view import pmk_runs_view, pmk_view
from .robustness_view import robustness_view, runs_view
from .shift_view import shift_runs_view, shift_view
from .templating import render

KIND_WORDS = dict(robustness='robustness', shift='shift', pmk='pm-k')


class ReportRun(NamedTuple):
    """A result file read for the report.

    Attributes:
        kind (str): ``'robustness'``, ``'shift'`` or ``'pmk'``.
        name (str): Its name on the page.
        path (str): The file.
        results (dict): What it holds.
    """
    kind: str
    name: str
    path: str
    results: Dict[str, Any]


# Robustness runs ---------------------------------------------------------


def robustness_section(index: int, run: ReportRun) -> str:
    """The section of a robustness run: facts, summary, corruption
    errors, per-corruption tables, plots and provenance
    (``templates/robustness_section.html.j2`` over the run's view model,
    :func:`~robustdet.reports.robustness_view.robustness_view`).

    Args:
        index (int): Its number on the page (1-based, for the anchors).
        run (ReportRun): The run.

    Returns:
        str: The section.
    """
    results = run.results
    view = robustness_view(results, index=index)
    plots = []
    if view['metrics'] and view['has_image_cells']:
        plots += [(plot_metric, m, m) for m in view['metrics']]
    if view['metrics'] and view['video']:
        plots += [(plot_video_metric, m, f'{m}, video')
                  for m in view['metrics']]
    pictures = [(f'{alt} per severity',
                 data_uri(plot(results, metric), 'image/png'))
                for plot, metric, alt in plots]
    return render(
        'robustness_section.html.j2', v=view, pictures=pictures,
        count_words=COUNT_WORDS,
        provenance=provenance(run.kind, run.path, results))


def runs_comparison(runs: Sequence[ReportRun]) -> str:
    """Several robustness runs side by side, one table per headline metric
    of the first, their training warnings first
    (``templates/runs.html.j2`` over
    :func:`~robustdet.reports.robustness_view.runs_view`)."""
    return render('runs.html.j2',
                  v=runs_view([(r.name, r.results) for r in runs]))


def published_comparison(runs: Sequence[ReportRun]) -> str:
    """The robustness runs beside the published rows of their dataset
    (:func:`~robustdet.evaluation.functional.comparison.comparison`), one
    table per task whose metric the runs have; '' where there is none."""
    dataset = guess_dataset(runs[0].results)
    out = ''
    for task in ('bbox', 'segm'):
        try:
            metric = metric_of(dataset, task)
        except RobustDetError:
            continue
        chosen = [(r.name, r.path, r.results) for r in runs
                  if metric in (r.results.get('summary') or {})]
        if not chosen or not baseline_rows(dataset, task):
            continue
        out += _published_table(comparison(chosen, dataset, task))
    return out


def _published_table(data: Dict[str, Any]) -> str:
    """One task's table beside the published rows
    (``templates/compare.html.j2`` over
    :func:`~robustdet.reports.compare_view.compare_view`)."""
    return render('compare.html.j2', v=compare_view(data))


# Shift and pm-k runs -----------------------------------------------------


def shift_section(index: int, run: ReportRun) -> str:
    """The section of a shift run: value and rPC per split, the plots and
    provenance (``templates/shift_section.html.j2`` over
    :func:`~robustdet.reports.shift_view.shift_view`)."""
    results = run.results
    view = shift_view(results, index)
    pictures = [(f'{m["metric"]} per split',
                 data_uri(shift_plot(results, m['metric']), 'image/png'))
                for m in view['metrics']]
    return render('shift_section.html.j2', v=view, pictures=pictures,
                  provenance=provenance(run.kind, run.path, results))


def shift_comparison(runs: Sequence[ReportRun]) -> str:
    """Shift runs of one benchmark side by side: each split's value
    (``templates/shift_runs.html.j2``)."""
    return render('shift_runs.html.j2', tables=shift_runs_view(
        [(r.name, r.results) for r in runs]))


def pmk_section(index: int, run: ReportRun) -> str:
    """The section of a pm-k report: mAP, localization mAP and accuracy
    per k, error vs offset, the plot and provenance
    (``templates/pmk_section.html.j2`` over
    :func:`~robustdet.reports.pmk_view.pmk_view`)."""
    return render('pmk_section.html.j2', v=pmk_view(run.results, index),
                  picture=data_uri(plot_report(run.results), 'image/png'),
                  provenance=provenance(run.kind, run.path, run.results))


def pmk_comparison(runs: Sequence[ReportRun]) -> str:
    """pm-k reports side by side: the values at k = 0 and the largest k
    (``templates/pmk_runs.html.j2``)."""
    return render('pmk_runs.html.j2', t=pmk_runs_view(
        [(r.name, r.results) for r in runs]))


# The page -----------------------------------------------------------


_SECTIONS = dict(
    robustness=robustness_section, shift=shift_section, pmk=pmk_section)
_COMPARISONS = dict(
    robustness=runs_comparison, shift=shift_comparison, pmk=pmk_comparison)


def page_title(runs: Sequence[ReportRun]) -> str:
    """The page's title."""
    if len(runs) == 1:
        run = runs[0]
        if run.kind == 'shift':
            return (f'Shift benchmark {run.results.get("benchmark")}: '
                    f'{run.name}')
        return f'{KIND_WORDS[run.kind].capitalize()} report: {run.name}'
    return 'robustdet reports: ' + ', '.join(r.name for r in runs)


def html_report(runs: Sequence[ReportRun],
                show_dir: Optional[str] = None) -> str:
    """The page of one or more runs.

    With several runs of a kind, a comparison of them comes first; then a
    section per run (summary, tables, plots, provenance); then the
    strips of ``show_dir``; then the robustness runs beside the published
    results of their dataset.

    Args:
        runs (Sequence[ReportRun]): The runs
            (:func:`~robustdet.apis.report_inputs.load_run`).
        show_dir (str, optional): A ``tools/test_robust.py --show-dir``
            folder whose strips to embed.

    Returns:
        str: The HTML document.
    """
    if not runs:
        raise RobustDetError('no run to report')
    sections: List[Dict[str, Any]] = []

    def add(anchor, title, body, section=False):
        sections.append(dict(anchor=anchor, title=title, body=Markup(body),
                             section=section))

    for kind, compare in _COMPARISONS.items():
        same = [r for r in runs if r.kind == kind]
        if len(same) > 1:
            add(f'compare-{kind}',
                f'{KIND_WORDS[kind].capitalize()} runs compared',
                compare(same))
    for index, run in enumerate(runs, 1):
        title = (run.name if len(runs) == 1 else
                 f'{run.name} ({KIND_WORDS[run.kind]})')
        add(f'run-{index}', title, _SECTIONS[run.kind](index, run), True)
    if show_dir:
        add('strips', 'Examples', render('strips.html.j2',
                                         v=strips(show_dir)))
    robustness = [r for r in runs if r.kind == 'robustness']
    published = published_comparison(robustness) if robustness else ''
    if published:
        add('published', 'Beside the published results', published)
    return page(page_title(runs), [(s['anchor'], s['title'])
                                   for s in sections], sections)


def write_html_report(runs: Sequence[ReportRun],
                      out_dir: Optional[str] = None,
                      show_dir: Optional[str] = None) -> str:
    """Write the page of ``runs`` (:func:`html_report`) as
    ``<stem of the first JSON>.html``, atomically.

    Args:
        runs (Sequence[ReportRun]): The runs.
        out_dir (str, optional): Where to write (default: beside the first
            run's JSON).
        show_dir (str, optional): A ``--show-dir`` folder with strips.

    Returns:
        str: The path written.
    """
    text = html_report(runs, show_dir=show_dir)
    first = runs[0].path
    out_dir = out_dir or osp.dirname(osp.abspath(first))
    stem = osp.splitext(osp.basename(first))[0]
    path = osp.join(out_dir, f'{stem}.html')
    os.makedirs(out_dir, exist_ok=True)
    write_text_atomic(text, path)
    return path
