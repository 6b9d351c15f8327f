# Copyright (c) robustdet contributors. All rights reserved.
"""One self-contained HTML page of one or more robustdet runs
(robustness, shift and pm-k results), written by
``tools/robustness_report.py --html``.

Like the Markdown reports it is derived from the results JSON alone (and,
with ``--show-dir``, the example strips of ``tools/test_robust.py``). The
page references nothing outside itself: every picture is inlined as a
``data:`` URI (:func:`robustdet.visualization.strips.data_uri`), the
style sheet is inline, there is no script, and a Content-Security-Policy
``<meta>`` forbids any other source should one slip in. Every text from
the results is escaped.
"""
import json
import os
import os.path as osp
from typing import Any, Dict, List, NamedTuple, Optional, Sequence, Tuple

from markupsafe import Markup

from ..baselines import baseline_rows, guess_dataset, metric_of
from ..evaluation.functional.comparison import comparison
from ..utils.errors import RobustDetError
from ..utils.io import write_text_atomic
from ..version import __version__
from ..visualization.report_plots import (plot_metric, plot_report,
                                          plot_video_metric, shift_plot)
from ..visualization.strips import data_uri, strips
from .compare_view import compare_view
from .formatting import DASH
from .pmk_view import pmk_runs_view, pmk_view
from .robustness_view import robustness_view, runs_view
from .shift_view import shift_runs_view, shift_view
from .templating import TEMPLATES, render

KIND_WORDS = dict(robustness='robustness', shift='shift', pmk='pm-k')
# What the page may load: inline styles and data: pictures, nothing else.
CSP = ("default-src 'none'; img-src data:; style-src 'unsafe-inline'; "
       "base-uri 'none'; form-action 'none'")
# The settings a provenance list shows when the results hold them:
# (title, key, kinds of run it is shown for).
SETTINGS = (('seed', 'seed', None), ('backend', 'backend', None),
            ('channel order', 'channel_order', None),
            ('corruption device', 'corruption_device', None),
            ('region', 'region', 'robustness'),
            ('depth', 'depth', 'robustness'),
            ('pixels that depend on the CPU', 'cpu_dependent', 'robustness'),
            ('ground truth', 'ground_truth', None), ('shard', 'shard', None),
            ('video clips', 'video_clips', 'robustness'),
            ('split dir', 'split_dir', None),
            ('COCO-O root', 'coco_o_root', None))


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
        provenance=provenance(run.kind, run.path, results))


def published_comparison(runs: Sequence[ReportRun]) -> str:
    """The robustness runs beside the published rows of their dataset
    (:func:`~robustdet.evaluation.functional.comparison.comparison`), one
    table per task whose metric the runs have
    (``templates/compare.html.j2`` over
    :func:`~robustdet.reports.compare_view.compare_view`); '' where there
    is none."""
    dataset = guess_dataset(runs[0].results)
    out = ''
    for task in ('bbox', 'segm'):
        try:
            metric = metric_of(dataset, task)
        except RobustDetError:
            continue
        chosen = [(r.name, r.path, r.results) for r in runs
                  if metric in (r.results.get('summary') or {})]
        if chosen and baseline_rows(dataset, task):
            out += render('compare.html.j2', v=compare_view(
                comparison(chosen, dataset, task)))
    return out


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


def pmk_section(index: int, run: ReportRun) -> str:
    """The section of a pm-k report: mAP, localization mAP and accuracy
    per k, error vs offset, the plot and provenance
    (``templates/pmk_section.html.j2`` over
    :func:`~robustdet.reports.pmk_view.pmk_view`)."""
    return render('pmk_section.html.j2', v=pmk_view(run.results, index),
                  picture=data_uri(plot_report(run.results), 'image/png'),
                  provenance=provenance(run.kind, run.path, run.results))


# Provenance --------------------------------------------------------------


def item(term: str, code: Any = None, text: str = '') -> Dict[str, Any]:
    """A provenance entry: ``code`` (shown as code, None for none), then
    ``text``."""
    return dict(term=term, code=None if code is None else str(code),
                text=text)


def value_item(term: str, value: Any) -> Dict[str, Any]:
    """A results entry as a provenance item: '–' for None, JSON for
    lists and objects, the value otherwise, as code."""
    if value is None:
        return item(term, text=DASH)
    if isinstance(value, (dict, list)):
        value = json.dumps(value, sort_keys=True)
    return item(term, value)


def _pmk_items(r: Dict[str, Any]) -> List[Dict[str, Any]]:
    """A pm-k report's inputs and settings."""
    cls = r['classification']
    items = [value_item(f'input: {k}', v)
             for k, v in (r.get('sources') or {}).items() if v is not None]
    items += [value_item('largest k', r.get('k')),
              value_item('IoU threshold', r.get('iou_thr')),
              value_item('ImageNet VID small-box IoU', r.get('vid_iou')),
              item('headline mAP', text='class-agnostic'
                   if r.get('class_agnostic') else 'per class'),
              item('classification', text=f'judged per {cls.get("judge")} '
                   f'with {cls.get("labels")} labels'),
              item('skipped anchors',
                   text=str(len(r.get('skipped_anchors') or [])))]
    return items + [value_item(key, r[key])
                    for key in ('format', 'robustdet_version', 'config',
                                'checkpoint') if key in r]


