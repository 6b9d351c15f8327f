# Copyright (c) robustdet contributors. All rights reserved.
"""Absolute and relative robustness γa, γr (Schiappa et al. 2023), pure
Python.

For a clean performance P and the performance P_c,s under corruption c at
severity s, both in points (0-100):

- γa = 1 − (P − P_c,s) / 100,
- γr = 1 − (P − P_c,s) / P,

averaged over the severities and corruptions of a family (and over all).
mmdet's metrics are fractions (0-1), so here γa = 1 − (P − P_c,s) on
fractions, the same number. Both are 1 for no loss and can exceed 1 when a
corruption helps. Undefined values (< 0, mmdet's "not applicable") and
missing cells are left out.
"""
from typing import Dict, Mapping, Optional

from .robustness import defined_value, mean_or_none

Cells = Mapping[str, Mapping[str, Mapping[str, float]]]


def gamma_scores(clean: Mapping[str, float], cells: Cells,
                 families: Mapping[str, str],
                 metric: str) -> Dict[str, Dict[str, Optional[float]]]:
    """γa and γr of one metric, per family and over all cells.

    Args:
        clean (Mapping): Clean metrics (``{metric: value}``, 0-1).
        cells (Mapping): ``{corruption: {'1': {metric: value}, ...}}``.
        families (Mapping): ``{corruption: family}``; corruptions not in
            it are left out.
        metric (str): The metric key.

    Returns:
        dict: ``{'gamma_a': {family: value, ..., 'all': value},
        'gamma_r': {...}}``; None where nothing is defined (γr also when
        P is 0 or undefined).
    """
    p = defined_value(clean.get(metric))
    per_family: Dict[str, list] = {}
    for name, per_sev in cells.items():
        if name not in families:
            continue
        for values in per_sev.values():
            v = defined_value((values or {}).get(metric))
            if v is not None:
                per_family.setdefault(families[name], []).append(v)
    groups = dict(per_family)
    groups['all'] = [v for vs in per_family.values() for v in vs]
    out = {'gamma_a': {}, 'gamma_r': {}}
    for group, values in groups.items():
        if p is None or not values:
            out['gamma_a'][group] = out['gamma_r'][group] = None
            continue
        out['gamma_a'][group] = mean_or_none([1 - (p - v) for v in values])
        out['gamma_r'][group] = (mean_or_none(
            [1 - (p - v) / p for v in values]) if p > 0 else None)
    return out
