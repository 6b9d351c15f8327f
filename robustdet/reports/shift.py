# Copyright (c) robustdet contributors. All rights reserved.
"""Markdown, CSV and a plot of a shift benchmark's ``shift.json`` (the
layout of Michaelis et al. 2019, tables 4 and 5: P on the reference split,
then the value and rPC of every split)."""
import functools
from typing import Any, Dict, List

from ..utils.io import write_files_atomic
from ..visualization.report_plots import shift_plot
from .formatting import csv_text, slug
from .shift_view import shift_main_metrics, shift_view
from .templating import render


def shift_markdown(results: Dict[str, Any]) -> str:
    """The Markdown report of a shift benchmark (``templates/shift.md.j2``
    over :func:`~robustdet.reports.shift_view.shift_view`)."""
    return render('shift.md.j2', v=shift_view(results))


def shift_csv(results: Dict[str, Any]) -> str:
    """``shift.csv``: the view model's records
    (:func:`~robustdet.reports.shift_view.shift_records`)."""
    return csv_text(shift_view(results)['records'])


def write_shift_reports(results: Dict[str, Any], out_dir: str) -> List[str]:
    """Write ``shift.md``, ``shift.csv`` and ``shift_<metric>.png``."""
    return write_files_atomic(out_dir, [
        ('shift.md', functools.partial(shift_markdown, results)),
        ('shift.csv', functools.partial(shift_csv, results))
    ] + [(f'shift_{slug(m)}.png', functools.partial(shift_plot, results, m))
         for m in shift_main_metrics(results)])
