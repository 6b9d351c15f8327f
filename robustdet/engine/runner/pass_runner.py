# Copyright (c) robustdet contributors. All rights reserved.
"""Several cells per data pass, one dataloader for the whole grid.

``test_robust.py --cells-per-pass K`` groups the cells to evaluate into
passes of K consecutive cells. Each image is loaded once per pass and its K
variants are corrupted together (:class:`MultiCorruptedDataset`); each cell
then runs through the model on its own batch and feeds its own evaluator,
so its numbers are those of a pass of its own.

All passes come from ONE dataloader whose index space is (pass, image)
with a batch sampler that never mixes passes
(:mod:`robustdet.engine.runner.grid_dataloader`): dataloader workers are
started once for the whole run and keep loading the next pass while a pass
is being scored.

When the model's data preprocessor corrupts (backend ``'torch'``), each
image is decoded once per pass (:class:`DecodedOnce`) and the same batch
goes through the model once per cell, the preprocessor set to that cell.

Clip corruption cells take their samples from a
:class:`MultiVideoCorruptedDataset` (each clip corrupted once), routed
beside the image cells' dataset by :class:`CellRouter` (:func:`pass_dataset`).
"""
import copy
import time
from typing import Any, Callable, Dict, Iterator, List, Optional

import torch
from mmengine.runner.amp import autocast

from ...corruptions.grid import Cell, cell_key
from ...datasets import HOST_KEY
from ...models import find_corrupting_preprocessor
from ...utils.watchdog import progress_begin, progress_idle, progress_tick
from ..hooks import ShowHook
from .async_eval import EvaluationQueue, resolve_overlap
from .base import BaseGridRunner, CellResult, real_metrics
from .cell_datasets import DecodedOnce, pass_dataset
from .grid_dataloader import build_grid_dataloader
from .ordered_eval import evaluate_in_order


