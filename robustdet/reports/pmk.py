# Copyright (c) robustdet contributors. All rights reserved.
"""The pm-k report (computed by
:func:`robustdet.evaluation.functional.pmk_report.pmk_report`): one JSON
(written first, atomically), then Markdown and a plot derived from it.
Shared by ``tools/eval_pmk.py`` (offline, from a results file) and
:class:`robustdet.evaluation.PMKMetric` (through ``tools/test_pmk.py`` or
mmdet's ``tools/test.py``)."""
import os.path as osp

from ..evaluation.functional.pmk_report import pmk_report as _pmk_report
from ..utils.deprecation import moved_names
from ..utils.io import dump_json_atomic, write_bytes_atomic, write_text_atomic
from ..visualization.report_plots import plot_report
from .pmk_view import pmk_view
from .templating import render


def write_pmk_reports(report, out):
    """Write the report JSON (atomically), then Markdown and PNG next to it.

    Args:
        report (dict): From :func:`pmk_report`.
        out (str): The JSON path, or a directory (then ``pmk.json`` in it).

    Returns:
        list[str]: The JSON, Markdown and PNG paths.
    """
    path = out if out.endswith('.json') else osp.join(out, 'pmk.json')
    stem = osp.splitext(path)[0]
    dump_json_atomic(report, path)
    write_text_atomic(report_markdown(report), stem + '.md')
    write_bytes_atomic(plot_report(report), stem + '.png')
    return [path, stem + '.md', stem + '.png']


def summary_lines(report):
    """The lines of a report's per-k table (``templates/_pmk.md.j2``;
    stdout and Markdown share them)."""
    return render('pmk_lines.md.j2', v=pmk_view(report)).split('\n')


def report_markdown(report):
    """Markdown summary of a report (``templates/pmk.md.j2`` over
    :func:`~robustdet.reports.pmk_view.pmk_view`)."""
    return render('pmk.md.j2', v=pmk_view(report))


# pmk_report computed the report here before it moved to evaluation/; the
# old path works for one release.
__getattr__ = moved_names(
    __name__,
    dict(pmk_report=('robustdet.evaluation.functional.pmk_report.pmk_report',
                     lambda: _pmk_report)))
