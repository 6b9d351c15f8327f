# Copyright (c) robustdet contributors. All rights reserved.
"""The sections of shift and pm-k runs on the HTML report page
(:mod:`robustdet.reports.html`): their tables, coloured relative to the
reference (P, or the value at k = 0), plots and provenance."""
from typing import Optional, Sequence

from markupsafe import Markup

from .html_inputs import ReportRun
from .html_parts import (code, colour, data_uri, definitions, esc, heading,
                         json_value, para, picture, provenance, table, td)
from .pmk import plot_report
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
                  provenance=Markup(provenance(run.kind, run.path,
                                               results)))


def shift_comparison(runs: Sequence[ReportRun]) -> str:
    """Shift runs of one benchmark side by side: each split's value
    (``templates/shift_runs.html.j2``)."""
    return render('shift_runs.html.j2', tables=shift_runs_view(
        [(r.name, r.results) for r in runs]))


def _pmk_fmt(value: Optional[float], digits: int = 4) -> str:
    return '–' if value is None else f'{value:.{digits}f}'


def pmk_section(index: int, run: ReportRun) -> str:
    """The section of a pm-k report: mAP, localization mAP and accuracy
    per k, error vs offset, the plot and provenance."""
    r = run.results
    c = r['counts']
    out = para(esc(
        f'{c.get("anchors")} anchors ({c.get("skipped_anchors")} skipped: '
        f'no non-crowd ground truth), {c.get("frames")} frames, '
        f'{c.get("neighbours")} neighbours, {c.get("predictions")} '
        'predictions. AP at IoU 0.5; values as fractions; each cell '
        'coloured relative to its k = 0 value.'), 'note')
    if r.get('empty_predictions'):
        out += para('<span class="warn">empty predictions</span>: every '
                    'frame has AP 0')
    ks = sorted(r['map'], key=int)
    acc = r['classification']['accuracy']
    first = ks[0] if ks else '0'
    rows = []
    for k in ks:
        a = acc.get(k) or {}
        rows.append(('', [
            td(k),
            td(_pmk_fmt(r['map'][k]), num=True,
               background=colour(r['map'][k], r['map'][first])),
            td(_pmk_fmt(r['delta'].get(k)), num=True),
            td(_pmk_fmt(r['localization']['map'].get(k)), num=True,
               background=colour(r['localization']['map'].get(k),
                                 r['localization']['map'].get(first))),
            td(_pmk_fmt(r['localization']['delta'].get(k)), num=True),
            td(_pmk_fmt(a.get('acc')), num=True,
               background=colour(a.get('acc'),
                                 (acc.get(first) or {}).get('acc'))),
            td(f'[{_pmk_fmt(a.get("low"))}, {_pmk_fmt(a.get("high"))}]')
        ]))
    out += heading(3, 'pm-k')
    out += table(['k', 'mAP50', 'Δ', 'loc. mAP50', 'loc. Δ', 'accuracy',
                  '95 % CI'], rows, table_id=f'pmk-summary-{index}')
    offsets = [('', [td(e['offset'])] + [
        td(x, num=True) for part in ('detection', 'classification')
        for x in (f'{e[part]["worse"]} / {e[part]["n"]}',
                  _pmk_fmt(e[part]['fraction'], 3))
    ]) for e in r['error_vs_offset']]
    out += heading(3, 'Error vs offset')
    out += table(['offset', 'det. worse / n', 'fraction', 'cls. worse / n',
                  'fraction'], offsets)
    out += heading(3, 'Plot')
    out += picture(plot_report(r), 'pm-k curves and error vs offset')
    cls = r['classification']
    items = [('results file', code(run.path))]
    items += [(f'input: {k}', json_value(v))
              for k, v in (r.get('sources') or {}).items() if v is not None]
    items += [('largest k', json_value(r.get('k'))),
              ('IoU threshold', json_value(r.get('iou_thr'))),
              ('ImageNet VID small-box IoU', json_value(r.get('vid_iou'))),
              ('headline mAP', esc('class-agnostic' if r.get(
                  'class_agnostic') else 'per class')),
              ('classification', esc(f'judged per {cls.get("judge")} with '
                                     f'{cls.get("labels")} labels')),
              ('skipped anchors', esc(len(r.get('skipped_anchors') or [])))]
    for key in ('format', 'robustdet_version', 'config', 'checkpoint'):
        if key in r:
            items.append((key, json_value(r[key])))
    return out + heading(3, 'Provenance') + definitions(items)


def pmk_comparison(runs: Sequence[ReportRun]) -> str:
    """pm-k reports side by side: the values at k = 0 and the largest k."""
    rows = []
    for run in runs:
        r = run.results
        ks = sorted(r['map'], key=int)
        k0, kmax = ks[0], ks[-1]
        acc = r['classification']['accuracy']
        rows.append(('', [
            td(run.name), td(kmax),
            td(_pmk_fmt(r['map'][k0]), num=True),
            td(_pmk_fmt(r['map'][kmax]), num=True,
               background=colour(r['map'][kmax], r['map'][k0])),
            td(_pmk_fmt(r['localization']['map'].get(kmax)), num=True),
            td(_pmk_fmt((acc.get(kmax) or {}).get('acc')), num=True)
        ]))
    return heading(3, 'pm-k') + table(
        ['run', 'largest k', 'mAP50 k=0', 'mAP50 largest k',
         'loc. mAP50 largest k', 'accuracy largest k'], rows)
