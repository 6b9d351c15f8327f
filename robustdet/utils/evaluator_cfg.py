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


# Metrics that score by image id: the order in which the ranks' samples
# reach them changes no number. Not mmdet's VOCMetric (its sort of the
# detections of all images is not stable, so equal scores on two images
# may swap) nor CocoMetric's 'proposal_fast' (it pairs results and image
# ids by position).
ORDER_FREE_METRICS = ('CocoMetric', 'FastCocoMetric', 'PMKMetric')


def metrics_ignore_order(evaluator_cfg: Any) -> bool:
    """Whether every metric of a test evaluator config scores by image
    id, so that the order of the samples changes no number (ranks may
    then score consecutive shares of the images:
    :class:`~robustdet.engine.samplers.BatchRunSampler`).

    Args:
        evaluator_cfg (dict | list): The test evaluator config.

    Returns:
        bool: True for :data:`ORDER_FREE_METRICS` (CocoMetric without
        ``'proposal_fast'``) only.
    """
    for metric in metric_cfgs(evaluator_cfg):
        if metric_type(metric) not in ORDER_FREE_METRICS:
            return False
        wanted = metric.get('metric', 'bbox')
        if 'proposal_fast' in ([wanted] if isinstance(wanted, str) else
                               list(wanted)):
            return False
    return True
