# Copyright (c) robustdet contributors. All rights reserved.
"""What a robustness run's results hold, read the same way everywhere:
its metrics and headline metrics, its name, the corruptions it has cells
of, a cell's value, the training warning, and its video summary and
coverage. Pure functions of the results dict (as
:func:`robustdet.apis.load_results` reads it), used by the reports, the
comparison and the plots.
"""
import os.path as osp
import re
from typing import Any, Dict, List, Optional, Sequence

from ...corruptions import CORRUPTION_NAMES
from .robustness import defined_value, mean_or_none
from .robustness import metric_keys as functional_metric_keys
from .video_robustness import CLIP_NAMES, video_coverage, video_summary


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
    defined = [defined_value(v) for v in values]
    return mean_or_none([v for v in defined if v is not None])


def image_names(results: Dict[str, Any]) -> List[str]:
    """Image corruptions with cells, in table order."""
    return [n for n in CORRUPTION_NAMES if n in results['cells']]


def video_names(results: Dict[str, Any]) -> List[str]:
    """Clip corruptions with cells, in table order."""
    return [n for n in CLIP_NAMES if results['cells'].get(n)]


def training_warning(results: Dict[str, Any]) -> Optional[str]:
    """The warning of a run whose detector saw corruptions in training,
    or whose training is unknown (``training_corruptions``: the
    checkpoint's training record, see
    :mod:`robustdet.datasets.training_record`), else None.

    Args:
        results (dict): A run's results; those written before the record
            (no entry, or the older ``transform`` form) are read too.

    Returns:
        str | None: The warning.
    """
    trained = results.get('training_corruptions')
    if not trained:
        return None
    if trained.get('source') == 'unknown':
        return ('training record unknown: the checkpoint records neither '
                'what it was trained on nor its training config')
    if not trained['corruptions']:
        return None
    how = ', '.join(trained.get('transforms') or [trained.get('transform')])
    if trained['benchmark']:
        return (f'trained with {how} on benchmark corruptions '
                f'({", ".join(trained["benchmark"])}): mPC no longer '
                'measures robustness to unseen corruptions')
    return (f'trained with {how} on {", ".join(trained["corruptions"])}: '
            'their cells are not unseen corruptions; the 15 of mPC are')


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
