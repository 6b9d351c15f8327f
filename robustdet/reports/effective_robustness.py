# Copyright (c) robustdet contributors. All rights reserved.
"""Effective robustness of COCO-O runs as Markdown and a scatter plot,
derived from the report alone (:func:`robustdet.evaluation.functional.
effective_robustness.er_report`, which builds it from ``shift.json``
files of ``--benchmark coco-o``). Used by ``tools/effective_robustness.py``.
"""
import os.path as osp
from typing import Any, Dict, List

from ..evaluation.functional.effective_robustness import STEM
from ..evaluation.functional.effective_robustness import \
    er_report as _er_report
from ..utils.deprecation import moved_names
from ..utils.io import dump_json_atomic, write_bytes_atomic, write_text_atomic
from ..visualization.report_plots import er_plot
from .formatting import DASH, one_decimal
from .templating import render


def er_view(data: Dict[str, Any]) -> Dict[str, Any]:
    """The view model of the report: the line written out, a row of
    written cells per run.

    Args:
        data (dict): From :func:`er_report`.

    Returns:
        dict: ``metric``, ``fitted``, ``slope``, ``intercept`` (its sign
        and magnitude, ``'− 37.31'``), ``domains`` and ``rows``.
    """
    line = data['line']
    sign = '+' if line['intercept'] >= 0 else '−'
    return dict(
        metric=data['metric'],
        fitted=list(line['fitted']),
        slope=f'{line["slope"]:.4f}',
        intercept=f'{sign} {abs(line["intercept"]):.2f}',
        domains=list(data['domains']),
        rows=[[r['name'], one_decimal(r['coco']), one_decimal(r['coco_o'])] +
              [one_decimal(r['domains'][d]) for d in data['domains']] +
              [DASH if r['er'] is None else f'{r["er"]:+.2f}',
               'yes' if r['fitted'] else 'no']
              for r in data['runs']])


def er_markdown(data: Dict[str, Any]) -> str:
    """The report as Markdown (``templates/effective_robustness.md.j2``
    over :func:`er_view`): the line, then one row per run."""
    return render('effective_robustness.md.j2', v=er_view(data))


def write_er_report(data: Dict[str, Any], out_dir: str) -> List[str]:
    """Write ``effective_robustness.json`` (first), ``.md`` and ``.png``
    into ``out_dir``, each atomically (files already there are replaced).

    Args:
        data (dict): From :func:`er_report`.
        out_dir (str): Directory (created).

    Returns:
        list[str]: The paths written.
    """
    paths = [osp.join(out_dir, f'{STEM}.{ext}')
             for ext in ('json', 'md', 'png')]
    dump_json_atomic(data, paths[0])
    write_text_atomic(er_markdown(data), paths[1])
    write_bytes_atomic(er_plot(data), paths[2])
    return paths


# er_report built the report here before it moved to evaluation/; the old
# path works for one release.
__getattr__ = moved_names(
    __name__,
    dict(er_report=(
        'robustdet.evaluation.functional.effective_robustness.er_report',
        lambda: _er_report)))
