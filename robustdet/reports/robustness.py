# Copyright (c) robustdet contributors. All rights reserved.
"""Markdown, CSV and plots of a robustness results file.

Everything here is derived from ``robustness.json`` alone, so
``tools/robustness_report.py`` can regenerate it at any time.
"""
import csv
import functools
import io
import os.path as osp
import re
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from ..corruptions import (BENCHMARK_GROUPS, CORRUPTION_NAMES,
                           CORRUPTIONS_BY_NAME, GROUPS, NEWER_FAMILIES,
                           SEVERITIES)
from ..evaluation.functional.robustness import \
    metric_keys as functional_metric_keys
from ..evaluation.functional.video_robustness import (CLIP_NAMES, FAMILY_OF,
                                                      GAMMA_GROUPS,
                                                      KIND_OF_FAMILY, KINDS,
                                                      video_coverage,
                                                      video_summary)
from ..utils.io import write_bytes_atomic, write_text_atomic
from ..video.types import FAMILIES
from .corruption_errors import ce_markdown, ce_summary_lines
from .formatting import gamma, points, slug

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


_REGION_WORDS = dict(objects='inside', background='outside')


def metric_keys(results: Dict[str, Any]) -> List[str]:
    """Metric keys present in the results, clean ones first."""
    return functional_metric_keys(results.get('clean') or {},
                                  results['cells'])


def main_metrics(results: Dict[str, Any]) -> List[str]:
    """The headline metrics: mmdet's overall mAP keys (``coco/bbox_mAP``,
    ``coco/segm_mAP``, ``pascal_voc/mAP``); for pm-k (``PMKMetric``) the
    mAP at k = 0 and at the largest k; all metrics if none."""
    keys = metric_keys(results)
    main = [k for k in keys if k.endswith('mAP')]
    if not main:
        pmk = sorted((int(m.group(1)), k) for k in keys
                     for m in [re.search(r'(?:^|/)mAP_k(\d+)$', k)] if m)
        main = list(dict.fromkeys(k for _, k in pmk[:1] + pmk[-1:]))
    return main or keys


def compact_cells(keys: Sequence[str]) -> str:
    """Cell keys ``'name/severity'`` in few words: consecutive severities
    of a corruption as a range, e.g. ``fog/1-5, snow/3, frost/1-2,4``.

    Args:
        keys (Sequence[str]): Cell keys.

    Returns:
        str: The compact list, corruptions in table order.
    """
    severities: Dict[str, List[int]] = {}
    for key in keys:
        name, _, sev = key.rpartition('/')
        severities.setdefault(name, []).append(int(sev))
    order = {n: i for i, n in enumerate(CORRUPTION_NAMES)}
    parts = []
    for name in sorted(severities,
                       key=lambda n: (order.get(n, len(order)), n)):
        sevs = sorted(set(severities[name]))
        spans = []
        start = prev = sevs[0]
        for sev in sevs[1:] + [None]:
            if sev is not None and sev == prev + 1:
                prev = sev
                continue
            spans.append(str(start) if start == prev else f'{start}-{prev}')
            if sev is not None:
                start = prev = sev
        parts.append(f'{name}/{",".join(spans)}')
    return ', '.join(parts)


def run_name(results: Dict[str, Any], path: Optional[str] = None) -> str:
    """A run's name: its ``name`` entry (imported runs), else the name of
    the directory holding its JSON when ``path`` is given, else its
    config's file name.

    Args:
        results (dict): The run's results.
        path (str, optional): Where its JSON was read from.

    Returns:
        str: The name.
    """
    name = results.get('name')
    if isinstance(name, str) and name:
        return name
    if path is not None:
        return osp.basename(osp.dirname(osp.abspath(path))) or path
    return osp.splitext(osp.basename(str(results.get('config'))))[0]






