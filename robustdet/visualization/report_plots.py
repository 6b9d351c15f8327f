# Copyright (c) robustdet contributors. All rights reserved.
"""The reports' plots, drawn with matplotlib into PNG bytes: performance
against severity per corruption group, a shift benchmark's splits, runs
beside the published results (P against mPC), effective robustness on
COCO-O, and pm-k. Each takes plain data (a results file, or the series
a report module prepared from one) and draws nothing else."""
import io
import os.path as osp
from typing import Any, Dict, List, Sequence, Tuple

from ..corruptions import (BENCHMARK_GROUPS, CORRUPTIONS_BY_NAME, GROUPS,
                           SEVERITIES)
from ..evaluation.functional.run_results import (cell_value, image_names,
                                                 video_names)
from ..evaluation.functional.video_robustness import FAMILY_OF
from ..video.types import FAMILIES

# The dashed lines of constant rPC (in %) of the comparison plot.
ISO_RPC = (40, 60, 80)


def pyplot() -> Any:
    """matplotlib's pyplot on the Agg backend (imported when a plot is
    first drawn: the reports' text needs no matplotlib).

    Returns:
        module: ``matplotlib.pyplot``.
    """
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt
    return plt


def figure_png(fig: Any, dpi: int) -> bytes:
    """A figure as PNG bytes; the figure is closed.

    Args:
        fig (matplotlib.figure.Figure): The figure.
        dpi (int): Its resolution.

    Returns:
        bytes: PNG.
    """
    buf = io.BytesIO()
    fig.savefig(buf, format='png', dpi=dpi)
    pyplot().close(fig)
    return buf.getvalue()


def severity_panels_png(
        panels: Sequence[Tuple[str, Sequence[Tuple[str, List[float],
                                                   List[float]]]]],
        ylabel: str, title: str) -> bytes:
    """One panel per ``(title, lines)``, a line per ``(name, severities,
    values)`` from clean (severity 0) to severity 5 (like figures 5 and
    7-9 of Michaelis et al. 2019), as PNG bytes.

    Args:
        panels (Sequence): ``(panel title, [(name, xs, ys), ...])``.
        ylabel (str): The y axis' label.
        title (str): The figure's title.

    Returns:
        bytes: PNG.
    """
    plt = pyplot()
    fig, axes = plt.subplots(
        1, len(panels), figsize=(3.2 * len(panels), 3.2), sharey=True,
        squeeze=False)
    for ax, (group, lines) in zip(axes[0], panels):
        for name, xs, ys in lines:
            ax.plot(xs, ys, marker='o', markersize=3, label=name)
        ax.set_title(group)
        ax.set_xlabel('severity (0 = clean)')
        ax.set_xticks(range(0, len(SEVERITIES) + 1))
        ax.grid(alpha=0.3)
        if lines:
            ax.legend(fontsize=7)
    axes[0][0].set_ylabel(ylabel)
    fig.suptitle(title, fontsize=9)
    fig.tight_layout()
    return figure_png(fig, dpi=100)


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
    return _severity_plot(results, metric, panels, metric)


def plot_video_metric(results: Dict[str, Any], metric: str) -> bytes:
    """Performance vs severity per clip corruption, one panel per family
    with cells (clean at severity 0), as PNG bytes."""
    names = video_names(results)
    panels = [(f, [n for n in names if FAMILY_OF[n] == f]) for f in FAMILIES
              if any(FAMILY_OF[n] == f for n in names)
              ] or [(f, []) for f in FAMILIES]
    return _severity_plot(results, metric, panels, f'{metric}, video')


def _severity_plot(results: Dict[str, Any], metric: str,
                   panels: Sequence[Any], title: str) -> bytes:
    """One panel per ``(title, corruption names)``, a line per corruption
    from clean (severity 0) to severity 5, as PNG bytes
    (:func:`severity_panels_png`)."""
    clean = (results.get('clean') or {}).get(metric)
    series = []
    for group, names in panels:
        lines = []
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
            lines.append((name, xs, ys))
        series.append((group, lines))
    config = osp.splitext(osp.basename(str(results.get('config'))))[0]
    return severity_panels_png(series, f'{metric} × 100',
                               f'{config}: {title}')


def shift_plot(results: Dict[str, Any], metric: str) -> bytes:
    """A bar chart of ``metric`` per split (PNG bytes), P dashed."""
    plt = pyplot()
    row = results['summary'][metric]
    splits = list(row['splits'])
    values = [100 * (row['splits'][s] or 0) for s in splits]
    fig, ax = plt.subplots(figsize=(1.2 + 1.1 * len(splits), 3.2))
    bars = ax.bar(splits, values, color='#4c72b0')
    for bar, split in zip(bars, splits):
        rpc = row['rPC'].get(split)
        if rpc is not None:
            ax.annotate(f'{100 * rpc:.0f}%',
                        (bar.get_x() + bar.get_width() / 2,
                         bar.get_height()),
                        ha='center', va='bottom', fontsize=8)
    if row['P'] is not None:
        ax.axhline(100 * row['P'], color='k', ls='--', lw=1,
                   label=f'P ({results["reference"]})')
        ax.legend(fontsize=8, loc='lower left')
    ax.set_ylabel(f'{metric} [points]')
    ax.set_title(results['benchmark'], fontsize=10)
    fig.tight_layout()
    return figure_png(fig, dpi=100)


