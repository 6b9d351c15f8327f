# Copyright (c) robustdet contributors. All rights reserved.
"""The view model of a robustness run: what its Markdown report and its
section of the HTML page show, decided once.

:func:`robustness_view` turns a results dict into plain, JSON-serialisable
data: the facts and warnings, and tables whose cells are already written
(:mod:`.formatting`) with, for the page's colours, the fraction of the
value they are compared with (P for mPC-like cells, 1 for ratios). The
templates (``templates/robustness.md.j2``,
``templates/robustness_section.html.j2``) only lay it out: which words a
format uses around the data is theirs, which data there is is decided
here.
"""
from typing import Any, Dict, List, Optional, Sequence, Tuple

from ..corruptions import (CORRUPTION_NAMES, CORRUPTIONS_BY_NAME, GROUPS,
                           NEWER_FAMILIES, SEVERITIES)
from ..evaluation.functional.run_results import (cell_value, compact_cells,
                                                 image_names, main_metrics,
                                                 mean_of, metric_keys,
                                                 run_name, training_warning,
                                                 video_coverage_of,
                                                 video_names, video_summary_of)
from ..evaluation.functional.video_robustness import (CLIP_NAMES, FAMILY_OF,
                                                      GAMMA_GROUPS,
                                                      KIND_OF_FAMILY, KINDS)
from ..video.types import FAMILIES
from .formatting import DASH, FAMILY_TITLES, gamma, percent, points, with_count

SUMMARY_COLUMNS = ('P', 'mPC', 'rPC') + tuple(
    f'mPC_{g}' for g in GROUPS if g not in NEWER_FAMILIES) + tuple(
        f'{k}_{f}' for f in NEWER_FAMILIES for k in ('mPC', 'rPC'))
# Columns ``summary_csv`` appends when the results hold clip cells
# (``mPC_video_<family>``: families and image groups share names).
VIDEO_SUMMARY_COLUMNS = ('mPC_video', 'rPC_video') + tuple(
    f'mPC_video_{f}' for f in FAMILIES) + tuple(
        f'{k}_{g}' for k in ('gamma_a', 'gamma_r') for g in GAMMA_GROUPS)
# Columns ``compare_markdown`` adds when a run holds clip cells.
VIDEO_COMPARE_COLUMNS = ('mPC_video', 'rPC_video', 'γa', 'γr')
# Where a region run's corruptions apply, in words.
REGION_WORDS = dict(objects='inside', background='outside')


def summary_columns(runs: Sequence[Dict[str, Any]]) -> List[str]:
    """The :data:`SUMMARY_COLUMNS` the Markdown tables of ``runs`` show:
    the columns of a newer family (``mPC_cbar``, ``rPC_cbar``...) only
    where a run holds a cell of it, and those of the 19 of 2019 (mPC,
    rPC, the groups, hold-out) unless runs hold newer cells only."""
    present = {
        CORRUPTIONS_BY_NAME[n].group
        for results in runs for n in image_names(results)
    }
    hidden = {f for f in NEWER_FAMILIES if f not in present}
    if present and present <= set(NEWER_FAMILIES):
        return ['P'] + [
            c for c in SUMMARY_COLUMNS
            if c.split('_')[-1] in present and c.split('_')[0] != 'P'
        ]
    return [c for c in SUMMARY_COLUMNS if c.split('_')[-1] not in hidden]


def shows_image(results: Dict[str, Any]) -> bool:
    """Whether the image sections apply: some image cell, or no clip cell
    either (a clean-only or empty run keeps the image layout)."""
    return bool(image_names(results)) or not video_names(results)


def cell(text: str,
         value: Optional[float] = None,
         reference: Optional[float] = None,
         title: Optional[str] = None,
         span: int = 1,
         num: bool = True) -> Dict[str, Any]:
    """A table cell of the view model.

    Args:
        text (str): What the cell shows, already written.
        value (float, optional): The value it shows, for its colour.
        reference (float, optional): What the value is compared with (P,
            or 1 for a ratio); no colour without it.
        title (str, optional): A tooltip.
        span (int): Columns it spans.
        num (bool): Whether it is a number (right-aligned).

    Returns:
        dict: ``text``, ``num``, ``fraction`` (``value / reference`` in
        [0, 1], None without a colour), ``title`` and ``span``.
    """
    fraction = None
    if (value is not None and reference is not None and value >= 0
            and reference > 0):
        fraction = min(1.0, max(0.0, value / reference))
    return dict(text=text, num=num, fraction=fraction, title=title,
                span=span)


