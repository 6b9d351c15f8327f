# Copyright (c) robustdet contributors. All rights reserved.
"""Markdown, CSV and the P-mPC scatter plot of a comparison of runs with
the published leaderboard
(:func:`robustdet.evaluation.functional.comparison.comparison`, which
builds ``compare.json``), derived from it alone. Used by
``tools/compare_results.py``.
"""
import os.path as osp
from typing import Any, Dict, List

from ..corruptions import SEVERITIES
from ..evaluation.functional.comparison import comparison as _comparison
from ..utils.deprecation import moved_names
from ..utils.io import dump_json_atomic, write_bytes_atomic, write_text_atomic
from ..visualization.report_plots import comparison_plot
from .compare_view import compare_view
from .formatting import csv_text
from .templating import render

STEM = 'compare'


def comparison_markdown(data: Dict[str, Any], brief: bool = False) -> str:
    """The Markdown report: ``templates/compare.md.j2`` over
    :func:`~robustdet.reports.compare_view.compare_view`: the main table
    with its footnotes, notes and citations, the corruption errors
    against the CE baseline, each run's mPC per corruption.

    Args:
        data (dict): The comparison (``compare.json``).
        brief (bool): The main table and the corruption errors only,
            without the title (what ``tools/compare_results.py`` prints).

    Returns:
        str: Markdown text.
    """
    return render('compare.md.j2', v=compare_view(data), brief=brief,
                  severities=len(SEVERITIES))


def comparison_csv(data: Dict[str, Any]) -> str:
    """``compare.csv`` of a comparison (``compare.json``): the view
    model's records
    (:func:`~robustdet.reports.compare_view.comparison_records`)."""
    return csv_text(compare_view(data)['records'])


def write_comparison(data: Dict[str, Any], out_dir: str) -> List[str]:
    """Write ``compare.json`` (first), ``compare.md``, ``compare.csv`` and
    ``compare.png`` into ``out_dir``, each atomically (files already there
    are replaced).

    Args:
        data (dict): The comparison (``compare.json``).
        out_dir (str): Directory (created).

    Returns:
        list[str]: The paths written.
    """
    paths = [osp.join(out_dir, f'{STEM}.{ext}')
             for ext in ('json', 'md', 'csv', 'png')]
    dump_json_atomic(data, paths[0])
    write_text_atomic(comparison_markdown(data), paths[1])
    write_text_atomic(comparison_csv(data), paths[2])
    write_bytes_atomic(comparison_plot(data), paths[3])
    return paths


# comparison built the comparison here before it moved to evaluation/;
# the old path works for one release.
__getattr__ = moved_names(
    __name__,
    dict(comparison=('robustdet.evaluation.functional.comparison.comparison',
                     lambda: _comparison)))
