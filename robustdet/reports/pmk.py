# Copyright (c) robustdet contributors. All rights reserved.
"""The pm-k report (computed by
:func:`robustdet.evaluation.functional.pmk_report.pmk_report`): one JSON
(written first, atomically), then Markdown and a plot derived from it.
Shared by ``tools/eval_pmk.py`` (offline, from a results file) and
:class:`robustdet.evaluation.PMKMetric` (through ``tools/test_pmk.py`` or
mmdet's ``tools/test.py``)."""
import io
import os.path as osp

from ..evaluation.functional.pmk_report import pmk_report as _pmk_report
from ..utils.deprecation import moved_names
from ..utils.io import dump_json_atomic, write_bytes_atomic, write_text_atomic
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
    """The per-k table's lines (``templates/_pmk.md.j2``; stdout and
    Markdown share them).

    Args:
        report (dict): From :func:`pmk_report`.

    Returns:
        list[str]: The lines.
    """
    return render('pmk_lines.md.j2', v=pmk_view(report)).split('\n')


def report_markdown(report):
    """Markdown summary of a report (``templates/pmk.md.j2`` over
    :func:`~robustdet.reports.pmk_view.pmk_view`)."""
    return render('pmk.md.j2', v=pmk_view(report))


def plot_report(report):
    """PNG bytes: pm-k curves and error vs offset."""
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt

    ks = sorted(report['map'], key=int)
    x = [int(k) for k in ks]

    def series(values):
        return [float('nan') if values[k] is None else values[k] for k in ks]

    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4))
    ax1.plot(x, series(report['map']), 'o-', label='mAP50')
    ax1.plot(x, series(report['localization']['map']), 's-',
             label='class-agnostic mAP50')
    acc = report['classification']['accuracy']
    ax1.plot(x, [acc[k]['acc'] for k in ks], '^-', label='accuracy')
    ax1.fill_between(x, [acc[k]['low'] for k in ks],
                     [acc[k]['high'] for k in ks], alpha=0.2, color='C2')
    ax1.set_xlabel('k')
    ax1.set_ylabel('pm-k')
    ax1.set_title('worst frame within |offset| <= k')
    ax1.legend()
    ax1.grid(alpha=0.3)
    rows = report['error_vs_offset']
    offsets = [r['offset'] for r in rows]
    for name, marker in (('detection', 'o'), ('classification', '^')):
        ax2.plot(offsets, [
            float('nan') if r[name]['fraction'] is None else
            r[name]['fraction'] for r in rows
        ], marker + '-', label=name)
    ax2.set_xlabel('offset (frames)')
    ax2.set_ylabel('fraction of neighbours worse than anchor')
    ax2.set_title('error vs offset')
    ax2.legend()
    ax2.grid(alpha=0.3)
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format='png', dpi=100)
    plt.close(fig)
    return buf.getvalue()


# pmk_report computed the report here before it moved to evaluation/; the
# old path works for one release.
__getattr__ = moved_names(
    __name__,
    dict(pmk_report=('robustdet.evaluation.functional.pmk_report.pmk_report',
                     lambda: _pmk_report)))
