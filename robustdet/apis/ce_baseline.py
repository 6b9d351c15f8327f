# Copyright (c) robustdet contributors. All rights reserved.
"""The baseline that CE, mCE and relative mCE are taken against
(:mod:`robustdet.evaluation.functional.corruption_error`).

A baseline is another run's ``robustness.json`` or a published row of
:mod:`robustdet.baselines`. It is stored in the results under
``ce_baseline`` (a run's clean metrics and image cells are copied), so
``corruption_errors`` (:func:`robustdet.apis.results.corruption_errors`)
and every report derive from the results JSON alone.
"""
import os.path as osp
from typing import Any, Dict, Sequence

from ..baselines import get_baseline, metric_of
from ..corruptions import BENCHMARK_FAMILY, CLEAN_SEVERITY, CORRUPTIONS_BY_NAME
from ..evaluation.functional.run_results import compact_cells, run_name
from ..utils.errors import RobustDetError
from ..utils.io import sha256_file
from .results import load_results


def load_ce_baseline(spec: str) -> Dict[str, Any]:
    """The baseline record of ``--ce-baseline``.

    Args:
        spec (str): A results JSON (another run's ``robustness.json``), or
            the name of a published row (``robustdet.baselines``).

    Returns:
        dict: ``kind`` ``'run'`` (``name``, ``source``, ``sha256``,
        ``config``, ``clean``, ``cells`` of the image corruptions) or
        ``'published'`` (``name``, ``citation``, ``metric``, ``P``,
        ``mPC`` in points).

    Raises:
        RobustDetError: Neither a readable results file nor a published
            row.
    """
    if osp.isfile(spec):
        base = load_results(spec)
        if not base.get('clean'):
            raise RobustDetError(
                f'{spec} has no clean results: a CE baseline needs them')
        return dict(
            kind='run',
            name=run_name(base, spec),
            source=spec,
            sha256=sha256_file(spec),
            config=base.get('config'),
            region=base.get('region', 'all'),
            clean=base['clean'],
            cells={
                n: v
                for n, v in base['cells'].items() if n in CORRUPTIONS_BY_NAME
            })
    try:
        row = get_baseline(spec)
    except RobustDetError:
        raise RobustDetError(
            f'--ce-baseline {spec!r} is neither a results file nor a '
            'published row (tools/compare_results.py --list names them)'
        ) from None
    return dict(
        kind='published',
        name=row.name,
        citation=row.citation,
        metric=metric_of(row.dataset, row.task),
        P=row.P,
        mPC=row.mPC)


def check_ce_baseline(baseline: Dict[str, Any], corruptions: Sequence[str],
                      severities: Sequence[int]) -> None:
    """Refuse, before a run starts, a baseline that lacks one of its image
    cells (per-corruption CE needs the same cells), or a published row for
    any but the 15 benchmark corruptions.

    Args:
        baseline (dict): From :func:`load_ce_baseline`.
        corruptions (Sequence[str]): The run's corruptions.
        severities (Sequence[int]): The run's severities.
    """
    image = [n for n in corruptions if n in CORRUPTIONS_BY_NAME]
    name = baseline['name']
    if baseline['kind'] == 'published':
        others = [
            n for n in image
            if CORRUPTIONS_BY_NAME[n].family != BENCHMARK_FAMILY
        ]
        if others:
            raise RobustDetError(
                f'baseline {name!r} is a published row of the 15 benchmark '
                f'corruptions: it has no numbers for {", ".join(others)}; '
                'give a baseline run JSON with those cells')
        return
    lacking = [
        f'{n}/{s}' for n in image for s in severities
        if s != CLEAN_SEVERITY and str(s) not in baseline['cells'].get(n, {})
    ]
    if lacking:
        raise RobustDetError(
            f'baseline {name!r} lacks cells the run has: '
            f'{compact_cells(lacking)}; CE compares the same cells')
