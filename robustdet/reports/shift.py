# Copyright (c) robustdet contributors. All rights reserved.
"""Markdown, CSV and a plot of a shift benchmark's ``shift.json`` (the
layout of Michaelis et al. 2019, tables 4 and 5: P on the reference split,
then the value and rPC of every split)."""
import io
import os.path as osp
from typing import Any, Dict, List

from ..utils.io import write_bytes_atomic, write_text_atomic
from .formatting import csv_text, slug
from .shift_view import shift_main_metrics, shift_view
from .templating import render


def shift_markdown(results: Dict[str, Any]) -> str:
    """The Markdown report of a shift benchmark (``templates/shift.md.j2``
    over :func:`~robustdet.reports.shift_view.shift_view`)."""
    return render('shift.md.j2', v=shift_view(results))


def shift_csv(results: Dict[str, Any]) -> str:
    """``shift.csv``: the view model's records
    (:func:`~robustdet.reports.shift_view.shift_records`)."""
    return csv_text(shift_view(results)['records'])


def shift_plot(results: Dict[str, Any], metric: str) -> bytes:
    """A bar chart of ``metric`` per split (PNG bytes), P dashed."""
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt
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
    buf = io.BytesIO()
    fig.savefig(buf, format='png', dpi=100)
    plt.close(fig)
    return buf.getvalue()


def write_shift_reports(results: Dict[str, Any], out_dir: str) -> List[str]:
    """Write ``shift.md``, ``shift.csv`` and ``shift_<metric>.png``."""
    paths = []
    for name, text in (('shift.md', shift_markdown(results)),
                       ('shift.csv', shift_csv(results))):
        path = osp.join(out_dir, name)
        write_text_atomic(text, path)
        paths.append(path)
    for metric in shift_main_metrics(results):
        path = osp.join(out_dir, f'shift_{slug(metric)}.png')
        write_bytes_atomic(shift_plot(results, metric), path)
        paths.append(path)
    return paths
