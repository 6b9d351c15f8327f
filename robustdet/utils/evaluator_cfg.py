# Copyright (c) robustdet contributors. All rights reserved.
"""The metrics of an mmengine evaluator config, read one way everywhere.

An evaluator config is one metric dict, a list of them, or a dict with
``metrics`` (mmengine's ``Evaluator``); a metric's ``type`` is a registry
name (``'CocoMetric'``, ``'mmdet.CocoMetric'``) or the class itself.
"""
from typing import Any, List


def metric_cfgs(evaluator_cfg: Any) -> List[Any]:
    """The metric configs of an evaluator config, as a list.

    Args:
        evaluator_cfg (dict | list | None): A test or val evaluator config.

    Returns:
        list: Its metric configs (the same objects, not copies); none for
        None.
    """
    if evaluator_cfg is None:
        return []
    if isinstance(evaluator_cfg, dict) and 'metrics' in evaluator_cfg:
        evaluator_cfg = evaluator_cfg['metrics']
    if isinstance(evaluator_cfg, (list, tuple)):
        return list(evaluator_cfg)
    return [evaluator_cfg]


def metric_type(metric_cfg: Any) -> str:
    """A metric config's type as a class name without its scope, e.g.
    ``'CocoMetric'`` for ``'mmdet.CocoMetric'`` or the class.

    Args:
        metric_cfg (dict): One metric config.

    Returns:
        str: The name ('' when the config names none).
    """
    kind = metric_cfg.get('type')
    name = kind if isinstance(kind, str) else getattr(kind, '__name__', '')
    return name.split('.')[-1]