def label(text: str) -> Dict[str, Any]:
    """A cell of text that is not a number."""
    return cell(text, num=False)


def table(columns: Sequence[str],
          rows: Sequence[Dict[str, Any]],
          table_id: Optional[str] = None,
          cls: Optional[str] = None) -> Dict[str, Any]:
    """A table: column titles, rows (:func:`row`), its page id and class."""
    return dict(columns=list(columns), rows=list(rows), id=table_id,
                cls=cls)


def row(cells: Sequence[Dict[str, Any]], cls: str = '') -> Dict[str, Any]:
    """A row of cells (:func:`cell`), with a class (``clean``...)."""
    return dict(cells=list(cells), cls=cls)


def summary_cell(values: Dict[str, Any], column: str) -> Dict[str, Any]:
    """A summary row's value in points, coloured: rPC-like columns against
    their ratio (1), mPC-like ones against the row's P, others not."""
    value = values.get(column)
    if column.startswith('rPC'):
        reference = 1.0
    else:
        reference = values.get('P') if column.startswith('mPC') else None
    return cell(points(value), value, reference)


def summary_table(results: Dict[str, Any], metrics: Sequence[str],
                  index: int) -> Dict[str, Any]:
    """P, mPC, rPC and the groups' and families' means, a row per metric.
    """
    columns = summary_columns([results])
    rows = []
    for metric in metrics:
        values = (results.get('summary') or {}).get(metric, {})
        rows.append(row([label(metric)] + [
            summary_cell(values, c) for c in columns
        ]))
    return table(['metric'] + columns, rows, table_id=f'summary-{index}')


def severity_table(results: Dict[str, Any], metric: str, kind: str,
                   names: Sequence[Tuple[str, str]],
                   table_id: Optional[str] = None) -> Dict[str, Any]:
    """A corruption × severity table in points with the clean row first,
    each value compared with P.

    Args:
        results (dict): The results.
        metric (str): The metric.
        kind (str): Title of the second column (``'group'``,
            ``'family'``).
        names (Sequence[tuple[str, str]]): ``(corruption, group)`` pairs.
        table_id (str, optional): The table's page id.

    Returns:
        dict: The table.
    """
    p = (results.get('clean') or {}).get(metric)
    rows = [row([label('clean'), label(DASH),
                 cell(points(p), p, p, span=len(SEVERITIES)),
                 cell(points(p), p, p)], cls='clean')]
    for name, group in names:
        values = [cell_value(results, name, s, metric) for s in SEVERITIES]
        cells = [label(name), label(group)]
        for sev, value in zip(SEVERITIES, values):
            shown = cell(points(value), value, p)
            share = ('' if shown['fraction'] is None else
                     f' ({100 * value / p:.0f} % of P)')
            shown['title'] = f'{name}/{sev}: {points(value)}{share}'
            cells.append(shown)
        mean = mean_of(values)
        cells.append(cell(points(mean), mean, p))
        rows.append(row(cells))
    return table(['corruption', kind] + [str(s) for s in SEVERITIES] +
                 ['mean'], rows, table_id=table_id, cls='grid')