def cell_value(results: Dict[str, Any], name: str, sev: int,
               metric: str) -> Optional[float]:
    """A cell's metric as stored (COCO's -1 kept); None if missing.

    Args:
        results (dict): The results.
        name (str): The corruption.
        sev (int): The severity.
        metric (str): The metric.

    Returns:
        float, optional: The value.
    """
    return (results['cells'].get(name, {}).get(str(sev)) or {}).get(metric)


def mean_of(values: Sequence[Optional[float]]) -> Optional[float]:
    """The mean of the defined values (not None, not COCO's -1).

    Args:
        values (Sequence[float]): The values.

    Returns:
        float, optional: Their mean; None if none is defined.
    """
    values = [v for v in values if v is not None and v >= 0]
    return sum(values) / len(values) if values else None




def image_names(results: Dict[str, Any]) -> List[str]:
    """Image corruptions with cells, in table order."""
    return [n for n in CORRUPTION_NAMES if n in results['cells']]


def video_names(results: Dict[str, Any]) -> List[str]:
    """Clip corruptions with cells, in table order."""
    return [n for n in CLIP_NAMES if results['cells'].get(n)]


def training_warning(results: Dict[str, Any]) -> Optional[str]:
    """A warning when the detector saw corruptions in training
    (``training_corruptions``, recorded from its config), else None."""
    trained = results.get('training_corruptions')
    if not trained:
        return None
    seen = ', '.join(trained['corruptions'])
    if trained['benchmark']:
        return (f'trained with {trained["transform"]} on benchmark '
                f'corruptions ({", ".join(trained["benchmark"])}): mPC no '
                'longer measures robustness to unseen corruptions')
    return (f'trained with {trained["transform"]} on {seen}: their cells '
            'are not unseen corruptions; the 15 of mPC are')


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


def video_summary_of(results: Dict[str, Any]) -> Dict[str, Any]:
    """The results' ``video_summary`` (computed from the cells for files
    written before it existed)."""
    if 'video_summary' in results:
        return results['video_summary'] or {}
    return video_summary(results.get('clean') or {}, results['cells'])


def video_coverage_of(results: Dict[str, Any]) -> Optional[Dict[str, Any]]:
    """The results' ``video_coverage``; None without clip cells."""
    if not video_names(results):
        return None
    return results.get('video_coverage') or video_coverage(results['cells'])


def markdown_report(results: Dict[str, Any],
                    title: str = 'Robustness benchmark') -> str:
    """The Markdown report.

    Args:
        results (dict): Results (see :mod:`robustdet.apis.results`).
        title (str): First heading.

    Returns:
        str: Markdown text.
    """
    out = io.StringIO()
    w = out.write
    w(f'# {title}\n\n')
    imported = results.get('imported')
    if imported:
        for source in imported['files']:
            w(f'- imported from `{source["path"]}` (layout '
              f'`{source["layout"]}`, sha256 {source["sha256"][:12]}...)\n')
        w(f'- dataset {imported["dataset"]}\n')
    if imported and imported['files'][0]['layout'] != 'robustdet':
        w("- corrupted by mmdet's `Corrupt` (imagecorruptions on BGR "
          'arrays)\n')
    else:
        w(f'- config: `{results.get("config")}`\n')
        w(f'- checkpoint: `{results.get("checkpoint")}`\n')
        w(f'- seed {results["seed"]}, backend `{results["backend"]}`, '
          f'channel order `{results["channel_order"]}`\n')
        region = results.get('region', 'all')
        if region != 'all':
            w(f'- region `{region}`: the image corruptions apply '
              f'{_REGION_WORDS[region]} the ground-truth instances only '
              '(masks, else boxes, with a soft edge)\n')
        if results.get('depth'):
            w(f'- depth of the depth-aware corruptions: '
              f'`{results["depth"]}`\n')
        if results.get('cpu_dependent'):
            w('- pixels that depend on the CPU with this backend (a grey '
              'level in a small fraction of the pixels between CPU '
              'generations; `CPU_DEPENDENT`): ' +
              ', '.join(f'`{n}`' for n in results['cpu_dependent']) + '\n')
    warning = training_warning(results)
    if warning:
        w(f'- **{warning}**\n')
    cov = results.get('coverage') or {}
    show_image = shows_image(results)
    if cov and show_image:
        done, total = cov['benchmark']
        hdone, htotal = cov['holdout']
        w(f'- benchmark cells: {done}/{total}, hold-out cells: '
          f'{hdone}/{htotal}' + ''.join(
              f', {f} cells: {cov[f][0]}/{cov[f][1]}'
              for f in NEWER_FAMILIES if f in cov) + '\n')
        if not cov['complete']:
            w(f'- **incomplete grid**: mPC averages the {done} benchmark '
              f'cells present, not all {total}; missing: '
              f'{compact_cells(cov["missing"])}\n')
    vcov = video_coverage_of(results)
    if results.get('empty_cells'):
        w(f'- cells without any detection (scored as AP 0): '
          f'{", ".join(results["empty_cells"])}\n')
    if results.get('skipped_images'):
        w(f'- skipped unreadable images: {len(results["skipped_images"])} '
          '(listed in the JSON)\n')
    metrics = main_metrics(results)
    if show_image:
        _image_markdown(w, results, metrics)
        w(ce_markdown(results, metrics))
    if vcov:
        _video_markdown(w, results, metrics)
    return out.getvalue()


