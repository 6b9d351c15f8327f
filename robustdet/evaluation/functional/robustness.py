# Copyright (c) robustdet contributors. All rights reserved.
"""P, mPC and rPC from a grid of per-cell metrics (pure Python).

Michaelis et al. 2019: P is the clean performance, mPC the mean over the
15 benchmark corruptions and severities 1-5 of the performance under
corruption, rPC = mPC / P. rPC is a ratio of means, also for PASCAL VOC
(mmdet's ``robustness_eval`` averages per-class ratios there instead).
The newer families are reported beside them, never in them: ``mPC_cbar``
(mPC-bar, the 10 of ImageNet-C-bar) and ``mPC_3dcc``, each with its own
``rPC_<family> = mPC_<family> / P``.

Negative values are "undefined" in mmdet / pycocotools (e.g. -1 for
``bbox_mAP_l`` when no object is large) and are left out like missing
cells.
"""
from typing import Dict, List, Mapping, Optional, Sequence

from ...corruptions import (BENCHMARK_CORRUPTIONS, GROUPS, HOLDOUT_CORRUPTIONS,
                            NEWER_FAMILIES, SELECTIONS, SEVERITIES,
                            family_corruptions)

Cells = Mapping[str, Mapping[str, Mapping[str, float]]]
ClassCells = Mapping[str, Mapping[str, Sequence[float]]]


def mean_or_none(values: List[float]) -> Optional[float]:
    """The mean of the values, None when there are none."""
    return sum(values) / len(values) if values else None


def _ratio(value: Optional[float], p: Optional[float]) -> Optional[float]:
    return value / p if p and value is not None else None


def defined_value(value) -> Optional[float]:
    """The value as float, or None when missing or undefined (< 0)."""
    return None if value is None or value < 0 else float(value)


def collect_values(cells: Cells, names, metric: str) -> List[float]:
    """The defined values of ``metric`` in the cells of the corruptions
    ``names``, severities 1-5 in order."""
    values = []
    for name in names:
        for sev in SEVERITIES:
            value = defined_value(
                (cells.get(name, {}).get(str(sev)) or {}).get(metric))
            if value is not None:
                values.append(value)
    return values


def metric_keys(clean: Mapping[str, float], cells: Cells) -> List[str]:
    """The metric keys present in the clean metrics and the cells, clean
    ones first, then in order of first appearance."""
    keys = list(clean)
    for per_sev in cells.values():
        for values in per_sev.values():
            keys += [k for k in values if k not in keys]
    return keys


def grid_coverage(cells: Cells) -> Dict[str, object]:
    """Which cells of the benchmark grid are present.

    Args:
        cells (Mapping): ``{corruption: {'1': {metric: value}, ...}}``.

    Returns:
        dict: ``benchmark`` and ``holdout`` as ``[present, expected]``,
        ``complete`` (all 75 benchmark cells present) and ``missing`` (the
        absent benchmark cells as ``'name/severity'``); for each newer
        family with a cell (``cbar``, ``3dcc``), ``[present, expected]``
        under its name.
    """
    def present(names):
        return [(n, s) for n in names for s in SEVERITIES
                if str(s) in cells.get(n, {})]

    bench = present(BENCHMARK_CORRUPTIONS)
    expected = len(BENCHMARK_CORRUPTIONS) * len(SEVERITIES)
    have = set(bench)
    missing = [
        f'{n}/{s}' for n in BENCHMARK_CORRUPTIONS for s in SEVERITIES
        if (n, s) not in have
    ]
    coverage = dict(
        benchmark=[len(bench), expected],
        holdout=[
            len(present(HOLDOUT_CORRUPTIONS)),
            len(HOLDOUT_CORRUPTIONS) * len(SEVERITIES)
        ],
        complete=len(bench) == expected,
        missing=missing)
    for family in NEWER_FAMILIES:
        names = family_corruptions(family)
        if present(names):
            coverage[family] = [
                len(present(names)),
                len(names) * len(SEVERITIES)
            ]
    return coverage


def robustness_summary(clean: Mapping[str, float],
                       cells: Cells) -> Dict[str, Dict[str, float]]:
    """P, mPC, rPC, per-group mPC and per-family mPC / rPC for every
    metric.

    mPC averages exactly the benchmark cells (15 corruptions × severities
    1-5) that are present; per-group means likewise; ``mPC_holdout`` the
    4 hold-out corruptions, ``mPC_cbar`` and ``mPC_3dcc`` the cells of
    their families, with ``rPC_cbar`` and ``rPC_3dcc`` their ratios to P.
    A value that cannot be computed (no cells, or P = 0 for rPC) is None.

    Args:
        clean (Mapping): Clean metrics ``{metric: value}``.
        cells (Mapping): ``{corruption: {'1': {metric: value}, ...}}``.

    Returns:
        dict: ``{metric: {'P', 'mPC', 'rPC', 'mPC_noise', 'mPC_blur',
        'mPC_weather', 'mPC_digital', 'mPC_holdout', 'mPC_cbar',
        'rPC_cbar', 'mPC_3dcc', 'rPC_3dcc'}}``.
    """
    summary = {}
    for metric in metric_keys(clean, cells):
        p = defined_value(clean.get(metric))
        mpc = mean_or_none(
            collect_values(cells, BENCHMARK_CORRUPTIONS, metric))
        row = dict(P=p, mPC=mpc, rPC=_ratio(mpc, p))
        for group in GROUPS:
            row[f'mPC_{group}'] = mean_or_none(
                collect_values(cells, SELECTIONS[group], metric))
        for family in NEWER_FAMILIES:
            row[f'rPC_{family}'] = _ratio(row[f'mPC_{family}'], p)
        summary[metric] = row
    return summary


def class_mean_rpc(clean: Sequence[float],
                   cells: ClassCells) -> Optional[float]:
    """rPC as mmdet's ``robustness_eval`` computes it for PASCAL VOC: the
    mean over classes of ``mPC_c / P_c``.

    Michaelis et al. 2019 (and :func:`robustness_summary`) divide the
    means instead: ``mean_c(mPC_c) / mean_c(P_c)``. Classes with
    ``P_c = 0`` have no ratio and are left out (mmdet's mean becomes inf
    or NaN there).

    Args:
        clean (Sequence[float]): Clean AP50 per class.
        cells (Mapping): ``{corruption: {'1': [AP50 per class], ...}}``;
            the benchmark cells present are averaged, as for mPC.

    Returns:
        float or None: The mean of per-class ratios; None without clean
        values or benchmark cells.
    """
    present = [
        cells[n][str(s)] for n in BENCHMARK_CORRUPTIONS for s in SEVERITIES
        if str(s) in cells.get(n, {})
    ]
    if not clean or not present:
        return None
    ratios = [
        mean_or_none([cell[c] for cell in present]) / p
        for c, p in enumerate(clean) if p > 0
    ]
    return mean_or_none(ratios)