def comparison_plot(data: Dict[str, Any]) -> bytes:
    """P (x) against mPC (y): the published rows in grey with small
    labels, the runs in colour with labels (hollow markers and ``*`` for
    incomplete grids), dashed lines of constant rPC.

    Args:
        data (dict): A comparison (``compare.json``).

    Returns:
        bytes: PNG.
    """
    plt = pyplot()
    rows = [r for r in data['rows']
            if r['P'] is not None and r['mPC'] is not None]
    fig, ax = plt.subplots(figsize=(8.0, 6.0))
    xs = [r['P'] for r in rows] or [0.0, 100.0]
    ys = [r['mPC'] for r in rows] or [0.0, 100.0]
    pad = max(2.0, 0.08 * max(max(xs) - min(xs), max(ys) - min(ys)))
    x0, x1 = max(0.0, min(xs) - pad), min(100.0, max(xs) + 2 * pad)
    y0, y1 = max(0.0, min(ys) - pad), min(100.0, max(ys) + pad)
    for rpc in ISO_RPC:
        r = rpc / 100
        ax.plot([0, 100], [0, 100 * r], ls='--', lw=0.8, color='0.6',
                zorder=1)
        # where the line leaves the plot (its upper or right edge)
        right = x1 * r <= y1
        at = (x1, x1 * r) if right else (y1 / r, y1)
        if x0 <= at[0] <= x1 and y0 <= at[1] <= y1:
            left = at[0] < x0 + 0.15 * (x1 - x0)
            ax.annotate(f'rPC {rpc} %', at, fontsize=7, color='0.4',
                        ha='left' if left else 'right',
                        va='bottom' if right else 'top',
                        xytext=(-2, 2) if right else (4 if left else -4, -2),
                        textcoords='offset points')
    for row in rows:
        if row['kind'] != 'published':
            continue
        ax.scatter(row['P'], row['mPC'], s=18, color='0.55', zorder=2,
                   edgecolors='black' if row['baseline'] else 'none')
        label = f'{row["model"]} {row["backbone"]}'
        if row['training'] != 'standard':
            label += f' ({row["training"]})'
        ax.annotate(label + (' (baseline)' if row['baseline'] else ''),
                    (row['P'], row['mPC']), fontsize=5, color='0.35',
                    xytext=(3, -6), textcoords='offset points')
    colours = plt.rcParams['axes.prop_cycle'].by_key()['color']
    runs = [r for r in rows if r['kind'] == 'run']
    for i, row in enumerate(runs):
        colour = colours[i % len(colours)]
        hollow = row.get('incomplete')
        ax.scatter(row['P'], row['mPC'], s=40, marker='o', zorder=4,
                   facecolors='none' if hollow else colour,
                   edgecolors=colour, linewidths=1.5)
        ax.annotate(row['label'] + ('*' if hollow else ''),
                    (row['P'], row['mPC']), fontsize=8, color=colour,
                    xytext=(4, 4), textcoords='offset points', zorder=5,
                    bbox=dict(boxstyle='round,pad=0.1', fc='white',
                              ec='none', alpha=0.7))
    ax.set_xlim(x0, x1)
    ax.set_ylim(y0, y1)
    ax.set_xlabel(f'P: clean {data["metric"]} × 100')
    ax.set_ylabel('mPC × 100')
    title = f'{data["dataset"]} {data["task"]}: runs (colour) and ' \
        'published (grey)'
    if any(r.get('incomplete') for r in runs):
        title += '; * incomplete grid'
    ax.set_title(title, fontsize=9)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    return figure_png(fig, dpi=120)


def er_plot(data: Dict[str, Any]) -> bytes:
    """COCO mAP (x) against COCO-O mAP (y): the runs (filled: fitted the
    line, hollow: not), the line over their range, a label per run.

    Args:
        data (dict): An effective robustness report.

    Returns:
        bytes: PNG.
    """
    plt = pyplot()
    rows = data['runs']
    line = data['line']
    xs = [r['coco'] for r in rows]
    fig, ax = plt.subplots(figsize=(7.0, 5.0))
    pad = max(1.0, 0.1 * (max(xs) - min(xs)))
    x0, x1 = min(xs) - pad, max(xs) + pad
    ax.plot([x0, x1],
            [line['slope'] * x0 + line['intercept'],
             line['slope'] * x1 + line['intercept']],
            ls='--', lw=1, color='0.4',
            label=f'fit over {len(line["fitted"])} run(s): '
            f'y = {line["slope"]:.3f} x '
            f'{"+" if line["intercept"] >= 0 else "−"} '
            f'{abs(line["intercept"]):.2f}')
    colours = plt.rcParams['axes.prop_cycle'].by_key()['color']
    for i, row in enumerate(rows):
        colour = colours[i % len(colours)]
        ax.scatter(row['coco'], row['coco_o'], s=40, zorder=3,
                   facecolors=colour if row['fitted'] else 'none',
                   edgecolors=colour, linewidths=1.5)
        ax.annotate(f'{row["name"]} (ER {row["er"]:+.2f})',
                    (row['coco'], row['coco_o']), fontsize=8,
                    color=colour, xytext=(4, 4), textcoords='offset points')
    ax.set_xlim(x0, x1)
    ax.set_xlabel(f'COCO {data["metric"]} × 100')
    ax.set_ylabel(f'COCO-O {data["metric"]} × 100 (mean of domains)')
    ax.set_title('Effective robustness on COCO-O (filled: fitted the line)',
                 fontsize=9)
    ax.legend(fontsize=8, loc='upper left')
    ax.grid(alpha=0.3)
    fig.tight_layout()
    return figure_png(fig, dpi=110)


def plot_report(report: Dict[str, Any]) -> bytes:
    """pm-k curves and error vs offset of a pm-k report, as PNG bytes."""
    plt = pyplot()

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
    return figure_png(fig, dpi=100)