def _image_markdown(w, results: Dict[str, Any], metrics: List[str]) -> None:
    """Summary, leaderboard row and per-corruption tables of the image
    corruptions."""
    w('\n## Summary\n\n')
    w('Values in points (× 100); rPC = mPC / P in %.\n\n')
    columns = summary_columns([results])
    header = ['metric'] + columns
    w('| ' + ' | '.join(header) + ' |\n')
    w('|' + '---|' * len(header) + '\n')
    for metric in metrics:
        row = results['summary'].get(metric, {})
        w(f'| {metric} | ' + ' | '.join(
            points(row.get(c)) for c in columns) + ' |\n')
    for metric in metrics:
        rpc = results['summary'].get(metric, {}).get('rPC_class_mean')
        if rpc is not None:
            w(f'\n{metric}: rPC above is mean(mPC per class) / mean(P per '
              f'class), as Michaelis et al. 2019; the mean of the per-class '
              f"ratios mPC_c / P_c (mmdet's `robustness_eval`) is "
              f'{points(rpc)} %.\n')
    w('\nLeaderboard row (as in Michaelis et al. 2019, table 1):\n\n')
    w('| model | ' + ' | '.join(
        f'{m}: P / mPC / rPC [%]' for m in metrics) + ' |\n')
    w('|---|' + '---|' * len(metrics) + '\n')
    w(f'| {run_name(results)} | ' + ' | '.join(
        ' / '.join(
            points(results['summary'].get(m, {}).get(k))
            for k in ('P', 'mPC', 'rPC')) for m in metrics) + ' |\n')
    for metric in metrics:
        w(f'\n## {metric} per corruption and severity\n\n')
        _severity_table(w, results, metric, 'group', [
            (n, CORRUPTIONS_BY_NAME[n].group) for n in image_names(results)
        ])


