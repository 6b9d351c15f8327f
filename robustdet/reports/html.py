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

from ..baselines import CITATIONS, baseline_rows, metric_of
from ..corruptions import CORRUPTION_NAMES, CORRUPTIONS_BY_NAME, SEVERITIES
from ..evaluation.functional.video_robustness import (CLIP_NAMES, FAMILY_OF,
                                                      KINDS)
from ..utils.errors import RobustDetError
from ..utils.io import write_text_atomic
from .compare import (CLASS_MEAN_COLUMN, comparison, guess_dataset,
                      shows_class_mean)
from .corruption_errors import COUNT_WORDS, FAMILY_TITLES, mean_with_count
from .formatting import gamma, one_decimal, percent, points, signed
from .html_inputs import KIND_WORDS, ReportRun
from .html_parts import (code, colour, contents, esc, heading, jpeg_thumbnail,
                         legend, page, para, picture, provenance, raw_td,
                         table, td)
from .html_shift_pmk import (pmk_comparison, pmk_section, shift_comparison,
                             shift_section)
from .robustness import (VIDEO_COMPARE_COLUMNS, cell_value, compact_cells,
                         image_names, main_metrics, mean_of, plot_metric,
                         plot_video_metric, shows_image, summary_columns,
                         training_warning, video_coverage_of, video_names,
                         video_summary_of)

# Strips embedded per corruption and in all (the rest are counted).
STRIPS_PER_CORRUPTION = 4
MAX_STRIPS = 48
STRIP_EXTENSIONS = ('.jpg', '.jpeg', '.png')


def _anchor(index: int) -> str:
    return f'run-{index}'


def _value_td(value: Optional[float], column: str,
              p: Optional[float]) -> str:
    """A summary value in points: mPC-like columns coloured relative to
    P, rPC-like ones by their ratio."""
    if column.startswith('rPC'):
        background = colour(value, 1.0)
    elif column.startswith('mPC'):
        background = colour(value, p)
    else:
        background = None
    return td(points(value), num=True, background=background)


# Robustness runs ---------------------------------------------------------


def _facts(results: Dict[str, Any]) -> str:
    """Training corruptions, coverage, missing cells, empty cells and
    skipped images."""
    items = []
    warning = training_warning(results)
    if warning:
        items.append(f'<span class="warn">{esc(warning)}</span>')
    cov = results.get('coverage') or {}
    if cov and shows_image(results):
        done, total = cov['benchmark']
        hdone, htotal = cov['holdout']
        items.append(esc(
            f'benchmark cells: {done}/{total}, hold-out cells: '
            f'{hdone}/{htotal}' + ''.join(
                f', {f} cells: {cov[f][0]}/{cov[f][1]}'
                for f in ('cbar', '3dcc') if f in cov)))
        if not cov.get('complete', True):
            items.append(
                '<span class="warn">incomplete grid</span>: ' +
                esc(f'mPC averages the {done} benchmark cells present, not '
                    f'all {total}; missing: '
                    f'{compact_cells(cov["missing"])}'))
    vcov = video_coverage_of(results)
    if vcov:
        done, total = vcov['video']
        items.append(esc(f'video cells: {done}/{total}'))
    if results.get('empty_cells'):
        items.append(esc('cells without any detection (scored as AP 0): ' +
                         ', '.join(results['empty_cells'])))
    if results.get('skipped_images'):
        items.append(esc(f'skipped unreadable images: '
                         f'{len(results["skipped_images"])}'))
    if not items:
        return ''
    return '<ul>' + ''.join(f'<li>{i}</li>' for i in items) + '</ul>\n'


def _summary(index: int, results: Dict[str, Any],
             metrics: List[str]) -> str:
    columns = summary_columns([results])
    rows = []
    for metric in metrics:
        row = (results.get('summary') or {}).get(metric, {})
        rows.append(('', [td(metric)] + [
            _value_td(row.get(c), c, row.get('P')) for c in columns
        ]))
    out = heading(3, 'Summary')
    out += para('Values in points (× 100); rPC = mPC / P in %.', 'note')
    out += table(['metric'] + columns, rows, table_id=f'summary-{index}')
    for metric in metrics:
        rpc = (results.get('summary') or {}).get(metric, {}).get(
            'rPC_class_mean')
        if rpc is not None:
            out += para(esc(
                f'{metric}: rPC above is mean(mPC per class) / mean(P per '
                'class), as Michaelis et al. 2019; the mean of the '
                "per-class ratios (mmdet's robustness_eval) is "
                f'{points(rpc)} %.'), 'note')
    return out


