# Copyright (c) robustdet contributors. All rights reserved.
"""The corruption-error section of a robustness report: mCE, relative
mCE and their pooled forms per family, CE and relative CE per corruption,
always with the baseline they were taken against (from the results'
``corruption_errors`` entry, see :func:`robustdet.apis.results.
corruption_errors`)."""
from typing import Any, Dict, List, Optional

from .formatting import percent, with_count

FAMILY_TITLES = dict(
    benchmark='the 15 (mCE)',
    holdout='hold-out',
    cbar='C-bar (mCE-bar)',
    **{'3dcc': '3DCC'})


def mean_with_count(value: Optional[float], count: Optional[int]) -> str:
    """A mean CE in % (one decimal) with the number of corruptions it
    averages, ``'84.2 (15)'``; ``'–'`` when there is no mean.

    Args:
        value (float, optional): The mean, a fraction (1 = the
            baseline's error) or None.
        count (int, optional): How many corruptions it averages.

    Returns:
        str: The cell's text.
    """
    return with_count(percent(value), count)


# The sentence under every table of mean CEs.
COUNT_WORDS = ('(n): the corruptions a mean covers; relative mCE leaves '
               'out the flagged ones.')


def ce_summary_lines(results: Dict[str, Any],
                     metrics: List[str]) -> List[str]:
    """One plain-text line per metric: mCE and relative mCE per family
    against the baseline (none without a baseline)."""
    entry = results.get('corruption_errors')
    if not entry:
        return []
    lines = []
    for metric in metrics:
        families = entry['metrics'].get(metric)
        if not families:
            continue
        parts = []
        for family, row in families.items():
            if row.get('mCE') is None:
                parts.append(f'{family} CE pooled '
                             f'{percent(row.get("CE_pooled"))} %')
            else:
                parts.append(
                    f'{family} mCE {percent(row["mCE"])} % over '
                    f'{row.get("count")} (relative '
                    f'{percent(row.get("rmCE"))} % over '
                    f'{row.get("rcount")})')
        lines.append(f'{metric} vs {entry["baseline"]["name"]}: ' +
                     ', '.join(parts))
    return lines
