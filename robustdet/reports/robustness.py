# Copyright (c) robustdet contributors. All rights reserved.
"""Markdown, CSV and plots of a robustness results file.

Everything here is derived from ``robustness.json`` alone, so
``tools/robustness_report.py`` can regenerate it at any time.
"""
import csv
import io
import os.path as osp
import re
from typing import Any, Dict, List, Optional, Sequence

from ..corruptions import (BENCHMARK_GROUPS, CORRUPTION_NAMES,
                           CORRUPTIONS_BY_NAME, GROUPS, SEVERITIES)
from ..evaluation.functional.robustness import \
    metric_keys as functional_metric_keys
from ..utils.io import write_bytes_atomic, write_text_atomic

SUMMARY_COLUMNS = ('P', 'mPC', 'rPC') + tuple(
    f'mPC_{g}' for g in GROUPS)


def metric_keys(results: Dict[str, Any]) -> List[str]:
    """Metric keys present in the results, clean ones first."""
    return functional_metric_keys(results.get('clean') or {},
                                  results['cells'])


def main_metrics(results: Dict[str, Any]) -> List[str]:
    """The headline metrics: mmdet's overall mAP keys (``coco/bbox_mAP``,
    ``coco/segm_mAP``, ``pascal_voc/mAP``); all metrics if none."""
    keys = metric_keys(results)
    main = [k for k in keys if k.endswith('mAP')]
    return main or keys


def _pts(value: Optional[float]) -> str:
    """A metric in [0, 1] as points with one decimal."""
    return '–' if value is None or value < 0 else f'{100 * value:.1f}'


def _slug(metric: str) -> str:
    return re.sub(r'[^A-Za-z0-9]+', '_', metric).strip('_')


def _cell(results, name, sev, metric):
    return (results['cells'].get(name, {}).get(str(sev)) or {}).get(metric)


def _mean(values):
    values = [v for v in values if v is not None and v >= 0]
    return sum(values) / len(values) if values else None


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
    w(f'- config: `{results.get("config")}`\n')
    w(f'- checkpoint: `{results.get("checkpoint")}`\n')
    w(f'- seed {results["seed"]}, backend `{results["backend"]}`, channel '
      f'order `{results["channel_order"]}`\n')
    cov = results.get('coverage') or {}
    if cov:
        done, total = cov['benchmark']
        hdone, htotal = cov['holdout']
        w(f'- benchmark cells: {done}/{total}, hold-out cells: '
          f'{hdone}/{htotal}\n')
        if not cov['complete']:
            w(f'- **incomplete grid**: mPC averages the {done} benchmark '
              f'cells present, not all {total}\n')
    if results.get('empty_cells'):
        w(f'- cells without any detection (scored as AP 0): '
          f'{", ".join(results["empty_cells"])}\n')
    if results.get('skipped_images'):
        w(f'- skipped unreadable images: {len(results["skipped_images"])} '
          '(listed in the JSON)\n')
    metrics = main_metrics(results)
    w('\n## Summary\n\n')
    w('Values in points (× 100); rPC = mPC / P in %.\n\n')
    header = ['metric'] + list(SUMMARY_COLUMNS)
    w('| ' + ' | '.join(header) + ' |\n')
    w('|' + '---|' * len(header) + '\n')
    for metric in metrics:
        row = results['summary'].get(metric, {})
        w(f'| {metric} | ' + ' | '.join(
            _pts(row.get(c)) for c in SUMMARY_COLUMNS) + ' |\n')
    w('\nLeaderboard row (as in Michaelis et al. 2019, table 1):\n\n')
    w('| model | ' + ' | '.join(
        f'{m}: P / mPC / rPC [%]' for m in metrics) + ' |\n')
    w('|---|' + '---|' * len(metrics) + '\n')
    model = osp.splitext(osp.basename(str(results.get('config'))))[0]
    w(f'| {model} | ' + ' | '.join(
        ' / '.join(
            _pts(results['summary'].get(m, {}).get(k))
            for k in ('P', 'mPC', 'rPC')) for m in metrics) + ' |\n')
    for metric in metrics:
        w(f'\n## {metric} per corruption and severity\n\n')
        w('| corruption | group | ' + ' | '.join(map(str, SEVERITIES)) +
          ' | mean |\n')
        w('|---|---|' + '---|' * (len(SEVERITIES) + 1) + '\n')
        clean = (results.get('clean') or {}).get(metric)
        w(f'| clean | – | {_pts(clean)} |' + ' |' * len(SEVERITIES) +
          '\n')
        for name in CORRUPTION_NAMES:
            if name not in results['cells']:
                continue
            values = [_cell(results, name, s, metric) for s in SEVERITIES]
            w(f'| {name} | {CORRUPTIONS_BY_NAME[name].group} | ' +
              ' | '.join(_pts(v) for v in values) +
              f' | {_pts(_mean(values))} |\n')
    return out.getvalue()


