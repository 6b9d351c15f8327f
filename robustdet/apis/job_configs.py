# Copyright (c) robustdet contributors. All rights reserved.
"""How a benchmark job rewrites the test config it is given.

- :func:`unwrap_corrupted`: a -C config's test set (one corrupted cell for
  mmdet's ``tools/test.py``) back to the clean dataset the grid runs on;
- :func:`pipeline_ground_truth_cfg`: scoring against the ground truth the
  dataset delivers, for clip corruptions that move the boxes;
- :func:`device_corruption_cfgs`: backend ``'torch'``, where the model's
  data preprocessor corrupts on the device.
"""
import copy
import inspect
from typing import Any, Dict, Tuple

from mmdet.datasets.transforms import PackDetInputs
from mmdet.evaluation.metrics import CocoMetric
from mmdet.registry import METRICS
from mmengine.logging import print_log

from ..datasets import (CorruptedDataset, DeferredCorruptionDataset,
                        VideoCorruptedDataset)
from ..utils.errors import RobustDetError


def unwrap_corrupted(cfg: Any) -> Any:
    """The config with a ``CorruptedDataset`` (or ``VideoCorruptedDataset``)
    test set replaced by the dataset it wraps: the -C configs corrupt one
    cell for mmdet's ``tools/test.py``; the grid is evaluated on the clean
    dataset."""
    dataset = cfg.test_dataloader.get('dataset', {})
    if dataset.get('type') not in ('CorruptedDataset', CorruptedDataset,
                                   'VideoCorruptedDataset',
                                   VideoCorruptedDataset):
        return cfg
    cfg = copy.deepcopy(cfg)
    cfg.test_dataloader.dataset = dataset['dataset']
    print_log(
        'the config corrupts its test set (CorruptedDataset with '
        f'corruption={dataset.get("corruption")!r}, '
        f'severity={dataset.get("severity")}); evaluating the grid on the '
        'dataset it wraps', logger='current')
    return cfg


# Metrics that score against the packed ground truth (gt_instances) already.
_PACKED_GT_METRICS = ('VOCMetric', 'PMKMetric')


def _metric_class(metric: Dict[str, Any]) -> Any:
    kind = metric.get('type')
    return METRICS.get(kind) if isinstance(kind, str) else kind


def _add_instances_meta_key(node: Any) -> int:
    """Add ``'instances'`` to the ``meta_keys`` of every ``PackDetInputs``
    of the dataset configs under ``node``; returns how many."""
    found = 0
    if isinstance(node, dict):
        for step in node.get('pipeline') or []:
            kind = step.get('type') if isinstance(step, dict) else None
            if kind not in ('PackDetInputs', PackDetInputs):
                continue
            default = inspect.signature(
                PackDetInputs.__init__).parameters['meta_keys'].default
            keys = list(step.get('meta_keys', default))
            if 'instances' not in keys:
                keys.append('instances')
            step['meta_keys'] = tuple(keys)
            found += 1
        for key in ('dataset', 'datasets'):
            children = node.get(key)
            for child in (children if isinstance(children, list) else
                          [children]):
                found += _add_instances_meta_key(child)
    return found


def pipeline_ground_truth_cfg(cfg: Any, why: str) -> Any:
    """The config scored against the ground truth the test dataset
    delivers, for corruptions that move it.

    COCO metrics (``CocoMetric`` and subclasses such as
    ``FastCocoMetric``) lose their ``ann_file`` and read each image's
    ``instances`` (added to ``PackDetInputs``' ``meta_keys``); VOC and pm-k
    metrics score the packed boxes already. Other metrics are refused.

    Args:
        cfg (mmengine.Config): The test config (not modified).
        why (str): What moves the ground truth, for messages.

    Returns:
        mmengine.Config: The rewritten copy.
    """
    cfg = copy.deepcopy(cfg)
    evaluator = cfg.test_evaluator
    metrics = evaluator if isinstance(evaluator, list) else [evaluator]
    for metric in metrics:
        cls = _metric_class(metric)
        if isinstance(cls, type) and issubclass(cls, CocoMetric):
            metric['ann_file'] = None
        elif getattr(cls, '__name__', cls) not in _PACKED_GT_METRICS:
            raise RobustDetError(
                f'{why} moves the ground-truth boxes; robustdet scores that '
                'with CocoMetric (and subclasses), VOCMetric or PMKMetric, '
                f'not {metric.get("type")!r}')
    if not _add_instances_meta_key(cfg.test_dataloader.get('dataset')):
        raise RobustDetError(
            f'{why} moves the ground-truth boxes, and the test pipeline '
            'has no PackDetInputs to carry them to the evaluator')
    return cfg


def device_corruption_cfgs(cfg: Any, dl_cfg: Dict[str, Any],
                           job: Any) -> Tuple[Any, Dict[str, Any]]:
    """The configs of backend ``'torch'``: the model's data preprocessor
    corrupts on the device.

    The model's ``data_preprocessor`` is wrapped in
    :class:`~robustdet.models.CorruptingDataPreprocessor` (corrupt at the
    original resolution, resize to the ``img_shape`` the test pipeline's
    ``Resize`` gives, then the wrapped preprocessing) and the test dataset
    in :class:`DeferredCorruptionDataset` (decode and pack only, with
    ``Resize``'s metainfo). The cell is set on the preprocessor before
    each pass.

    Args:
        cfg (mmengine.Config): The test config (not modified).
        dl_cfg (dict): The test dataloader config.
        job (RobustnessJob): The job (seed, channel order, device).

    Returns:
        tuple: The config to build the runner from and the dataloader
        config.
    """
    cfg = copy.deepcopy(cfg)
    inner = cfg.model.get('data_preprocessor')
    if inner is None:
        raise RobustDetError(
            "backend torch wraps the model's data_preprocessor, and the "
            f'model of {job.config} has none')
    cfg.model.data_preprocessor = dict(
        type='CorruptingDataPreprocessor',
        data_preprocessor=inner,
        seed=job.seed,
        channel_order=job.channel_order,
        device=job.corruption_device)
    dl_cfg = copy.deepcopy(dl_cfg)
    dl_cfg['dataset'] = dict(
        type=DeferredCorruptionDataset.__name__, dataset=dl_cfg['dataset'])
    cfg.test_dataloader = dl_cfg
    return cfg, dl_cfg
