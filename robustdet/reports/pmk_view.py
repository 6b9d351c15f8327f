# Copyright (c) robustdet contributors. All rights reserved.
"""The view model of a pm-k report: what ``pmk.md``, the lines
``test_pmk.py`` and ``eval_pmk.py`` print and the report's section of the
HTML page show, decided once; ``templates/pmk.md.j2``,
``pmk_lines.md.j2``, ``pmk_section.html.j2`` and ``pmk_runs.html.j2`` lay
it out."""
from typing import Any, Dict, List, Sequence, Tuple

from .formatting import fraction
from .robustness_view import cell, label, row, table


def _ks(report: Dict[str, Any]) -> List[str]:
    return sorted(report['map'], key=int)


def pmk_view(report: Dict[str, Any], index: int = 1) -> Dict[str, Any]:
    """The view model of a pm-k report.

    Args:
        report (dict): From
            :func:`robustdet.evaluation.functional.pmk_report.pmk_report`.
        index (int): Its number on a page (for the tables' ids).

    Returns:
        dict: ``counts``, ``sources`` (``[name, path]`` given), the
        settings (``vid_iou``, ``class_agnostic``, ``judge``, ``labels``),
        ``empty_predictions``, ``ks`` (a row per k: mAP50, Δ, the
        localization mAP50 and Δ, accuracy and its 95 % interval, each
        coloured against its value at the first k), ``offsets`` (error
        vs offset) and ``skipped_anchors``.
    """
    ks = _ks(report)
    first = ks[0] if ks else '0'
    acc = report['classification']['accuracy']
    loc = report['localization']
    rows = []
    for k in ks:
        a = acc.get(k) or {}
        rows.append(dict(
            k=k,
            map=cell(fraction(report['map'][k]), report['map'][k],
                     report['map'][first]),
            delta=cell(fraction(report['delta'].get(k))),
            loc_map=cell(fraction(loc['map'].get(k)), loc['map'].get(k),
                         loc['map'].get(first)),
            loc_delta=cell(fraction(loc['delta'].get(k))),
            acc=cell(fraction(a.get('acc')), a.get('acc'),
                     (acc.get(first) or {}).get('acc')),
            low=fraction(a.get('low')),
            high=fraction(a.get('high'))))
    offsets = []
    for e in report['error_vs_offset']:
        parts = [e[p] for p in ('detection', 'classification')]
        offsets.append(row([label(str(e['offset']))] + [
            cell(x) for part in parts
            for x in (f'{part["worse"]} / {part["n"]}',
                      fraction(part['fraction'], 3))
        ]))
    cls = report['classification']
    return dict(
        id=f'pmk-summary-{index}',
        counts=report['counts'],
        sources=[[k, v] for k, v in (report.get('sources') or {}).items()
                 if v is not None],
        vid_iou=bool(report.get('vid_iou')),
        class_agnostic=bool(report.get('class_agnostic')),
        judge=cls.get('judge'),
        labels=cls.get('labels'),
        empty_predictions=bool(report.get('empty_predictions')),
        ks=rows,
        offsets=table(['offset', 'det. worse / n', 'fraction',
                       'cls. worse / n', 'fraction'], offsets),
        skipped_anchors=list(report.get('skipped_anchors') or []))


def pmk_runs_view(named: Sequence[Tuple[str, Dict[str, Any]]]
                  ) -> Dict[str, Any]:
    """The table of pm-k reports side by side, ``named`` ``(name,
    report)`` pairs: the values at k = 0 and at the largest k (mAP50 there
    coloured against k = 0)."""
    rows = []
    for name, r in named:
        ks = _ks(r)
        k0, kmax = ks[0], ks[-1]
        acc = r['classification']['accuracy']
        rows.append(row([
            label(name), label(kmax),
            cell(fraction(r['map'][k0])),
            cell(fraction(r['map'][kmax]), r['map'][kmax], r['map'][k0]),
            cell(fraction(r['localization']['map'].get(kmax))),
            cell(fraction((acc.get(kmax) or {}).get('acc')))
        ]))
    return table(['run', 'largest k', 'mAP50 k=0', 'mAP50 largest k',
                  'loc. mAP50 largest k', 'accuracy largest k'], rows)