def _video_summary_table(index: int, results: Dict[str, Any],
                         metrics: List[str]) -> str:
    summary = video_summary_of(results)
    groups = KINDS + ('all', )
    header = (['metric', 'P', 'mPC_video', 'rPC_video'] +
              [f'γa {g}' for g in groups] + [f'γr {g}' for g in groups])
    rows = []
    for metric in metrics:
        row = summary.get(metric, {})
        cells = [td(metric)] + [
            _value_td(row.get(k), k, row.get('P'))
            for k in ('P', 'mPC_video', 'rPC_video')
        ]
        for key in ('gamma_a', 'gamma_r'):
            cells += [
                td(gamma((row.get(key) or {}).get(g)), num=True)
                for g in groups
            ]
        rows.append(('', cells))
    return (heading(3, 'Video corruptions') + para(
        'P, mPC_video in points; rPC_video in %; γa = 1 − (P − P_c,s) and '
        'γr = 1 − (P − P_c,s) / P averaged over the clip cells (1 = no '
        'loss).', 'note') +
            table(header, rows, table_id=f'video-summary-{index}'))


def _ce_section(results: Dict[str, Any], metrics: List[str]) -> str:
    """The corruption errors against the recorded baseline ('' without)."""
    entry = results.get('corruption_errors')
    if not entry:
        return ''
    base = entry['baseline']
    if base.get('kind') == 'published':
        words = (f'published row {code(base.get("name"))} '
                 f'({esc(base.get("citation"))}; P and mPC only: pooled '
                 'forms)')
    else:
        words = (f'run {code(base.get("name"))} '
                 f'({code(base.get("source"))})')
    out = heading(3, 'Corruption errors')
    out += para(f'Baseline: {words}. ' + esc(
        'CE = Σ_s E / Σ_s E^B with E = 1 − AP, relative CE = Σ_s '
        '(AP_clean − AP) / Σ_s (AP^B_clean − AP^B); mCE and relative mCE '
        'their means over a family, pooled: (1 − mPC) / (1 − mPC^B) and '
        '(P − mPC) / (P^B − mPC^B). In % of the baseline (below 100 = '
        'more robust). ' + COUNT_WORDS), 'note')
    shown = [m for m in metrics if m in entry['metrics']] or list(
        entry['metrics'])
    for metric in shown:
        families = entry['metrics'][metric]
        rows = []
        for family, row in families.items():
            flagged = [f['corruption'] for f in row.get('flagged', [])]
            if row.get('pooled_flagged'):
                flagged.append('pooled')
            rows.append(('', [
                td(FAMILY_TITLES.get(family, family)),
                td(mean_with_count(row.get('mCE'), row.get('count')),
                   num=True),
                td(mean_with_count(row.get('rmCE'), row.get('rcount')),
                   num=True)
            ] + [
                td(percent(row.get(k)), num=True)
                for k in ('CE_pooled', 'rCE_pooled')
            ] + [td(', '.join(flagged) or '–')]))
        out += heading(4, metric)
        out += table(['family', 'mCE', 'relative mCE', 'CE pooled',
                      'relative CE pooled', 'flagged'], rows)
        per = [(n, row) for row in families.values()
               for n in row.get('CE', {})]
        if per:
            out += table(['corruption', 'CE', 'relative CE'], [
                ('', [td(n), td(percent(row['CE'][n]), num=True),
                      td(percent((row.get('rCE') or {}).get(n)), num=True)])
                for n, row in per
            ])
    return out


def severity_table(results: Dict[str, Any], metric: str, kind: str,
                   rows: Sequence[Tuple[str, str]],
                   table_id: Optional[str] = None) -> str:
    """A corruption × severity table in points, the clean row first, each
    cell coloured by its value relative to P.

    Args:
        results (dict): A robustness run's results.
        metric (str): The metric.
        kind (str): Title of the second column (``'group'``,
            ``'family'``).
        rows (Sequence[tuple[str, str]]): ``(corruption, group)`` pairs.
        table_id (str, optional): The table's ``id``.

    Returns:
        str: The table.
    """
    p = (results.get('clean') or {}).get(metric)
    out = [('clean', [
        td('clean'), td('–'),
        td(points(p), num=True, background=colour(p, p),
           colspan=len(SEVERITIES)),
        td(points(p), num=True, background=colour(p, p))
    ])]
    for name, group in rows:
        values = [cell_value(results, name, s, metric) for s in SEVERITIES]
        cells = [td(name), td(group)]
        for sev, value in zip(SEVERITIES, values):
            share = ('' if colour(value, p) is None else
                     f' ({100 * value / p:.0f} % of P)')
            cells.append(
                td(points(value), num=True, background=colour(value, p),
                   title=f'{name}/{sev}: {points(value)}{share}'))
        mean = mean_of(values)
        cells.append(td(points(mean), num=True,
                        background=colour(mean, p)))
        out.append(('', cells))
    return table(['corruption', kind] + [str(s) for s in SEVERITIES] +
                 ['mean'], out, table_id=table_id, cls='grid')