def _video_markdown(w, results: Dict[str, Any], metrics: List[str]) -> None:
    """The "Video corruptions" section: coverage, summary, families and
    per-corruption tables of the clip corruptions."""
    summary = video_summary_of(results)
    done, total = video_coverage_of(results)['video']
    names = video_names(results)
    w('\n## Video corruptions\n\n')
    w(f'- video cells: {done}/{total} ({len(names)} of {len(CLIP_NAMES)} '
      'clip corruptions)\n')
    if done < total:
        w(f'- the means average the {done} video cells present, not all '
          f'{total}\n')
    clips = results.get('video_clips')
    if clips:
        w(f'- clips: {clips["clip_len"]} frames, mode '
          f'`{clips["clip_mode"]}`, short clips: {clips["short_clips"]}\n')
    if results.get('ground_truth') == 'pipeline':
        w('- every cell scored against the ground truth the dataset '
          'delivers (camera motion moves the boxes)\n')
    w('\nP, mPC_video in points (× 100); rPC_video = mPC_video / P in %; '
      'γa = 1 − (P − P_c,s) and γr = 1 − (P − P_c,s) / P on fractions, '
      'averaged over the cells (1 = no loss).\n\n')
    groups = KINDS + ('all', )
    header = (['metric', 'P', 'mPC_video', 'rPC_video'] +
              [f'γa {g}' for g in groups] + [f'γr {g}' for g in groups])
    w('| ' + ' | '.join(header) + ' |\n')
    w('|' + '---|' * len(header) + '\n')
    for metric in metrics:
        row = summary.get(metric, {})
        cols = [points(row.get(k)) for k in ('P', 'mPC_video', 'rPC_video')]
        for key in ('gamma_a', 'gamma_r'):
            cols += [gamma((row.get(key) or {}).get(g)) for g in groups]
        w(f'| {metric} | ' + ' | '.join(cols) + ' |\n')
    families = [f for f in FAMILIES if any(FAMILY_OF[n] == f for n in names)]
    for metric in metrics:
        row = summary.get(metric, {})
        w(f'\n### {metric} per video family\n\n')
        w('| family | kind | mPC | γa | γr |\n')
        w('|---|---|---|---|---|\n')
        for family in families:
            w(f'| {family} | {KIND_OF_FAMILY[family]} | '
              f'{points(row.get(f"mPC_{family}"))} | '
              f'{gamma((row.get("gamma_a") or {}).get(family))} | '
              f'{gamma((row.get("gamma_r") or {}).get(family))} |\n')
    for metric in metrics:
        w(f'\n### {metric} per video corruption and severity\n\n')
        _severity_table(w, results, metric, 'family',
                        [(n, FAMILY_OF[n]) for n in names])


def _severity_table(w, results: Dict[str, Any], metric: str, kind: str,
                    rows: List[tuple]) -> None:
    """A corruption x severity table (points) with the clean row first.

    Args:
        w (Callable): Writes text.
        results (dict): The results.
        metric (str): The metric.
        kind (str): Header of the second column (``'group'``,
            ``'family'``).
        rows (list[tuple[str, str]]): ``(corruption, group)`` in order.
    """
    w(f'| corruption | {kind} | ' + ' | '.join(map(str, SEVERITIES)) +
      ' | mean |\n')
    w('|---|---|' + '---|' * (len(SEVERITIES) + 1) + '\n')
    clean = (results.get('clean') or {}).get(metric)
    w(f'| clean | – | {points(clean)} |' + ' |' * len(SEVERITIES) + '\n')
    for name, group in rows:
        values = [cell_value(results, name, s, metric) for s in SEVERITIES]
        w(f'| {name} | {group} | ' + ' | '.join(points(v) for v in values) +
          f' | {points(mean_of(values))} |\n')