class PassRunner(BaseGridRunner):
    """Evaluate passes of cells from one dataloader; record every cell.

    Each pass calls the runner's ``before_test``, ``before_test_epoch``,
    then, for every batch, per cell: ``before_test_iter``, the model's
    ``test_step`` on that cell's batch, its evaluator's ``process``,
    ``after_test_iter``; then each cell's ``evaluate``,
    ``after_test_epoch`` (with the metrics of the cell, or of every cell
    prefixed ``'<cell>/'`` when the pass has several; the prefixed keys
    are removed from the message hub after the pass) and ``after_test``.
    The epoch hooks run once per pass, so hooks that pair them (e.g.
    ``EMAHook`` swapping weights) stay paired.

    When the model's data preprocessor corrupts (a
    :class:`~robustdet.models.CorruptingDataPreprocessor`, backend
    ``'torch'``), the dataloader gives one decoded batch for all the cells
    of a pass; each cell gets its own copy of it (the last the batch
    itself) and the preprocessor is set to the cell before ``test_step``.

    A cell's ``seconds`` in the results is its own measured time (model,
    evaluator, its iteration hooks) plus an equal share of the rest of the
    pass (waiting for data, which its cells load together), so the cells of
    a pass add up to the pass's wall time.

    With ``eval_overlap`` (the job's, resolved by
    :func:`~robustdet.engine.runner.async_eval.resolve_overlap`), a pass's
    cells are scored in another process while the next pass runs
    (:class:`~robustdet.engine.runner.async_eval.EvaluationQueue`); the
    numbers are the same, the pass's ``after_test_epoch`` gets no metrics
    (they reach the log and ``record`` when ready), and a cell's seconds
    include the wait for its metrics.

    Args:
        runner (Runner): The runner (model loaded).
        job (RobustnessJob): The job (seed, backend, channel order, clip
            settings, ground truth).
        dl_cfg (dict): The test dataloader config of the clean cell.
        test_cfg (dict): The test loop config (``fp16`` is honoured).
        evaluator_cfg (dict | list): The test evaluator config; one
            evaluator is built per cell of a pass and reused by the same
            position in later passes (each ``evaluate`` clears it).
        record (Callable[[list[CellResult]], None]): Takes the cells of
            each finished pass.
        show (ShowHook, optional): Draws the chosen images of every cell.
    """

    def __init__(self,
                 runner: Any,
                 job: Any,
                 dl_cfg: Dict[str, Any],
                 test_cfg: Dict[str, Any],
                 evaluator_cfg: Any,
                 record: Callable[[List[CellResult]], None],
                 show: Optional[ShowHook] = None) -> None:
        super().__init__(runner, job, dl_cfg, test_cfg, evaluator_cfg,
                         record, show)
        self.fp16 = bool(test_cfg.get('fp16', False))
        self.device_corrupter = find_corrupting_preprocessor(runner.model)
        self.overlap = resolve_overlap(
            getattr(job, 'eval_overlap', 'off'), evaluator_cfg,
            self.fresh_evaluators)
        self.queue: Optional[EvaluationQueue] = None

    def run_passes(self, passes: List[List[Cell]]) -> None:
        """Evaluate the passes from one dataloader."""
        if self.device_corrupter is not None:
            dataset = DecodedOnce(copy.deepcopy(self.dl_cfg['dataset']),
                                  seed=self.job.seed,
                                  channel_order=self.job.channel_order)
        else:
            dataset = pass_dataset(self.dl_cfg,
                                   [c for p in passes for c in p], self.job)
        loader = build_grid_dataloader(self.runner, self.dl_cfg, dataset,
                                       passes)
        meta = dataset.metainfo
        evaluators = self._evaluators(max(len(p) for p in passes), meta)
        self.runner.visualizer.dataset_meta = meta
        batches = iter(loader)
        if self.overlap:
            self.queue = EvaluationQueue(evaluators)
            self.runner.logger.info(
                '[robustness] evaluating each pass in another process '
                'while the next one runs (--eval-overlap)')
        try:
            for index, cells in enumerate(passes):
                if self.fresh_evaluators and index:
                    evaluators = self._evaluators(len(evaluators), meta)
                self._run_pass(index, cells, batches,
                               loader.batch_sampler.batches_per_pass,
                               loader.batch_sampler.counts, evaluators)
            if self.queue is not None:
                self._finish_evaluated(keep=0)
        finally:
            if self.queue is not None:
                self.queue.close()
            # The workers stop with the iterator (or, if persistent, with
            # the loader when this returns).
            del batches

    def _evaluators(self, count: int, meta: dict) -> List[Any]:
        evaluators = []
        for _ in range(count):
            evaluator = self.runner.build_evaluator(
                copy.deepcopy(self.evaluator_cfg))
            evaluator.dataset_meta = meta
            evaluators.append(evaluator)
        return evaluators

    def _cell_batch(self, batches: List[Any], j: int, num_cells: int) -> Any:
        """The j-th cell's batch: its own, or, when the model corrupts, a
        copy of the one decoded batch (the last cell takes the batch)."""
        if self.device_corrupter is None:
            return batches[j]
        if j == num_cells - 1:
            return batches[0]
        # The host inputs are shared, not copied: each cell takes its own.
        memo = {
            id(host): host
            for host in (s.get(HOST_KEY)
                         for s in batches[0].get('data_samples') or [])
            if host is not None
        }
        return copy.deepcopy(batches[0], memo)

    @torch.no_grad()
    def _run_pass(self, index: int, cells: List[Cell], batches: Iterator,
                  num_batches: int, counts: List[int],
                  evaluators: List[Any]) -> None:
        runner = self.runner
        self.progress.start_pass(cells, num_batches)
        start = time.perf_counter()
        busy = [0.0] * len(cells)
        runner.call_hook('before_test')
        runner.call_hook('before_test_epoch')
        runner.model.eval()
        progress_begin()
        for b in range(num_batches):
            batch = next(batches)
            assert batch['pass_index'] == index, (batch['pass_index'], index)
            for j, cell in enumerate(cells):
                tick = time.perf_counter()
                data = self._cell_batch(batch['cells'], j, len(cells))
                if self.device_corrupter is not None:
                    self.device_corrupter.set_cell(*cell)
                self.set_cell(cell)
                runner.call_hook('before_test_iter', batch_idx=b,
                                 data_batch=data)
                with autocast(enabled=self.fp16):
                    outputs = runner.model.test_step(data)
                evaluators[j].process(data_samples=outputs, data_batch=data)
                runner.call_hook('after_test_iter', batch_idx=b,
                                 data_batch=data, outputs=outputs)
                busy[j] += time.perf_counter() - tick
            progress_tick()
        # Evaluating, and waiting for the other ranks: no step is due.
        progress_idle()
        if self.queue is not None:
            runner.call_hook('after_test_epoch', metrics={})
            runner.call_hook('after_test')
            self.queue.submit(cells, evaluators, counts,
                              self._seconds(start, busy),
                              [self.progress.predictions[c] for c in cells])
            self._finish_evaluated()
            return
        all_metrics = []
        for j in range(len(cells)):
            tick = time.perf_counter()
            all_metrics.append(evaluate_in_order(evaluators[j], counts))
            busy[j] += time.perf_counter() - tick
        if len(cells) == 1:
            epoch_metrics = all_metrics[0]
        else:
            epoch_metrics = {
                f'{cell_key(cell)}/{k}': v
                for cell, metrics in zip(cells, all_metrics)
                for k, v in metrics.items()
            }
        runner.call_hook('after_test_epoch', metrics=epoch_metrics)
        runner.call_hook('after_test')
        if len(cells) > 1:
            # The hooks store them in the message hub as 'test/<key>'; a
            # later pass must not log this pass's cells again.
            for key in epoch_metrics:
                runner.message_hub.log_scalars.pop(f'test/{key}', None)
                runner.message_hub.pop_info(f'test/{key}')
        self.done([
            CellResult(cell, real_metrics(m), s,
                       self.progress.predictions[cell])
            for cell, m, s in zip(cells, all_metrics,
                                  self._seconds(start, busy))
        ])

    @staticmethod
    def _seconds(start: float, busy: List[float]) -> List[float]:
        """Each cell's own time plus an equal share of the rest of the
        pass so far."""
        shared = max(time.perf_counter() - start - sum(busy), 0.0)
        return [t + shared / len(busy) for t in busy]

    def _finish_evaluated(self, keep: Optional[int] = None) -> None:
        """Record the passes whose evaluation the queue waited for."""
        for pending, all_metrics in self.queue.finished(keep):
            self.done([
                CellResult(cell, real_metrics(m), s, n)
                for cell, m, s, n in zip(pending.cells, all_metrics,
                                         pending.seconds, pending.extra)
            ])
