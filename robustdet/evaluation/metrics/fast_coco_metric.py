# Copyright (c) robustdet contributors. All rights reserved.
"""``FastCocoMetric``: mmdet's ``CocoMetric`` evaluated with
faster-coco-eval instead of pycocotools.

Opt-in, not the default: its numbers are not bit-identical to
pycocotools' (see :mod:`robustdet.evaluation.metrics._faster_coco` and
docs/benchmark.md). The metric values it reports (mmdet rounds them to 3
decimals) were identical to ``CocoMetric``'s in every case robustdet tests.
"""
import functools
import importlib.metadata
import logging
import types
from typing import Callable, Dict

from mmdet.evaluation.metrics import CocoMetric
from mmdet.registry import METRICS
from mmengine.logging import print_log

from ...utils.errors import RobustDetError

_INSTALL = 'pip install faster-coco-eval==1.8.0'


def _with_globals(func: Callable, names: Dict[str, object]) -> Callable:
    """A copy of ``func`` that sees ``names`` instead of its module's
    globals of the same names (the module itself is not changed)."""
    scope = dict(func.__globals__, **names)
    new = types.FunctionType(func.__code__, scope, func.__name__,
                             func.__defaults__, func.__closure__)
    new.__kwdefaults__ = func.__kwdefaults__
    return functools.update_wrapper(new, func)


@functools.lru_cache(maxsize=None)
def _faster_methods() -> Dict[str, Callable]:
    """``CocoMetric.__init__`` and ``compute_metrics`` with the COCO API
    names of mmdet's module bound to faster-coco-eval's classes."""
    try:
        from ._faster_coco import VERIFIED_VERSION, FasterCOCO, FasterCOCOeval
    except ImportError as e:
        raise RobustDetError(
            f'FastCocoMetric needs faster-coco-eval ({_INSTALL}): {e}'
        ) from e
    installed = importlib.metadata.version('faster-coco-eval')
    if installed != VERIFIED_VERSION:
        print_log(
            f'FastCocoMetric: faster-coco-eval {installed} is installed; '
            f'its agreement with pycocotools was verified for '
            f'{VERIFIED_VERSION} ({_INSTALL})',
            logger='current', level=logging.WARNING)
    # COCOevalMP (use_mp_eval=True) is pycocotools' evaluator run in
    # processes; faster-coco-eval's replaces it too.
    names = dict(
        COCO=FasterCOCO, COCOeval=FasterCOCOeval, COCOevalMP=FasterCOCOeval)
    return dict(
        init=_with_globals(CocoMetric.__init__, names),
        compute_metrics=_with_globals(CocoMetric.compute_metrics, names))


@METRICS.register_module()
class FastCocoMetric(CocoMetric):
    """mmdet's ``CocoMetric`` with faster-coco-eval as the COCO API.

    The arguments, metric keys (``coco/bbox_mAP``, ...), rounding, the
    classwise table and the behaviour with no detection at all (no metrics
    returned) are ``CocoMetric``'s: its own code runs, with its names
    ``COCO`` / ``COCOeval`` / ``COCOevalMP`` bound to faster-coco-eval's
    classes for this class only (mmdet's module is not modified).
    faster-coco-eval computes IoUs, matching and accumulation in C++; the
    summary follows pycocotools' table.

    Not bit-identical to pycocotools: where a precision entry is 1 (the
    first counted detection is a true positive), pycocotools stores
    ``1 / (1 + 2**-52)``; the AP numbers then differ by a few 1e-17 before
    mmdet's rounding to 3 decimals. ``use_mp_eval`` has no effect.

    Use it in place of ``CocoMetric`` in a config, e.g.
    ``test_evaluator = dict(type='FastCocoMetric', ann_file=...,
    metric=['bbox', 'segm'])``, or on the command line
    ``--cfg-options test_evaluator.type=FastCocoMetric``.

    Args:
        *args: Positional arguments of mmdet's ``CocoMetric``.
        **kwargs: Keyword arguments of mmdet's ``CocoMetric``
            (``ann_file``, ``metric``, ``classwise``, ``proposal_nums``,
            ``iou_thrs``, ``metric_items``, ``format_only``,
            ``outfile_prefix``, ``backend_args``, ``collect_device``,
            ``prefix``, ``sort_categories``, ``use_mp_eval``).
    """

    def __init__(self, *args, **kwargs) -> None:
        _faster_methods()['init'](self, *args, **kwargs)

    def compute_metrics(self, results: list) -> Dict[str, float]:
        """Compute the metrics as ``CocoMetric`` does, with
        faster-coco-eval.

        Args:
            results (list): The processed results of each batch.

        Returns:
            Dict[str, float]: ``CocoMetric``'s metric names and values
            (empty when there is no detection at all).
        """
        return _faster_methods()['compute_metrics'](self, results)