def robustness_section(index: int, run: ReportRun) -> str:
    """The section of a robustness run: summary, corruption errors,
    per-corruption tables, plots and provenance.

    Args:
        index (int): Its number on the page (1-based, for the anchors).
        run (ReportRun): The run.

    Returns:
        str: The section.
    """
    results = run.results
    metrics = main_metrics(results)
    out = _facts(results)
    if not metrics:
        return (out + para('No results yet: the run has no scored cell.',
                           'warn') +
                provenance(run.kind, run.path, results))
    if shows_image(results):
        out += _summary(index, results, metrics)
        out += _ce_section(results, metrics)
    video = video_names(results)
    if video:
        out += _video_summary_table(index, results, metrics)
    names = image_names(results)
    if names or video:
        out += legend()
    for metric in metrics if names else []:
        out += heading(3, f'{metric} per corruption and severity')
        out += severity_table(
            results, metric, 'group',
            [(n, CORRUPTIONS_BY_NAME[n].group) for n in names],
            table_id=f'grid-{index}-{metric}')
    for metric in metrics if video else []:
        out += heading(3, f'{metric} per video corruption and severity')
        out += severity_table(results, metric, 'family',
                              [(n, FAMILY_OF[n]) for n in video])
    plots = ([(plot_metric, m, m) for m in metrics] if names else []) + (
        [(plot_video_metric, m, f'{m}, video') for m in metrics]
        if video else [])
    if plots:
        out += heading(3, 'Plots')
        for plot, metric, alt in plots:
            out += picture(plot(results, metric), f'{alt} per severity')
    return out + provenance(run.kind, run.path, run.results)


def runs_comparison(runs: Sequence[ReportRun]) -> str:
    """Several robustness runs side by side (the columns of
    :func:`~robustdet.reports.robustness.compare_markdown`), one table per
    headline metric of the first."""
    named = [r.results for r in runs]
    video = any(video_names(r) for r in named)
    image = not video or any(image_names(r) for r in named)
    columns = summary_columns(named) if image else ['P']
    header = ['run'] + list(columns) + list(
        VIDEO_COMPARE_COLUMNS if video else ())
    out = ''
    for metric in main_metrics(named[0]):
        rows = []
        for run in runs:
            row = (run.results.get('summary') or {}).get(metric, {})
            cells = [td(run.name)] + [
                _value_td(row.get(c), c, row.get('P')) for c in columns
            ]
            if video:
                vrow = video_summary_of(run.results).get(metric, {})
                cells += [
                    _value_td(vrow.get(c), c, vrow.get('P'))
                    for c in ('mPC_video', 'rPC_video')
                ] + [
                    td(gamma((vrow.get(k) or {}).get('all')), num=True)
                    for k in ('gamma_a', 'gamma_r')
                ]
            rows.append(('', cells))
        out += heading(3, f'{metric}: values in points (rPC in %)')
        out += table(header, rows, table_id=f'compare-{metric}')
    return out


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
    class_mean = shows_class_mean(data)
    header = ['model', 'P', 'mPC', 'rPC'] + (
        [CLASS_MEAN_COLUMN] if class_mean else []) + [
            'ΔP', 'ΔmPC', 'ΔrPC', 'source'
        ]
    rows, notes = [], []
    for row in data['rows']:
        label = row['label']
        if row['kind'] == 'published' and row.get('note'):
            notes.append(row)
            label += ' ' + '†' * len(notes)
        if row.get('incomplete'):
            label += ' *'
        cells = [
            td(label + (' (baseline)' if row['baseline'] else '')),
            td(one_decimal(row['P']), num=True),
            td(one_decimal(row['mPC']), num=True,
               background=colour(row['mPC'], row['P'])),
            td(one_decimal(row['rPC']), num=True,
               background=colour(row['rPC'], 100))
        ]
        if class_mean:
            cells.append(td(one_decimal(row.get('rPC_class_mean')), num=True))
        cells += [td(signed(row[k]), num=True)
                  for k in ('dP', 'dmPC', 'drPC')]
        cells.append(raw_td(code(row['source']) if row['kind'] == 'run'
                            else esc(row['source'])))
        kind = 'run' if row['kind'] == 'run' else (
            'baseline' if row['baseline'] else '')
        rows.append((kind, cells))
    out = heading(3, f'{data["dataset"]} {data["task"]} '
                  f'({data["metric"]})')
    out += para(esc(
        'Values in points (× 100), rPC = mPC / P in %; Δ: difference to '
        f'the baseline {data["baseline_label"]}. Runs in bold.'), 'note')
    out += table(header, rows, table_id=f'published-{data["task"]}')
    for row in data['rows']:
        if row.get('incomplete'):
            done, total = row['benchmark_cells']
            out += para(esc(
                f'* {row["label"]}: incomplete grid, mPC averages the '
                f'{done} of {total} benchmark cells present'), 'note')
    for i, row in enumerate(notes, 1):
        out += para(esc(f'{"†" * i} {row["label"]}: {row["note"]}'),
                    'note')
    cited = {r['source'] for r in data['rows'] if r['kind'] == 'published'}
    cited.update(key for key in CITATIONS for row in notes
                 if f"'{key}'" in row['note'])
    cited = sorted(cited & set(CITATIONS))
    for key in cited:
        cite = CITATIONS[key]
        out += para(esc(
            f'{key}: {cite["authors"]}, "{cite["title"]}", '
            f'{cite["venue"]}, {cite["year"]} ({cite["url"]})'), 'note')
    return out


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