def compare_markdown(named: Sequence[Any]) -> str:
    """Several models side by side, one row each (the layout of Michaelis
    et al. 2019, table 2: standard / stylized / combined training).

    The image columns (:data:`SUMMARY_COLUMNS`) are those of
    ``summary``; when a run holds clip cells, :data:`VIDEO_COMPARE_COLUMNS`
    follow (mPC_video, rPC_video, γa and γr over all clip cells), and when
    no run holds an image cell, only P of the image columns is kept.

    Args:
        named (list[tuple[str, dict]]): (row name, results) pairs; their
            headline metrics are those of the first.

    Returns:
        str: A Markdown table (points, rPC in %, γ as numbers) per
        headline metric.
    """
    if not named:
        return ''
    out = io.StringIO()
    video = any(video_names(r) for _, r in named)
    image = not video or any(image_names(r) for _, r in named)
    columns = summary_columns([r for _, r in named]) if image else ['P']
    header = list(columns) + list(VIDEO_COMPARE_COLUMNS if video else ())
    for metric in main_metrics(named[0][1]):
        out.write(f'{metric}, values in points (rPC in %)' +
                  ('; γa, γr over all video cells' if video else '') +
                  ':\n\n')
        out.write('| model | ' + ' | '.join(header) + ' |\n')
        out.write('|---|' + '---|' * len(header) + '\n')
        for name, results in named:
            row = results['summary'].get(metric, {})
            cols = [points(row.get(c)) for c in columns]
            if video:
                vrow = video_summary_of(results).get(metric, {})
                cols += [
                    points(vrow.get(c)) for c in ('mPC_video', 'rPC_video')
                ]
                cols += [
                    gamma((vrow.get(k) or {}).get('all'))
                    for k in ('gamma_a', 'gamma_r')
                ]
            out.write(f'| {name} | ' + ' | '.join(cols) + ' |\n')
        out.write('\n')
    return out.getvalue()


def summary_text(results: Dict[str, Any]) -> str:
    """A few plain-text lines: P, mPC and rPC of the main metrics, and
    with clip cells a ``<metric> video: mPC x  rPC y %  γa z  γr w`` line
    each (γ over all clip cells)."""
    lines = []
    show_image = shows_image(results)
    vsummary = video_summary_of(results) if video_names(results) else {}
    for metric in main_metrics(results):
        row = results['summary'].get(metric, {})
        if show_image:
            lines.append(
                f'{metric}: P {points(row.get("P"))}  mPC '
                f'{points(row.get("mPC"))}  rPC {points(row.get("rPC"))} %')
            for family in NEWER_FAMILIES:
                if row.get(f'mPC_{family}') is not None:
                    lines[-1] += (
                        f'  mPC_{family} {points(row[f"mPC_{family}"])}  '
                        f'rPC_{family} {points(row.get(f"rPC_{family}"))} %')
            if row.get('rPC_class_mean') is not None:
                lines[-1] += (f"  (mean of per-class ratios, as mmdet's "
                              f'robustness_eval: '
                              f'{points(row["rPC_class_mean"])} %)')
        else:
            lines.append(f'{metric}: P {points(row.get("P"))}')
        if vsummary:
            vrow = vsummary.get(metric, {})
            lines.append(
                f'{metric} video: mPC {points(vrow.get("mPC_video"))}  rPC '
                f'{points(vrow.get("rPC_video"))} %  γa '
                f'{gamma((vrow.get("gamma_a") or {}).get("all"))}  γr '
                f'{gamma((vrow.get("gamma_r") or {}).get("all"))}')
    if show_image:
        lines += ce_summary_lines(results, main_metrics(results))
    warning = training_warning(results)
    if warning:
        lines.append(f'warning: {warning}')
    cov = results.get('coverage') or {}
    if cov and not cov.get('complete') and show_image:
        done, total = cov['benchmark']
        lines.append(f'incomplete grid: {done} of {total} benchmark cells; '
                     'mPC averages the cells present; missing: '
                     f'{compact_cells(cov["missing"])}')
    vcov = video_coverage_of(results)
    if vcov and not vcov['complete']:
        done, total = vcov['video']
        lines.append(f'incomplete video grid: {done} of {total} video '
                     'cells; the video means average the cells present')
    return '\n'.join(lines)


