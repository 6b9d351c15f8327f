# Copyright (c) robustdet contributors. All rights reserved.
"""Which published rows a run is compared with: the dataset a run's
results are of, and the baseline row its differences are taken to."""
from typing import Any, Dict, Optional

from ..utils.errors import RobustDetError
from .michaelis2019 import BaselineRow, baseline_rows, get_baseline


def guess_dataset(results: Dict[str, Any]) -> str:
    """The dataset an imported run records, else ``'voc'`` if the
    results hold ``pascal_voc/`` metrics, else ``'coco'`` (Cityscapes runs
    have COCO metric keys too).

    Args:
        results (dict): A run's results.

    Returns:
        str: ``'coco'``, ``'voc'`` or ``'cityscapes'``.
    """
    if (results.get('imported') or {}).get('dataset'):
        return results['imported']['dataset']
    keys = set(results.get('clean') or {})
    keys.update(results.get('summary') or {})
    for per_sev in results.get('cells', {}).values():
        for values in per_sev.values():
            keys.update(values or {})
    return 'voc' if any(k.startswith('pascal_voc/') for k in keys) else 'coco'


def default_baseline(dataset: str, task: str) -> BaselineRow:
    """The row the differences are taken to by default: the dataset's
    Faster R-CNN R-50-FPN standard row for the task, else its Mask R-CNN
    R-50-FPN standard row (the paper's two models), else another standard
    R-50-FPN row, else its first row.

    Args:
        dataset (str): The dataset.
        task (str): The task.

    Returns:
        BaselineRow: The row.
    """
    rows = baseline_rows(dataset, task)
    if not rows:
        raise RobustDetError(f'no published {dataset} {task} results')

    def standard(row):
        return row.training == 'standard' and row.backbone == 'R-50-FPN'

    for pick in (lambda r: standard(r) and r.model == 'Faster R-CNN',
                 lambda r: standard(r) and r.model == 'Mask R-CNN',
                 standard, lambda r: True):
        found = [r for r in rows if pick(r)]
        if found:
            return found[0]
    raise AssertionError('unreachable')


def resolve_baseline(name: Optional[str], dataset: str,
                     task: str) -> BaselineRow:
    """The baseline row named ``name`` (the default one if None), which
    must be of this dataset and task.

    Args:
        name (str, optional): A baseline name.
        dataset (str): The dataset compared.
        task (str): The task compared.

    Returns:
        BaselineRow: The row.
    """
    if name is None:
        return default_baseline(dataset, task)
    names = ', '.join(r.name for r in baseline_rows(dataset, task))
    try:
        row = get_baseline(name)
    except RobustDetError:
        raise RobustDetError(f'unknown baseline {name!r}; {dataset} {task} '
                             f'baselines: {names}') from None
    if (row.dataset, row.task) != (dataset, task):
        raise RobustDetError(
            f'baseline {name!r} is a {row.dataset} {row.task} row, not '
            f'{dataset} {task}; {dataset} {task} baselines: {names}')
    return row
