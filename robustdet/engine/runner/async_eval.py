# Copyright (c) robustdet contributors. All rights reserved.
"""Cell evaluations off the critical path.

A COCO evaluation of 5,000 images takes tens of seconds (pycocotools) in
one CPU thread, and a grid runner waits for it after every pass while the
model idles. :class:`EvaluationQueue` instead scores a finished pass's
cells in a separate process while the next pass runs on the model:

* at the end of a pass every rank gathers each metric's results into
  the dataset's order (:func:`~.ordered_eval.gather_in_order`), and
  rank 0 hands them to its evaluation process, which runs the metric's own
  ``compute_metrics`` on a copy of the metric made when the process
  started: the numbers are those of evaluating in line;
* at most ``max_pending`` passes are in flight (and their predictions in
  memory); before a pass more would start, the oldest is waited for, its
  metrics are broadcast to every rank (each rank waits there, as it waits
  in mmengine's own ``evaluate``) and its cells are recorded;
* a failed evaluation stops the run on every rank with one line naming
  the cell; the evaluation process ends with the run, killed or not.

Only metrics that start from their own config and ``ann_file`` can be
copied ahead (:func:`overlap_supported`); the runner evaluates the others
in line.
"""
import collections
import contextlib
import multiprocessing
import os
import pickle
import queue
import time
from typing import Any, Deque, Dict, List, NamedTuple, Optional, Sequence

from mmengine.dist import broadcast_object_list, is_main_process

from ...corruptions.grid import Cell, cell_key
from ...utils.errors import RobustDetError
from ...utils.evaluator_cfg import metric_cfgs, metric_type
from ...utils.lifetime import die_with_parent
from .ordered_eval import gather_in_order, on_cpu

# Metrics whose compute_metrics depends only on their config, dataset_meta
# and the results given (their ground truth comes from ann_file).
SUPPORTED_METRICS = ('CocoMetric', 'FastCocoMetric')
# 'auto' overlaps on machines with at least this many cores for this
# process: with fewer, the evaluation competes with the model for them.
AUTO_MIN_CORES = 4
OVERLAP_MODES = ('auto', 'on', 'off')


def overlap_supported(evaluator_cfg: Any) -> bool:
    """Whether every metric of a test evaluator config can be scored in
    another process: :data:`SUPPORTED_METRICS` with an ``ann_file``.

    Args:
        evaluator_cfg (dict | list): The test evaluator config.

    Returns:
        bool: Whether :class:`EvaluationQueue` can take it.
    """
    metrics = metric_cfgs(evaluator_cfg)
    return bool(metrics) and all(
        metric_type(m) in SUPPORTED_METRICS and m.get('ann_file')
        for m in metrics)


def resolve_overlap(mode: str, evaluator_cfg: Any,
                    fresh_evaluators: bool) -> bool:
    """Whether a run overlaps evaluation with inference.

    Args:
        mode (str): ``'on'``, ``'off'`` or ``'auto'`` (on with at least
            :data:`AUTO_MIN_CORES` cores and a supported evaluator).
        evaluator_cfg (dict | list): The test evaluator config.
        fresh_evaluators (bool): Whether every pass needs new evaluators
            (ground truth from the pipeline): never overlapped.

    Returns:
        bool: Overlap or not.
    """
    if mode not in OVERLAP_MODES:
        raise RobustDetError(f'--eval-overlap {mode!r}: choose from '
                             f'{", ".join(OVERLAP_MODES)}')
    supported = overlap_supported(evaluator_cfg) and not fresh_evaluators
    if mode == 'on' and not supported:
        raise RobustDetError(
            '--eval-overlap on needs metrics that read their ground truth '
            f'from an ann_file ({", ".join(SUPPORTED_METRICS)}) and the '
            "config's ground truth; use --eval-overlap off")
    if mode == 'auto':
        return supported and len(os.sched_getaffinity(0)) >= AUTO_MIN_CORES
    return mode == 'on'


def _compute(metrics: List[Any], results: List[List[Any]]) -> Dict[str, Any]:
    """One cell's metrics, as mmengine's ``Evaluator.evaluate`` gives
    them, from each metric's gathered results."""
    out: Dict[str, Any] = {}
    for metric, res in zip(metrics, results):
        values = metric.compute_metrics(res)
        if metric.prefix:
            values = {f'{metric.prefix}/{k}': v for k, v in values.items()}
        for name in values:
            if name in out:
                raise ValueError(
                    f'two metrics give the result {name!r}; give them '
                    'different prefixes')
        out.update(values)
    return out


def _serve(payload: bytes, parent: int, tasks: Any, done: Any) -> None:
    """The evaluation process: copies of the metrics (by evaluator
    position), then ``(task, position, results)`` from ``tasks`` to
    ``(task, ok, metrics or message)`` on ``done`` until None; it ends
    when the run's process ``parent`` is gone (killed with ``kill -9``,
    nothing else would stop it)."""

    die_with_parent(parent)
    metrics = pickle.loads(payload)  # made by this run, not a file
    for task, position, results in iter(tasks.get, None):
        try:
            done.put((task, True, _compute(metrics[position], results)))
        except Exception as e:  # the cell's evaluation failed
            text = str(e).strip().splitlines()
            done.put((task, False, f'{type(e).__name__}'
                      f'{": " + text[0] if text else ""}'))