def _ce_view(results: Dict[str, Any],
             metrics: Sequence[str]) -> Optional[Dict[str, Any]]:
    """The corruption errors against the recorded baseline (None
    without): per metric, the families' means and the corruptions' CE."""
    entry = results.get('corruption_errors')
    if not entry:
        return None
    shown = [m for m in metrics if m in entry['metrics']] or list(
        entry['metrics'])
    out = []
    for metric in shown:
        families = entry['metrics'][metric]
        rows = []
        for family, values in families.items():
            flagged = [f['corruption'] for f in values.get('flagged', [])]
            if values.get('pooled_flagged'):
                flagged.append('pooled')
            rows.append(row([
                label(FAMILY_TITLES.get(family, family)),
                cell(with_count(percent(values.get('mCE')),
                                values.get('count'))),
                cell(with_count(percent(values.get('rmCE')),
                                values.get('rcount'))),
                cell(percent(values.get('CE_pooled'))),
                cell(percent(values.get('rCE_pooled'))),
                label(', '.join(flagged) or DASH)
            ]))
        per = [(n, values) for values in families.values()
               for n in values.get('CE', {})]
        corruptions = table(['corruption', 'CE', 'relative CE'], [
            row([label(n), cell(percent(values['CE'][n])),
                 cell(percent((values.get('rCE') or {}).get(n)))])
            for n, values in per
        ]) if per else None
        out.append(dict(
            metric=metric,
            means=[dict(family=f, pooled=v.get('mCE') is None,
                        mCE=percent(v.get('mCE')), count=v.get('count'),
                        rmCE=percent(v.get('rmCE')), rcount=v.get('rcount'),
                        CE_pooled=percent(v.get('CE_pooled')))
                   for f, v in families.items()],
            families=table(['family', 'mCE', 'relative mCE', 'CE pooled',
                            'relative CE pooled', 'flagged'], rows),
            corruptions=corruptions))
    return dict(baseline=entry['baseline'], metrics=out)


def _video_view(results: Dict[str, Any], metrics: Sequence[str],
                index: int) -> Optional[Dict[str, Any]]:
    """The clip corruptions' coverage, summary, families and grids (None
    without clip cells)."""
    coverage = video_coverage_of(results)
    if not coverage:
        return None
    summary = video_summary_of(results)
    names = video_names(results)
    groups = KINDS + ('all', )
    families = [f for f in FAMILIES if any(FAMILY_OF[n] == f for n in names)]
    headline, rows, family_tables = [], [], []
    for metric in metrics:
        values = summary.get(metric, {})
        gammas = {k: values.get(k) or {} for k in ('gamma_a', 'gamma_r')}
        headline.append(dict(
            metric=metric, mPC=points(values.get('mPC_video')),
            rPC=points(values.get('rPC_video')),
            **{k: gamma(v.get('all')) for k, v in gammas.items()}))
        rows.append(row([label(metric)] + [
            summary_cell(values, k) for k in ('P', 'mPC_video', 'rPC_video')
        ] + [cell(gamma(v.get(g))) for v in gammas.values() for g in groups]))
        family_tables.append(dict(metric=metric, table=table(
            ['family', 'kind', 'mPC', 'γa', 'γr'], [
                row([label(f), label(KIND_OF_FAMILY[f]),
                     cell(points(values.get(f'mPC_{f}')))] +
                    [cell(gamma(v.get(f))) for v in gammas.values()])
                for f in families
            ])))
    done, total = coverage['video']
    return dict(
        headline=headline,
        complete=coverage['complete'],
        done=done,
        total=total,
        corruptions=len(names),
        clip_corruptions=len(CLIP_NAMES),
        clips=results.get('video_clips'),
        pipeline_ground_truth=results.get('ground_truth') == 'pipeline',
        summary=table(['metric', 'P', 'mPC_video', 'rPC_video'] +
                      [f'γa {g}' for g in groups] +
                      [f'γr {g}' for g in groups], rows,
                      table_id=f'video-summary-{index}'),
        families=family_tables,
        grids=[dict(metric=m, table=severity_table(
            results, m, 'family', [(n, FAMILY_OF[n]) for n in names]))
               for m in metrics])


def _headline(results: Dict[str, Any],
              metrics: Sequence[str]) -> Sequence[Dict[str, Any]]:
    """P, mPC and rPC of each metric in points, the newer families' mPC
    and rPC where they have cells, and mmdet's class-mean rPC where
    recorded (the one-line summary a tool prints)."""
    out = []
    for metric in metrics:
        values = (results.get('summary') or {}).get(metric, {})
        out.append(dict(
            metric=metric,
            **{k: points(values.get(k)) for k in ('P', 'mPC', 'rPC')},
            families=[dict(name=f, mPC=points(values[f'mPC_{f}']),
                           rPC=points(values.get(f'rPC_{f}')))
                      for f in NEWER_FAMILIES
                      if values.get(f'mPC_{f}') is not None],
            class_mean=None if values.get('rPC_class_mean') is None else
            points(values['rPC_class_mean'])))
    return out


