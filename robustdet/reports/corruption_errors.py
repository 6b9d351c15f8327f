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


def baseline_words(entry: Dict[str, Any]) -> str:
    """Which baseline the errors are taken against, in a few words."""
    base = entry['baseline']
    if base['kind'] == 'published':
        return (f'published row `{base["name"]}` ({base["citation"]}; '
                'P and mPC only: pooled forms)')
    return f'run `{base["name"]}` (`{base["source"]}`)'


def ce_markdown(results: Dict[str, Any], metrics: List[str]) -> str:
    """The "Corruption errors" section, or '' without a baseline.

    Args:
        results (dict): The results, with ``corruption_errors``.
        metrics (list[str]): The metrics to show, those of the entry
            first.

    Returns:
        str: Markdown text.
    """
    entry = results.get('corruption_errors')
    if not entry:
        return ''
    lines = [
        '\n## Corruption errors\n',
        f'Baseline: {baseline_words(entry)}. E = 1 − AP; CE = Σ_s E / '
        'Σ_s E^B and relative CE = Σ_s (AP_clean − AP) / Σ_s (AP^B_clean − '
        'AP^B) per corruption, mCE and relative mCE their means over a '
        'family; pooled: (1 − mPC) / (1 − mPC^B) and (P − mPC) / (P^B − '
        'mPC^B). In % of the baseline (below 100 % = more robust). '
        'Relative CE is left out (flagged) where the baseline drops less '
        f'than 0.5 points per severity. {COUNT_WORDS}\n'
    ]
    shown = [m for m in metrics if m in entry['metrics']] or list(
        entry['metrics'])
    for metric in shown:
        families = entry['metrics'][metric]
        lines += [
            f'\n### {metric}\n', '| family | mCE | relative mCE | CE pooled '
            '| relative CE pooled | flagged |', '|---|---|---|---|---|---|'
        ]
        for family, row in families.items():
            flagged = [f['corruption'] for f in row.get('flagged', [])]
            if row.get('pooled_flagged'):
                flagged.append('pooled')
            lines.append(
                f'| {FAMILY_TITLES.get(family, family)} | '
                f'{mean_with_count(row.get("mCE"), row.get("count"))} | '
                f'{mean_with_count(row.get("rmCE"), row.get("rcount"))} | '
                f'{percent(row.get("CE_pooled"))} | '
                f'{percent(row.get("rCE_pooled"))} | '
                f'{", ".join(flagged) or "–"} |')
        per = [(n, row) for row in families.values()
               for n in row.get('CE', {})]
        if per:
            lines += [
                '', '| corruption | CE | relative CE |', '|---|---|---|'
            ]
            lines += [
                f'| {n} | {percent(row["CE"][n])} | '
                f'{percent(row["rCE"][n])} |' for n, row in per
            ]
    return '\n'.join(lines) + '\n'


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
