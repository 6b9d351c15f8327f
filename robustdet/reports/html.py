# Copyright (c) robustdet contributors. All rights reserved.
"""One self-contained HTML page of one or more robustdet runs
(robustness, shift and pm-k results), written by
``tools/robustness_report.py --html``.

Like the Markdown reports it is derived from the results JSON alone (and,
with ``--show-dir``, the example strips of ``tools/test_robust.py``). The
page references nothing outside itself: inline CSS, the plots and strips
as ``data:`` URIs, no script (see :mod:`robustdet.reports.html_parts`).
Every text from the results is escaped.
"""
import os
import os.path as osp
from typing import Any, Dict, List, Optional, Sequence, Tuple

from markupsafe import Markup

from ..baselines import baseline_rows, metric_of
from ..corruptions import CORRUPTION_NAMES
from ..evaluation.functional.video_robustness import CLIP_NAMES
from ..utils.errors import RobustDetError
from ..utils.io import write_text_atomic
from .compare import comparison, guess_dataset
from .compare_view import compare_view
from .corruption_errors import COUNT_WORDS
from .html_inputs import KIND_WORDS, ReportRun
from .html_parts import (code, contents, data_uri, esc, heading,
                         jpeg_thumbnail, page, para, picture, provenance)
from .html_shift_pmk import (pmk_comparison, pmk_section, shift_comparison,
                             shift_section)
from .robustness import plot_metric, plot_video_metric
from .robustness_view import robustness_view, runs_view
from .templating import render

# Strips embedded per corruption and in all (the rest are counted).
STRIPS_PER_CORRUPTION = 4
MAX_STRIPS = 48
STRIP_EXTENSIONS = ('.jpg', '.jpeg', '.png')


def _anchor(index: int) -> str:
    return f'run-{index}'


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
        count_words=COUNT_WORDS,
        provenance=Markup(provenance(run.kind, run.path, results)))


def runs_comparison(runs: Sequence[ReportRun]) -> str:
    """Several robustness runs side by side, one table per headline metric
    of the first, their training warnings first
    (``templates/runs.html.j2`` over
    :func:`~robustdet.reports.robustness_view.runs_view`)."""
    return render('runs.html.j2',
                  v=runs_view([(r.name, r.results) for r in runs]))


def published_comparison(runs: Sequence[ReportRun]) -> str:
    """The robustness runs beside the published rows of their dataset
    (:func:`~robustdet.reports.compare.comparison`), one table per task
    whose metric the runs have; '' where there is none."""
    dataset = guess_dataset(runs[0].results)
    out = ''
    for task in ('bbox', 'segm'):
        try:
            metric = metric_of(dataset, task)
        except RobustDetError:
            continue
        chosen = [(r.name, r.path, r.results) for r in runs
                  if metric in (r.results.get('summary') or {})]
        if not chosen or not baseline_rows(dataset, task):
            continue
        out += _published_table(comparison(chosen, dataset, task))
    return out


def _published_table(data: Dict[str, Any]) -> str:
    """One task's table beside the published rows
    (``templates/compare.html.j2`` over
    :func:`~robustdet.reports.compare_view.compare_view`)."""
    return render('compare.html.j2', v=compare_view(data))


# Strips and the page -----------------------------------------------------


def _strip_order(name: str) -> Tuple[int, str]:
    order = {n: i for i, n in enumerate(CORRUPTION_NAMES + CLIP_NAMES)}
    return order.get(name, len(order)), name


