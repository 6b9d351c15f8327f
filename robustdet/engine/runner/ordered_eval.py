# Copyright (c) robustdet contributors. All rights reserved.
"""Evaluation of a pass whose ranks scored whole batches of one process
(:class:`~robustdet.engine.samplers.PassBatchSampler`): the ranks' samples
gathered back into the dataset's order, so every metric sees what it sees
on one process.

mmengine's ``collect_results`` interleaves the ranks' results sample by
sample (``DefaultSampler``'s split) and drops what is beyond the dataset's
size. Here each rank holds a consecutive share, the shares of unequal
length; each is padded to the longest with a placeholder
(:data:`PADDING`) before the same ``collect_results`` (so
``collect_device`` 'cpu' and 'gpu' work as in mmengine), and rank 0
takes every rank's real samples in rank order.
"""
from typing import Any, Dict, List, Optional, Sequence

from mmengine.dist import (broadcast_object_list, collect_results,
                           get_dist_info, is_main_process)
from mmengine.structures import BaseDataElement
from torch import Tensor

from ...utils.errors import RobustDetError

# What a shorter share is padded with before the gathering (dropped after).
PADDING = ('robustdet: padding', )


def on_cpu(data: Any) -> Any:
    """``data`` with its tensors and data elements on the CPU, as
    mmengine's ``BaseMetric.evaluate`` hands gathered results to
    ``compute_metrics``.

    Args:
        data: Results (lists, tuples and dicts are walked).

    Returns:
        The same structure on the CPU.
    """
    if isinstance(data, (Tensor, BaseDataElement)):
        return data.to('cpu')
    if isinstance(data, list):
        return [on_cpu(d) for d in data]
    if isinstance(data, tuple):
        return tuple(on_cpu(d) for d in data)
    if isinstance(data, dict):
        return {k: on_cpu(v) for k, v in data.items()}
    return data


def gather_in_order(metric: Any, counts: Sequence[int]) -> Optional[List]:
    """A metric's results of every rank in the dataset's order (rank 0),
    None on the other ranks; a collective call.

    Args:
        metric (BaseMetric): Its ``results`` hold one entry per sample
            this rank scored; its ``collect_device`` and ``collect_dir``
            choose how they travel.
        counts (Sequence[int]): The samples of each rank
            (``PassBatchSampler.counts``).

    Returns:
        list | None: The results.

    Raises:
        RobustDetError: A metric that keeps other than one result per
            sample.
    """
    rank, world_size = get_dist_info()
    results = list(metric.results)
    if world_size == 1:
        return results
    if len(results) != counts[rank]:
        raise RobustDetError(
            f'{type(metric).__name__} kept {len(results)} results for '
            f'{counts[rank]} samples on rank {rank}: a launched run needs '
            "one result per sample (as mmengine's collect_results does)")
    most = max(counts)
    # Not None: collect_results drops None entries.
    padded = results + [PADDING] * (most - len(results))
    size = most * world_size
    if metric.collect_device == 'cpu':
        gathered = collect_results(padded, size, 'cpu',
                                   tmpdir=metric.collect_dir)
    else:
        gathered = collect_results(padded, size, metric.collect_device)
    if gathered is None:
        return None
    return [
        result for r in range(world_size)
        for result in gathered[r::world_size][:counts[r]]
    ]


def evaluate_in_order(evaluator: Any, counts: Sequence[int]) -> Dict:
    """``evaluator.evaluate`` over the samples of every rank, in the
    dataset's order (:func:`gather_in_order`); on one process mmengine's
    own ``evaluate``. A collective call.

    Args:
        evaluator (Evaluator): Its metrics processed this rank's samples.
        counts (Sequence[int]): The samples of each rank.

    Returns:
        dict: The metrics, on every rank.
    """
    if len(counts) == 1:
        return evaluator.evaluate(counts[0])
    metrics: Dict[str, Any] = {}
    for metric in evaluator.metrics:
        results = gather_in_order(metric, counts)
        values = [None]
        if is_main_process():
            found = metric.compute_metrics(on_cpu(results))
            if metric.prefix:
                found = {f'{metric.prefix}/{k}': v for k, v in found.items()}
            values = [found]
        broadcast_object_list(values)
        metric.results.clear()
        for name in values[0]:
            if name in metrics:
                raise ValueError(
                    'There are multiple evaluation results with the same '
                    f'metric name {name}. Please make sure all metrics '
                    'have different prefixes.')
        metrics.update(values[0])
    return metrics
