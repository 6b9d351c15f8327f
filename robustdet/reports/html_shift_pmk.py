# Copyright (c) robustdet contributors. All rights reserved.
"""The sections of shift and pm-k runs on the HTML report page
(:mod:`robustdet.reports.html`): their tables, coloured relative to the
reference (P, or the value at k = 0), plots and provenance."""
from typing import Optional, Sequence

from .formatting import percent, points
from .html_inputs import ReportRun
from .html_parts import (code, colour, definitions, esc, heading, json_value,
                         legend, para, picture, provenance, table, td)
from .pmk import plot_report
from .shift import shift_main_metrics, shift_plot


def shift_section(index: int, run: ReportRun) -> str:
    """The section of a shift run: value and rPC per split, the plots and
    provenance."""
    results = run.results
    splits = list(results.get('splits') or {}) or list(
        next(iter(results['summary'].values()), {}).get('splits', {}))
    mean_name = results.get('mean_name')
    out = para(esc(f'Benchmark {results.get("benchmark")}, reference '
                   f'split (P): {results.get("reference")}. Values in '
                   'points (× 100); rPC = value / P in %.'), 'note')
    out += legend()
    for metric in shift_main_metrics(results):
        row = results['summary'][metric]
        p = row.get('P')
        names = splits + ([f'{mean_name} mean'] if mean_name else [])
        values = [row['splits'].get(s) for s in splits] + (
            [row.get('mean')] if mean_name else [])
        ratios = [row['rPC'].get(s) for s in splits] + (
            [row.get('mean_rPC')] if mean_name else [])
        rows = [('', [td('AP')] + [
            td(points(v), num=True, background=colour(v, p)) for v in values
        ]), ('', [td('rPC [%]')] + [
            td(percent(r), num=True, background=colour(r, 1.0))
            for r in ratios
        ])]
        out += heading(3, metric)
        out += table([''] + names, rows,
                     table_id=f'shift-summary-{index}-{metric}')
    metrics = shift_main_metrics(results)
    if metrics:
        out += heading(3, 'Plots')
        for metric in metrics:
            out += picture(shift_plot(results, metric),
                           f'{metric} per split')
    return out + provenance(run.kind, run.path, run.results)


def shift_comparison(runs: Sequence[ReportRun]) -> str:
    """Shift runs of one benchmark side by side: each split's value."""
    out = ''
    benchmarks = list(dict.fromkeys(r.results.get('benchmark') for r in runs))
    for bench in benchmarks:
        group = [r for r in runs if r.results.get('benchmark') == bench]
        if len(group) < 2:
            continue
        first = group[0].results
        for metric in shift_main_metrics(first):
            splits = list(first['summary'][metric]['splits'])
            rows = []
            for run in group:
                row = run.results['summary'].get(metric) or {}
                p = row.get('P')
                rows.append(('', [td(run.name)] + [
                    td(points(v), num=True, background=colour(v, p))
                    for v in ((row.get('splits') or {}).get(s)
                              for s in splits)
                ]))
            out += heading(3, f'{bench}, {metric} (points)')
            out += table(['run'] + splits, rows)
    return out


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