class _Worker:
    """The evaluation process and its two queues. Closing it never waits
    on it: queued data is dropped and the process terminated."""

    def __init__(self, payload: bytes):
        ctx = multiprocessing.get_context('spawn')
        self.tasks, self.done = ctx.Queue(), ctx.Queue()
        self.finished: Dict[int, tuple] = {}
        self.process = ctx.Process(
            target=_serve,
            args=(payload, os.getpid(), self.tasks, self.done),
            name='robustdet-evaluation',
            daemon=True)
        self.process.start()

    def submit(self, task: int, position: int, results: List[Any]) -> None:
        self.tasks.put((task, position, results))

    def result(self, task: int) -> tuple:
        """``(ok, metrics or message)`` of ``task``, waited for."""
        while task not in self.finished:
            try:
                got, ok, value = self.done.get(timeout=1.0)
            except queue.Empty:
                if not self.process.is_alive():
                    return False, ('the evaluation process stopped (exit '
                                   f'code {self.process.exitcode})')
                continue
            self.finished[got] = (ok, value)
        return self.finished.pop(task)

    def close(self) -> None:
        for q in (self.tasks, self.done):
            q.cancel_join_thread()  # do not flush to a stopped process
        with contextlib.suppress(Exception):
            self.tasks.put_nowait(None)
        self.process.join(timeout=2.0)
        if self.process.is_alive():
            self.process.terminate()
            self.process.join(timeout=5.0)


class Pending(NamedTuple):
    """A pass whose cells are being evaluated."""
    cells: List[Cell]
    tasks: Optional[List[int]]  # the evaluation process's, rank 0 only
    seconds: List[float]  # each cell's share of the pass so far
    extra: Any  # what the runner needs back with the metrics


class EvaluationQueue:
    """Evaluate passes in another process, at most ``max_pending`` at a
    time (see the module docstring).

    Args:
        evaluators (Sequence[Evaluator]): The runner's evaluators, by
            position in a pass (built, with their ``dataset_meta``).
        max_pending (int): Passes in flight before the oldest is waited
            for.
    """

    def __init__(self, evaluators: Sequence[Any], max_pending: int = 1):
        self.max_pending = max_pending
        self.pending: Deque[Pending] = collections.deque()
        self.worker: Optional[_Worker] = None
        self.submitted = 0
        if is_main_process():
            self.worker = _Worker(
                pickle.dumps([list(e.metrics) for e in evaluators]))

    def submit(self, cells: List[Cell], evaluators: Sequence[Any],
               counts: List[int], seconds: List[float],
               extra: Any = None) -> None:
        """Hand a finished pass's cells to the evaluation process (a
        collective call: every rank gathers its results).

        Args:
            cells (list[Cell]): The pass's cells.
            evaluators (Sequence[Evaluator]): Their evaluators, by
                position; their results are taken and cleared.
            counts (list[int]): The samples of each rank
                (``PassBatchSampler.counts``).
            seconds (list[float]): Each cell's time so far.
            extra: Kept with the pass, returned by :meth:`finished`.
        """
        tasks = [] if self.worker is not None else None
        for position, evaluator in enumerate(evaluators[:len(cells)]):
            gathered = []
            for metric in evaluator.metrics:
                gathered.append(gather_in_order(metric, counts))
                metric.results.clear()
            if tasks is not None:
                self.submitted += 1
                self.worker.submit(self.submitted, position,
                                   [on_cpu(r) for r in gathered])
                tasks.append(self.submitted)
        self.pending.append(Pending(list(cells), tasks, list(seconds),
                                    extra))

    def finished(self, keep: Optional[int] = None) -> List[tuple]:
        """Wait for the oldest passes until at most ``keep`` (default
        ``max_pending``) are in flight (a collective call).

        Args:
            keep (int, optional): Passes that may stay in flight.

        Returns:
            list[tuple]: ``(pending, metrics per cell)`` of each pass
            waited for, oldest first; each cell's seconds include the wait.
        """
        keep = self.max_pending if keep is None else keep
        out = []
        while len(self.pending) > keep:
            pending = self.pending.popleft()
            start = time.perf_counter()
            payload = [self._result(pending)]
            broadcast_object_list(payload)
            error = payload[0].get('error')
            if error is not None:
                self.close()
                raise RobustDetError(error)
            waited = (time.perf_counter() - start) / len(pending.cells)
            pending.seconds[:] = [s + waited for s in pending.seconds]
            out.append((pending, payload[0]['metrics']))
        return out

    def _result(self, pending: Pending) -> Dict[str, Any]:
        if pending.tasks is None:
            return {}
        metrics = []
        for cell, task in zip(pending.cells, pending.tasks):
            ok, value = self.worker.result(task)
            if not ok:
                return dict(error=f'evaluation of cell {cell_key(cell)} '
                            f'failed: {value}')
            metrics.append(value)
        return dict(metrics=metrics)

    def close(self) -> None:
        """Stop the evaluation process (cells in flight are lost)."""
        if self.worker is not None:
            self.worker.close()
            self.worker = None
