# Copyright (c) robustdet contributors. All rights reserved.
"""The sections of shift and pm-k runs on the HTML report page
(:mod:`robustdet.reports.html`): their tables, coloured relative to the
reference (P, or the value at k = 0), plots and provenance."""
from typing import Sequence

from .html_inputs import ReportRun
from .html_parts import data_uri, provenance
from .pmk import plot_report
from .pmk_view import pmk_runs_view, pmk_view
from .shift import shift_plot
from .shift_view import shift_runs_view, shift_view
from .templating import render


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