def strips_section(show_dir: str) -> str:
    """The example strips ``SHOW_DIR/strips/<corruption>/<image>`` of
    ``tools/test_robust.py --show-dir`` (pictures in subfolders of a
    corruption's folder too, e.g. a pm-k run's ``<severity>/<anchor>``),
    downscaled to JPEGs at most
    :data:`~robustdet.reports.html_parts.STRIP_WIDTH` wide:
    :data:`STRIPS_PER_CORRUPTION` per corruption, :data:`MAX_STRIPS` in
    all (the others are counted).

    Args:
        show_dir (str): The ``--show-dir`` folder.

    Returns:
        str: The section.
    """
    root = osp.join(show_dir, 'strips')
    if not osp.isdir(root):
        raise RobustDetError(
            f'--show-dir {show_dir}: no strips/ folder in it (test_robust.py '
            '--show-dir DIR writes DIR/strips/<corruption>/<image>.jpg)')
    out = heading(2, 'Examples', anchor='strips')
    out += para('From ' + code(show_dir) + esc(
        ': each strip shows an image clean and under a corruption, '
        'with the detections.'), 'note')
    shown, left, unreadable = 0, 0, []
    names = sorted((n for n in os.listdir(root)
                    if osp.isdir(osp.join(root, n))), key=_strip_order)
    for name in names:
        folder = osp.join(root, name)
        files = sorted(
            osp.relpath(osp.join(d, f), folder)
            for d, _, fnames in os.walk(folder) for f in fnames
            if f.lower().endswith(STRIP_EXTENSIONS))
        figures, here = '', 0
        for i, fname in enumerate(files):
            if here >= STRIPS_PER_CORRUPTION or shown >= MAX_STRIPS:
                left += len(files) - i
                break
            data = jpeg_thumbnail(osp.join(folder, fname))
            if data is None:
                unreadable.append(f'{name}/{fname}')
                continue
            shown += 1
            here += 1
            figures += ('<figure>' + picture(
                data, f'{name}: {fname}', mime='image/jpeg', cls='strip') +
                        f'<figcaption>{esc(name)} / {esc(fname)}'
                        '</figcaption></figure>\n')
        if figures:
            out += heading(3, name) + figures
    if not shown:
        out += para('No strip pictures in ' + code(root) + '.', 'warn')
    if left:
        out += para(esc(f'{left} more strips not shown (at most '
                        f'{STRIPS_PER_CORRUPTION} per corruption and '
                        f'{MAX_STRIPS} in all).'), 'note')
    if unreadable:
        out += para(esc('unreadable, left out: ' + ', '.join(unreadable)),
                    'warn')
    return out


_SECTIONS = dict(
    robustness=robustness_section, shift=shift_section, pmk=pmk_section)
_COMPARISONS = dict(
    robustness=runs_comparison, shift=shift_comparison, pmk=pmk_comparison)


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
            (:func:`~robustdet.reports.html_inputs.load_run`).
        show_dir (str, optional): A ``tools/test_robust.py --show-dir``
            folder whose strips to embed.

    Returns:
        str: The HTML document.
    """
    if not runs:
        raise RobustDetError('no run to report')
    toc: List[Tuple[str, str]] = []
    body = ''
    for kind, compare in _COMPARISONS.items():
        same = [r for r in runs if r.kind == kind]
        if len(same) > 1:
            toc.append((f'compare-{kind}',
                        f'{KIND_WORDS[kind].capitalize()} runs compared'))
            body += heading(2, toc[-1][1], anchor=toc[-1][0])
            body += compare(same)
    for index, run in enumerate(runs, 1):
        title = (run.name if len(runs) == 1 else
                 f'{run.name} ({KIND_WORDS[run.kind]})')
        toc.append((_anchor(index), title))
        body += f'<section>\n{heading(2, title, anchor=_anchor(index))}'
        body += _SECTIONS[run.kind](index, run) + '</section>\n'
    if show_dir:
        toc.append(('strips', 'Examples'))
        body += strips_section(show_dir)
    robustness = [r for r in runs if r.kind == 'robustness']
    published = published_comparison(robustness) if robustness else ''
    if published:
        toc.append(('published', 'Beside the published results'))
        body += heading(2, toc[-1][1], anchor='published') + published
    return page(page_title(runs), contents(toc) + body)


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