def provenance(kind: str, path: str,
               r: Dict[str, Any]) -> List[Dict[str, Any]]:
    """Where a run's numbers come from: its file, config, checkpoint and
    their hashes, the settings that decide the numbers, where it was
    imported from, the robustdet version (a pm-k report: its inputs and
    settings).

    Args:
        kind (str): ``'robustness'``, ``'shift'`` or ``'pmk'``.
        path (str): The results file.
        r (dict): Its results.

    Returns:
        list[dict]: The entries (:func:`item`), in the page's order.
    """
    items = [item('results file', path)]
    if kind == 'pmk':
        return items + _pmk_items(r)
    if r.get('name'):
        items.append(item('name', text=str(r['name'])))
    imported = r.get('imported')
    if imported:
        items.append(item('imported', text=f'dataset '
                          f'{imported.get("dataset")}, task '
                          f'{imported.get("task") or "all"}'))
        items += [item('imported file', f.get('path'),
                       f' (layout {f.get("layout")}, sha256 '
                       f'{f.get("sha256")})')
                  for f in imported.get('files', [])]
    if kind == 'shift':
        items += [item('benchmark', text=str(r.get('benchmark'))),
                  item('reference split', text=str(r.get('reference'))),
                  item('layout',
                       text=f'Michaelis et al. 2019, {r.get("table")}')]
    items += [value_item('config', r.get('config')),
              value_item('config fingerprint (sha256)',
                         r.get('config_sha256')),
              value_item('checkpoint', r.get('checkpoint')),
              value_item('checkpoint sha256', r.get('checkpoint_sha256'))]
    # Image-corruption settings are shown for robustness runs only, the
    # CPU-dependent corruptions only when there are some.
    items += [value_item(title, r[key]) for title, key, only in SETTINGS
              if key in r and only in (None, kind)
              and (key != 'cpu_dependent' or r[key])]
    if r.get('ce_baseline'):
        base = r['ce_baseline']
        items.append(item('CE baseline',
                          text=f'{base.get("kind")} {base.get("name")}'))
    seconds = r.get('seconds') or {}
    if seconds:
        items.append(item('scoring time', text=(
            f'{sum(seconds.values()):.0f} s over {len(seconds)} '
            f'{"splits" if kind == "shift" else "cells"}')))
    return items + [value_item('robustdet version',
                               r.get('robustdet_version'))]


# The page -----------------------------------------------------------


_SECTIONS = dict(
    robustness=robustness_section, shift=shift_section, pmk=pmk_section)
# Several runs of a kind side by side: the template and its view model.
_COMPARISONS = dict(
    robustness=('runs.html.j2', runs_view),
    shift=('shift_runs.html.j2', shift_runs_view),
    pmk=('pmk_runs.html.j2', pmk_runs_view))


def runs_comparison(runs: Sequence[ReportRun]) -> str:
    """Several runs of one kind side by side (the kind of the first):
    robustness runs a table per headline metric of the first
    (:func:`~robustdet.reports.robustness_view.runs_view`), shift runs
    each split's value per benchmark
    (:func:`~robustdet.reports.shift_view.shift_runs_view`), pm-k reports
    the values at k = 0 and the largest k
    (:func:`~robustdet.reports.pmk_view.pmk_runs_view`); the training
    warnings of robustness runs first, of shift runs under each table's
    heading."""
    template, view = _COMPARISONS[runs[0].kind]
    return render(template, v=view([(r.name, r.results) for r in runs]))


def page(title: str, toc: Sequence[Tuple[str, str]],
         sections: Sequence[Dict[str, Any]]) -> str:
    """The whole document (``templates/page.html.j2``, the style sheet
    ``templates/page.css`` inlined).

    Args:
        title (str): Title and first heading.
        toc (Sequence[tuple[str, str]]): ``(anchor, title)`` of the
            contents (shown from two entries).
        sections (Sequence[dict]): ``anchor``, ``title``, ``body`` (HTML
            as :class:`markupsafe.Markup`) and ``section`` (whether the
            body is a run's ``<section>``).

    Returns:
        str: The HTML document.
    """
    with open(osp.join(TEMPLATES, 'page.css'), encoding='utf-8') as f:
        css = f.read()
    return render('page.html.j2', title=title, toc=toc, sections=sections,
                  css=css, csp=CSP, version=__version__)


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

    for kind in _COMPARISONS:
        same = [r for r in runs if r.kind == kind]
        if len(same) > 1:
            add(f'compare-{kind}',
                f'{KIND_WORDS[kind].capitalize()} runs compared',
                runs_comparison(same))
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
