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


def _fmt(value, digits=4):
    return '-' if value is None else f'{value:.{digits}f}'


def summary_lines(report):
    """Per-k table lines (stdout and Markdown share them)."""
    lines = ['| k | mAP50 | Δ | loc. mAP50 | loc. Δ | accuracy [95% CI] |',
             '|---|---|---|---|---|---|']
    acc = report['classification']['accuracy']
    for k in sorted(report['map'], key=int):
        a = acc[k]
        lines.append(
            f'| {k} | {_fmt(report["map"][k])} | {_fmt(report["delta"][k])} '
            f'| {_fmt(report["localization"]["map"][k])} '
            f'| {_fmt(report["localization"]["delta"][k])} '
            f'| {_fmt(a["acc"])} [{_fmt(a["low"])}, {_fmt(a["high"])}] |')
    return lines


def report_markdown(report):
    """Markdown summary of a report."""
    c = report['counts']
    src = '; '.join(f'{k}: `{v}`' for k, v in report['sources'].items()
                    if v is not None)
    lines = [
        '# pm-k report', '',
        f'- inputs: {src or "-"}',
        f'- {c["anchors"]} anchors ({c["skipped_anchors"]} skipped: no '
        f'non-crowd ground truth), {c["frames"]} frames, '
        f'{c["neighbours"]} neighbours, {c["predictions"]} predictions',
        f'- AP at IoU 0.5 (COCOeval, 101 points, maxDets 100)'
        f'{", ImageNet VID small-box IoU" if report["vid_iou"] else ""}; '
        f'headline mAP is '
        f'{"class-agnostic" if report["class_agnostic"] else "per class"}; '
        f'classification judged per {report["classification"]["judge"]} '
        f'with {report["classification"]["labels"]} labels',
    ]
    if report['empty_predictions']:
        lines.append('- **empty predictions**: every frame has AP 0')
    lines += ['', '## pm-k', ''] + summary_lines(report)
    lines += [
        '', '## Error vs offset', '',
        'Detection: neighbours with a lower per-image AP than their anchor. '
        'Classification: wrong neighbours of correct anchors.', '',
        '| offset | det. worse / n | fraction | cls. worse / n | fraction |',
        '|---|---|---|---|---|'
    ]
    for r in report['error_vs_offset']:
        d, c = r['detection'], r['classification']
        lines.append(f'| {r["offset"]} | {d["worse"]} / {d["n"]} '
                     f'| {_fmt(d["fraction"], 3)} | {c["worse"]} / {c["n"]} '
                     f'| {_fmt(c["fraction"], 3)} |')
    if report['skipped_anchors']:
        lines += ['', '## Skipped anchors', '']
        lines += [f'- `{k}`' for k in report['skipped_anchors']]
    return '\n'.join(lines) + '\n'


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