def compare_markdown(named: Sequence[Any]) -> str:
    """Several models side by side, one row each (the layout of Michaelis
    et al. 2019, table 2: standard / stylized / combined training).

    Args:
        named (list[tuple[str, dict]]): (row name, results) pairs; their
            headline metrics are those of the first.

    Returns:
        str: A Markdown table (points, rPC in %) per headline metric.
    """
    if not named:
        return ''
    out = io.StringIO()
    columns = SUMMARY_COLUMNS
    for metric in main_metrics(named[0][1]):
        out.write(f'{metric}, values in points (rPC in %):\n\n')
        out.write('| model | ' + ' | '.join(columns) + ' |\n')
        out.write('|---|' + '---|' * len(columns) + '\n')
        for name, results in named:
            row = results['summary'].get(metric, {})
            out.write(f'| {name} | ' + ' | '.join(
                _pts(row.get(c)) for c in columns) + ' |\n')
        out.write('\n')
    return out.getvalue()


def summary_text(results: Dict[str, Any]) -> str:
    """A few plain-text lines: P, mPC and rPC of the main metrics."""
    lines = []
    for metric in main_metrics(results):
        row = results['summary'].get(metric, {})
        lines.append(f'{metric}: P {_pts(row.get("P"))}  mPC '
                     f'{_pts(row.get("mPC"))}  rPC {_pts(row.get("rPC"))} %')
    cov = results.get('coverage') or {}
    if cov and not cov.get('complete'):
        done, total = cov['benchmark']
        lines.append(f'incomplete grid: {done} of {total} benchmark cells; '
                     'mPC averages the cells present')
    return '\n'.join(lines)


def csv_report(results: Dict[str, Any]) -> str:
    """All cells in long format: metric, corruption, group, severity,
    value (clean rows have corruption ``clean`` and severity 0)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator='\n')
    writer.writerow(['metric', 'corruption', 'group', 'severity', 'value'])
    for metric in metric_keys(results):
        clean = (results.get('clean') or {}).get(metric)
        if clean is not None:
            writer.writerow([metric, 'clean', '', 0, clean])
        for name in CORRUPTION_NAMES:
            for sev in SEVERITIES:
                value = _cell(results, name, sev, metric)
                if value is not None:
                    writer.writerow([
                        metric, name, CORRUPTIONS_BY_NAME[name].group, sev,
                        value
                    ])
    return out.getvalue()


def summary_csv(results: Dict[str, Any]) -> str:
    """P, mPC, rPC and per-group mPC for every metric."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator='\n')
    writer.writerow(['metric', *SUMMARY_COLUMNS])
    for metric in metric_keys(results):
        row = results['summary'].get(metric, {})
        writer.writerow([metric] + [
            '' if row.get(c) is None else row[c] for c in SUMMARY_COLUMNS
        ])
    return out.getvalue()


def plot_metric(results: Dict[str, Any], metric: str) -> bytes:
    """Performance vs severity per corruption, one panel per group (like
    figures 5 and 7-9 of Michaelis et al. 2019), as PNG bytes."""
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt
    groups = [
        g for g in GROUPS
        if any(CORRUPTIONS_BY_NAME[n].group == g for n in results['cells'])
    ] or list(BENCHMARK_GROUPS)
    fig, axes = plt.subplots(
        1, len(groups), figsize=(3.2 * len(groups), 3.2), sharey=True,
        squeeze=False)
    clean = (results.get('clean') or {}).get(metric)
    for ax, group in zip(axes[0], groups):
        for name in CORRUPTION_NAMES:
            if (CORRUPTIONS_BY_NAME[name].group != group
                    or name not in results['cells']):
                continue
            xs, ys = [], []
            if clean is not None and clean >= 0:
                xs.append(0)
                ys.append(100 * clean)
            for sev in SEVERITIES:
                value = _cell(results, name, sev, metric)
                if value is not None and value >= 0:
                    xs.append(sev)
                    ys.append(100 * value)
            ax.plot(xs, ys, marker='o', markersize=3, label=name)
        ax.set_title(group)
        ax.set_xlabel('severity (0 = clean)')
        ax.set_xticks(range(0, len(SEVERITIES) + 1))
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    axes[0][0].set_ylabel(f'{metric} × 100')
    fig.suptitle(osp.splitext(osp.basename(str(results.get('config'))))[0] +
                 f': {metric}', fontsize=9)
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format='png', dpi=100)
    plt.close(fig)
    return buf.getvalue()


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
        list[str]: Paths written.
    """
    paths = []

    def put_text(name, text):
        path = osp.join(out_dir, name)
        write_text_atomic(text, path)
        paths.append(path)

    put_text(f'{stem}.md', markdown_report(results))
    put_text(f'{stem}.csv', csv_report(results))
    put_text(f'{stem}_summary.csv', summary_csv(results))
    if results['cells']:
        for metric in metrics or main_metrics(results):
            path = osp.join(out_dir, f'{stem}_{_slug(metric)}.png')
            write_bytes_atomic(plot_metric(results, metric), path)
            paths.append(path)
    return paths