def _coverage(results: Dict[str, Any]) -> Optional[Dict[str, Any]]:
    """The image grid's cells done per family and what is missing."""
    cov = results.get('coverage') or {}
    if not cov:
        return None
    done, total = cov['benchmark']
    return dict(
        benchmark=cov['benchmark'],
        holdout=cov['holdout'],
        families=[[f] + list(cov[f]) for f in NEWER_FAMILIES if f in cov],
        incomplete=None if cov.get('complete', True) else dict(
            done=done, total=total,
            missing=compact_cells(cov['missing'])))


def _imported(results: Dict[str, Any]) -> Optional[Dict[str, Any]]:
    imported = results.get('imported')
    if not imported:
        return None
    return dict(
        dataset=imported['dataset'],
        files=[dict(path=f['path'], layout=f['layout'],
                    sha256=f['sha256']) for f in imported['files']],
        by_mmdet=imported['files'][0]['layout'] != 'robustdet')


def cell_records(results: Dict[str, Any]) -> Dict[str, Any]:
    """Every cell in long format (``robustness.csv``): metric,
    corruption, group, severity, value; clean rows have corruption
    ``clean`` and severity 0. Image corruptions come first (group: their
    group), then clip corruptions (group: their family), each in table
    order, for every metric of the results.

    Args:
        results (dict): The results.

    Returns:
        dict: ``columns`` and ``rows`` (raw values).
    """
    order = [(n, CORRUPTIONS_BY_NAME[n].group) for n in CORRUPTION_NAMES
             ] + [(n, FAMILY_OF[n]) for n in CLIP_NAMES]
    rows = []
    for metric in metric_keys(results):
        clean = (results.get('clean') or {}).get(metric)
        if clean is not None:
            rows.append([metric, 'clean', '', 0, clean])
        for name, group in order:
            for sev in SEVERITIES:
                value = cell_value(results, name, sev, metric)
                if value is not None:
                    rows.append([metric, name, group, sev, value])
    return dict(columns=['metric', 'corruption', 'group', 'severity',
                         'value'], rows=rows)


def summary_records(results: Dict[str, Any]) -> Dict[str, Any]:
    """P, mPC, rPC and per-group mPC for every metric, one row each
    (``robustness_summary.csv``; None where undefined).

    With clip cells, the columns :data:`VIDEO_SUMMARY_COLUMNS` follow:
    ``mPC_video``, ``rPC_video``, ``mPC_video_<family>`` (the
    ``mPC_<family>`` of ``video_summary``) and
    ``gamma_a_<group>`` / ``gamma_r_<group>`` for every family, 'spatial',
    'temporal' and 'all' (fractions). Without clip cells the columns are
    the image ones only.

    Args:
        results (dict): The results.

    Returns:
        dict: ``columns`` and ``rows`` (raw values).
    """
    vsummary = video_summary_of(results) if video_names(results) else {}
    video_columns = VIDEO_SUMMARY_COLUMNS if vsummary else ()
    rows = []
    for metric in metric_keys(results):
        values = results['summary'].get(metric, {})
        vrow = dict(vsummary.get(metric, {}))
        for family in FAMILIES:
            vrow[f'mPC_video_{family}'] = vrow.get(f'mPC_{family}')
        for key in ('gamma_a', 'gamma_r'):
            for group, value in (vrow.pop(key, None) or {}).items():
                vrow[f'{key}_{group}'] = value
        rows.append([metric] + [values.get(c) for c in SUMMARY_COLUMNS] +
                    [vrow.get(c) for c in video_columns])
    return dict(columns=['metric', *SUMMARY_COLUMNS, *video_columns],
                rows=rows)


