# Copyright (c) robustdet contributors. All rights reserved.
"""Which corruptions a detector saw in training, as its config says.

A detector trained with :class:`~robustdet.datasets.RandomCorrupt` has
seen those corruptions: their cells no longer measure robustness to an
unseen corruption, and with ``allow_benchmark=True`` mPC itself no
longer does. ``test_robust.py`` records what the config's training
pipelines hold (``training_corruptions`` in the results) and the reports
warn.
"""
import copy
from typing import Any, Dict, List, Optional

from mmdet.registry import TRANSFORMS

from ..corruptions import BENCHMARK_CORRUPTIONS, CORRUPTION_NAMES


def _steps(node: Any, found: List[Dict[str, Any]]) -> None:
    """Collect the ``RandomCorrupt`` step configs below ``node``."""
    if isinstance(node, dict):
        kind = node.get('type')
        if getattr(kind, '__name__', kind) == 'RandomCorrupt':
            found.append(node)
        for value in node.values():
            _steps(value, found)
    elif isinstance(node, (list, tuple)):
        for value in node:
            _steps(value, found)


def training_corruptions(cfg: Any) -> Optional[Dict[str, Any]]:
    """The corruptions of the ``RandomCorrupt`` steps of a config's
    training dataloader, or None when it has none.

    Args:
        cfg (mmengine.Config): A full config (its ``train_dataloader``).

    Returns:
        dict | None: ``transform`` (``'RandomCorrupt'``), ``corruptions``
        (every corruption a step may apply, table order) and
        ``benchmark`` (those of them among the 15 of mPC).
    """
    found: List[Dict[str, Any]] = []
    _steps(cfg.get('train_dataloader'), found)
    if not found:
        return None
    names = set()
    for step in found:
        names.update(TRANSFORMS.build(copy.deepcopy(dict(step))).corruptions)
    ordered = [n for n in CORRUPTION_NAMES if n in names]
    return dict(
        transform='RandomCorrupt',
        corruptions=ordered,
        benchmark=[n for n in ordered if n in BENCHMARK_CORRUPTIONS])