def csv_report(results: Dict[str, Any]) -> str:
    """All cells in long format: metric, corruption, group, severity,
    value (clean rows have corruption ``clean`` and severity 0). Image
    corruptions come first (group: their group), then clip corruptions
    (group: their family), each in table order."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator='\n')
    writer.writerow(['metric', 'corruption', 'group', 'severity', 'value'])
    for metric in metric_keys(results):
        clean = (results.get('clean') or {}).get(metric)
        if clean is not None:
            writer.writerow([metric, 'clean', '', 0, clean])
        rows = [(n, CORRUPTIONS_BY_NAME[n].group)
                for n in CORRUPTION_NAMES] + [(n, FAMILY_OF[n])
                                              for n in CLIP_NAMES]
        for name, group in rows:
            for sev in SEVERITIES:
                value = cell_value(results, name, sev, metric)
                if value is not None:
                    writer.writerow([metric, name, group, sev, value])
    return out.getvalue()


def summary_csv(results: Dict[str, Any]) -> str:
    """P, mPC, rPC and per-group mPC for every metric, one row each.

    With clip cells, the columns :data:`VIDEO_SUMMARY_COLUMNS` follow:
    ``mPC_video``, ``rPC_video``, ``mPC_video_<family>`` (the
    ``mPC_<family>`` of ``video_summary``) and
    ``gamma_a_<group>`` / ``gamma_r_<group>`` for every family, 'spatial',
    'temporal' and 'all' (fractions; empty where undefined). Without clip
    cells the columns are the image ones only.
    """
    out = io.StringIO()
    writer = csv.writer(out, lineterminator='\n')
    vsummary = video_summary_of(results) if video_names(results) else {}
    video_columns = VIDEO_SUMMARY_COLUMNS if vsummary else ()
    writer.writerow(['metric', *SUMMARY_COLUMNS, *video_columns])
    for metric in metric_keys(results):
        row = results['summary'].get(metric, {})
        vrow = dict(vsummary.get(metric, {}))
        for family in FAMILIES:
            vrow[f'mPC_video_{family}'] = vrow.get(f'mPC_{family}')
        for key in ('gamma_a', 'gamma_r'):
            for group, value in (vrow.pop(key, None) or {}).items():
                vrow[f'{key}_{group}'] = value
        writer.writerow([metric] + [
            '' if row.get(c) is None else row[c] for c in SUMMARY_COLUMNS
        ] + ['' if vrow.get(c) is None else vrow[c] for c in video_columns])
    return out.getvalue()


def plot_metric(results: Dict[str, Any], metric: str) -> bytes:
    """Performance vs severity per corruption, one panel per group (like
    figures 5 and 7-9 of Michaelis et al. 2019), as PNG bytes."""
    names = image_names(results)
    groups = [
        g for g in GROUPS
        if any(CORRUPTIONS_BY_NAME[n].group == g for n in names)
    ] or list(BENCHMARK_GROUPS)
    panels = [(g, [n for n in names if CORRUPTIONS_BY_NAME[n].group == g])
              for g in groups]
    return _plot_panels(results, metric, panels, metric)


def plot_video_metric(results: Dict[str, Any], metric: str) -> bytes:
    """Performance vs severity per clip corruption, one panel per family
    with cells (clean at severity 0), as PNG bytes."""
    names = video_names(results)
    panels = [(f, [n for n in names if FAMILY_OF[n] == f]) for f in FAMILIES
              if any(FAMILY_OF[n] == f for n in names)
              ] or [(f, []) for f in FAMILIES]
    return _plot_panels(results, metric, panels, f'{metric}, video')


def _plot_panels(results: Dict[str, Any], metric: str, panels: Sequence[Any],
                 title: str) -> bytes:
    """One panel per ``(title, corruption names)``, a line per corruption
    from clean (severity 0) to severity 5, as PNG bytes."""
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(
        1, len(panels), figsize=(3.2 * len(panels), 3.2), sharey=True,
        squeeze=False)
    clean = (results.get('clean') or {}).get(metric)
    for ax, (group, names) in zip(axes[0], panels):
        for name in names:
            xs, ys = [], []
            if clean is not None and clean >= 0:
                xs.append(0)
                ys.append(100 * clean)
            for sev in SEVERITIES:
                value = cell_value(results, name, sev, metric)
                if value is not None and value >= 0:
                    xs.append(sev)
                    ys.append(100 * value)
            ax.plot(xs, ys, marker='o', markersize=3, label=name)
        ax.set_title(group)
        ax.set_xlabel('severity (0 = clean)')
        ax.set_xticks(range(0, len(SEVERITIES) + 1))
        ax.grid(alpha=0.3)
        if names:
            ax.legend(fontsize=7)
    axes[0][0].set_ylabel(f'{metric} × 100')
    fig.suptitle(osp.splitext(osp.basename(str(results.get('config'))))[0] +
                 f': {title}', fontsize=9)
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format='png', dpi=100)
    plt.close(fig)
    return buf.getvalue()


def _report_plan(results: Dict[str, Any], stem: str,
                 metrics: Optional[Sequence[str]]
                 ) -> List[Tuple[str, Callable[[], Any]]]:
    """``(file name, what makes its text or bytes)`` of each report."""
    plan = [(f'{stem}.md', functools.partial(markdown_report, results)),
            (f'{stem}.csv', functools.partial(csv_report, results)),
            (f'{stem}_summary.csv', functools.partial(summary_csv, results))]
    metrics = metrics or main_metrics(results)
    if image_names(results):
        plan += [(f'{stem}_{slug(m)}.png',
                  functools.partial(plot_metric, results, m))
                 for m in metrics]
    if video_names(results):
        plan += [(f'{stem}_video_{slug(m)}.png',
                  functools.partial(plot_video_metric, results, m))
                 for m in metrics]
    return plan


def report_names(results: Dict[str, Any], stem: str = 'robustness',
                 metrics: Optional[Sequence[str]] = None) -> List[str]:
    """The names of the files :func:`write_reports` writes for
    ``results`` (what an import with ``--overwrite`` removes of the run it
    replaces).

    Args:
        results (dict): The results.
        stem (str): File name stem.
        metrics (Sequence[str], optional): Metrics to plot (default: the
            main metrics).

    Returns:
        list[str]: File names, in the order they are written.
    """
    return [name for name, _ in _report_plan(results, stem, metrics)]


def write_reports(results: Dict[str, Any], out_dir: str,
                  stem: str = 'robustness',
                  metrics: Optional[Sequence[str]] = None) -> List[str]:
    """Write Markdown, CSVs and plots next to the results JSON.

    Args:
        results (dict): The results.
        out_dir (str): Directory to write into.
        stem (str): File name stem.
        metrics (Sequence[str], optional): Metrics to plot (default: the
            main metrics).

    Returns:
        list[str]: Paths written: ``{stem}.md``, ``{stem}.csv``,
        ``{stem}_summary.csv``, with image cells ``{stem}_<metric>.png``
        and with clip cells ``{stem}_video_<metric>.png`` per metric.
    """
    paths = []
    for name, make in _report_plan(results, stem, metrics):
        path = osp.join(out_dir, name)
        content = make()
        if isinstance(content, str):
            write_text_atomic(content, path)
        else:
            write_bytes_atomic(content, path)
        paths.append(path)
    return paths


def write_region_report(runs: Sequence[Any], out_dir: str) -> str:
    """``regions.md``: the runs of one model under several ``--region``
    settings side by side (:func:`compare_markdown`).

    Args:
        runs (Sequence[tuple]): ``(region, results)`` pairs.
        out_dir (str): Directory to write into.

    Returns:
        str: The path written.
    """
    text = ('# Robustness per region\n\n'
            'One row per `--region`: `all` corrupts the whole image, '
            '`objects` only the ground-truth instances, `background` only '
            'what lies outside them (masks, else boxes, with a soft edge). '
            'P is the same clean evaluation in every row.\n\n' +
            compare_markdown(runs))
    path = osp.join(out_dir, 'regions.md')
    write_text_atomic(text, path)
    return path