def robustness_view(results: Dict[str, Any], index: int = 1,
                    title: str = 'Robustness benchmark') -> Dict[str, Any]:
    """The view model of a robustness run.

    Args:
        results (dict): The results (:func:`robustdet.apis.load_results`).
        index (int): Its number on a page (for the tables' ids).
        title (str): The Markdown report's title.

    Returns:
        dict: JSON-serialisable: ``title``, ``name``, ``imported``, the
        settings (``config``... ``cpu_dependent``), ``warning``,
        ``coverage`` (image cells), ``empty_cells``, ``skipped_images``,
        ``metrics``, ``image`` (summary, rPC class-mean notes, leaderboard
        row, per-corruption tables; None for a run with clip cells and no
        image cell), ``has_image_cells``, ``ce`` (None without a
        baseline), ``video`` (None without clip cells) and ``records``
        (the CSV files' ``cells`` and ``summary``: raw values).
    """
    metrics = main_metrics(results)
    names = image_names(results)
    image = None
    if shows_image(results):
        summary = results.get('summary') or {}
        image = dict(
            summary=summary_table(results, metrics, index),
            class_mean=[
                dict(metric=m, value=points(summary[m]['rPC_class_mean']))
                for m in metrics
                if summary.get(m, {}).get('rPC_class_mean') is not None
            ],
            leaderboard=table(
                ['model'] + [f'{m}: P / mPC / rPC [%]' for m in metrics],
                [row([label(run_name(results))] + [
                    label(' / '.join(
                        points(summary.get(m, {}).get(k))
                        for k in ('P', 'mPC', 'rPC'))) for m in metrics
                ])]),
            grids=[dict(metric=m, table=severity_table(
                results, m, 'group',
                [(n, CORRUPTIONS_BY_NAME[n].group) for n in names],
                table_id=f'grid-{index}-{m}')) for m in metrics])
    region = results.get('region', 'all')
    return dict(
        title=title,
        name=run_name(results),
        imported=_imported(results),
        config=results.get('config'),
        checkpoint=results.get('checkpoint'),
        seed=results.get('seed'),
        backend=results.get('backend'),
        channel_order=results.get('channel_order'),
        region=dict(name=region, where=REGION_WORDS[region])
        if region in REGION_WORDS else None,
        depth=results.get('depth'),
        cpu_dependent=list(results.get('cpu_dependent') or []),
        warning=training_warning(results),
        coverage=_coverage(results) if image else None,
        empty_cells=list(results.get('empty_cells') or []),
        skipped_images=len(results.get('skipped_images') or []),
        metrics=metrics,
        headline=_headline(results, metrics),
        image=image,
        has_image_cells=bool(names),
        ce=_ce_view(results, metrics) if image else None,
        video=_video_view(results, metrics, index),
        records=dict(cells=cell_records(results),
                     summary=summary_records(results)))


def runs_view(named: Sequence[Tuple[str, Dict[str, Any]]]
              ) -> Dict[str, Any]:
    """The view model of several robustness runs side by side (the
    layout of Michaelis et al. 2019, table 2): a table per headline
    metric of the first run, a row per run, and the runs' training
    warnings.

    The image columns are :func:`summary_columns`
    of the runs; with clip cells in any run, mPC_video, rPC_video and γa,
    γr over all clip cells follow; when no run holds an image cell, only
    P of the image columns is kept.

    Args:
        named (Sequence[tuple[str, dict]]): ``(name, results)`` pairs.

    Returns:
        dict: ``video`` (whether the γ columns are there), ``warnings``
        (``name``, ``warning`` of each run trained on corruptions) and
        ``tables`` (``metric`` and ``table``, whose first column holds
        the names).
    """
    runs = [results for _, results in named]
    video = any(video_names(r) for r in runs)
    image = not video or any(image_names(r) for r in runs)
    columns = summary_columns(runs) if image else ['P']
    tables = []
    for metric in main_metrics(runs[0]) if runs else []:
        rows = []
        for name, results in named:
            values = (results.get('summary') or {}).get(metric, {})
            cells = [label(name)] + [summary_cell(values, c) for c in columns]
            if video:
                vrow = video_summary_of(results).get(metric, {})
                cells += [
                    summary_cell(vrow, c) for c in ('mPC_video', 'rPC_video')
                ] + [
                    cell(gamma((vrow.get(k) or {}).get('all')))
                    for k in ('gamma_a', 'gamma_r')
                ]
            rows.append(row(cells))
        tables.append(dict(metric=metric, table=table(
            ['run'] + list(columns) +
            list(VIDEO_COMPARE_COLUMNS if video else ()), rows,
            table_id=f'compare-{metric}')))
    warnings = [dict(name=name, warning=warning)
                for name, warning in ((n, training_warning(r))
                                      for n, r in named) if warning]
    return dict(video=video, warnings=warnings, tables=tables)
