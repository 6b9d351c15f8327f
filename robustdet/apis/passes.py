# Copyright (c) robustdet contributors. All rights reserved.
"""Several cells per data pass, one dataloader for the whole grid.

``test_robust.py --cells-per-pass K`` groups the cells to evaluate into
passes of K consecutive cells. Each image is loaded once per pass and its K
variants are corrupted together (:class:`MultiCorruptedDataset`); each cell
then runs through the model on its own batch and feeds its own evaluator,
so its numbers are those of a pass of its own.

All passes come from ONE dataloader whose index space is (pass, image)
(:class:`GridDataset`) with a batch sampler that never mixes passes
(:class:`PassBatchSampler`): dataloader workers are started once for the
whole run and keep loading the next pass while a pass is being scored.

When the model's data preprocessor corrupts (backend ``'torch'``, see
:func:`robustdet.apis.robustness.device_corruption_cfgs`), each image is
decoded once per pass (:class:`DecodedOnce`) and the same batch goes
through the model once per cell, the preprocessor set to that cell.

Clip corruption cells take their samples from a
:class:`MultiVideoCorruptedDataset` (each clip corrupted once), routed
beside the image cells' dataset by :class:`CellRouter` (:func:`pass_dataset`).
"""
import copy
import functools
import math
import numbers
import time
from typing import Any, Callable, Dict, Iterator, List, Optional, Sequence

import torch
from mmdet.registry import DATASETS
from mmengine.dist import get_dist_info, get_world_size, is_main_process
from mmengine.registry import FUNCTIONS
from mmengine.runner.amp import autocast
from torch.utils.data import Dataset

from ..corruptions import CLEAN_SEVERITY
from ..datasets import MultiCorruptedDataset, MultiVideoCorruptedDataset
from ..models import find_corrupting_preprocessor
from ..utils.errors import RobustDetError
from ..video.table import is_video_corruption
from .progress import GridProgressHook
from .results import Cell, cell_key, record_cell, save_results

# Dataloader settings replaced by the pass dataset, sampler and collate.
_REPLACED = ('dataset', 'sampler', 'batch_sampler', 'batch_size', 'shuffle',
             'drop_last', 'collate_fn', 'num_batch_per_epoch')


def check_cells_per_pass(value: Any) -> int:
    """``--cells-per-pass``: an integer >= 1, else a user error."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise RobustDetError(
            f'--cells-per-pass must be an integer >= 1, got {value!r}')
    return value


def plan_passes(cells: Sequence[Cell],
                cells_per_pass: int) -> List[List[Cell]]:
    """Split cells, in order, into passes of at most ``cells_per_pass``.

    Args:
        cells (Sequence[Cell]): The cells to evaluate, in grid order.
        cells_per_pass (int): K.

    Returns:
        list[list[Cell]]: The passes.
    """
    k = check_cells_per_pass(cells_per_pass)
    cells = list(cells)
    return [cells[i:i + k] for i in range(0, len(cells), k)]


class GridDataset(Dataset):
    """Index space (pass, image): item ``p * N + i`` is ``(p, samples)``,
    the i-th image's samples for the cells of pass ``p``.

    Args:
        dataset (MultiCorruptedDataset): Built for every cell of the passes.
        passes (Sequence[Sequence[Cell]]): The passes.
        num_images (int, optional): Use only the first images (mmengine's
            ``num_batch_per_epoch``). Defaults to all.
    """

    def __init__(self,
                 dataset: Any,
                 passes: Sequence[Sequence[Cell]],
                 num_images: Optional[int] = None) -> None:
        self.dataset = dataset
        self.passes = [list(p) for p in passes]
        self.num_images = len(dataset) if num_images is None else min(
            num_images, len(dataset))

    @property
    def metainfo(self) -> dict:
        return self.dataset.metainfo

    def __len__(self) -> int:
        return len(self.passes) * self.num_images

    def __getitem__(self, idx: int) -> tuple:
        p, i = divmod(idx, self.num_images)
        return p, self.dataset.get(i, self.passes[p])


class DecodedOnce:
    """Stands in for a :class:`MultiCorruptedDataset` when the model's data
    preprocessor corrupts: the ``idx``-th image's one decoded sample
    serves every cell of a pass.

    Args:
        dataset (dict | Dataset): The test dataset (config), a
            :class:`~robustdet.datasets.DeferredCorruptionDataset`.
    """

    def __init__(self, dataset: Any) -> None:
        if isinstance(dataset, dict):
            dataset = DATASETS.build(dataset)
        self.dataset = dataset

    @property
    def metainfo(self) -> dict:
        return copy.deepcopy(self.dataset.metainfo)

    def __len__(self) -> int:
        return len(self.dataset)

    def get(self, idx: int, cells: Optional[Sequence[Cell]] = None) -> list:
        """``[sample]``: one sample for all the cells."""
        return [self.dataset[idx]]


class CellRouter:
    """Samples of image cells from one dataset and of video cells from
    another: ``get(idx, cells)`` asks each for its cells and returns the
    samples in the order of ``cells``.

    Args:
        parts (Sequence[tuple]): ``(dataset, cells)`` pairs; a dataset has
            ``get(idx, cells)``, the cells are those it serves.
    """

    def __init__(self, parts: Sequence[tuple]) -> None:
        self.parts = [(d, set(map(tuple, cells))) for d, cells in parts]

    @property
    def metainfo(self) -> dict:
        return self.parts[0][0].metainfo

    def __len__(self) -> int:
        return len(self.parts[0][0])

    def get(self, idx: int, cells: Sequence[Cell]) -> list:
        """The ``idx``-th image's samples, one per cell, in order."""
        out: List[Any] = [None] * len(cells)
        for dataset, own in self.parts:
            mine = [j for j, c in enumerate(cells) if tuple(c) in own]
            if mine:
                samples = dataset.get(idx, [cells[j] for j in mine])
                for j, sample in zip(mine, samples):
                    out[j] = sample
        return out


def pass_dataset(dl_cfg: Dict[str, Any], cells: Sequence[Cell],
                 job: Any) -> Any:
    """The dataset that gives every cell of a run its samples: a
    :class:`MultiCorruptedDataset` for image cells, a
    :class:`MultiVideoCorruptedDataset` for clip corruptions (the clean
    cell goes with the image cells when there are any), routed by
    :class:`CellRouter` when the run has both."""
    video = [c for c in cells if is_video_corruption(c[0])]
    image = [c for c in cells if c not in video]
    if video and all(c[1] == CLEAN_SEVERITY for c in image):
        video, image = image + video, []
    parts = []
    if image:
        parts.append((MultiCorruptedDataset(
            dataset=copy.deepcopy(dl_cfg['dataset']),
            cells=image,
            seed=job.seed,
            backend=job.backend,
            channel_order=job.channel_order), image))
    if video:
        parts.append((MultiVideoCorruptedDataset(
            dataset=copy.deepcopy(dl_cfg['dataset']),
            cells=video,
            **job.video_dataset_args()), video))
    return parts[0][0] if len(parts) == 1 else CellRouter(parts)


class PassBatchSampler:
    """Batches of a :class:`GridDataset`, pass after pass, never mixed.

    Within a pass the images are split over the ranks as mmengine's
    ``DefaultSampler(shuffle=False)`` does: rank r takes images r,
    r + world size, ... With ``round_up`` the first images are repeated so
    that every rank has as many, so every rank has the same number of
    batches per pass; the evaluators' ``collect_results`` interleaves the
    ranks' results back into the dataset order and drops the repeats.

    With ``contiguous`` (runs with clip corruptions) rank r takes a block
    of consecutive images instead, as many as the interleaved split gives
    it, padded with its own last image. Consecutive frames share their
    clips, so each rank corrupts only the clips of its block (a clip at a
    block's edge on both ranks) rather than nearly every clip. The ranks'
    results then reach the metrics in another order than the dataset's:
    only for metrics that score by image id (:func:`metrics_ignore_order`).

    Args:
        num_passes (int): Number of passes.
        num_images (int): Images per pass.
        batch_size (int): Images per batch.
        round_up (bool): Pad each rank's share to the same size.
        rank (int, optional): Defaults to the process's rank.
        world_size (int, optional): Defaults to the world size.
        contiguous (bool): Give each rank a block of consecutive images.
            Defaults to False.
    """

    def __init__(self,
                 num_passes: int,
                 num_images: int,
                 batch_size: int,
                 round_up: bool = True,
                 rank: Optional[int] = None,
                 world_size: Optional[int] = None,
                 contiguous: bool = False) -> None:
        if rank is None or world_size is None:
            rank, world_size = get_dist_info()
        self.num_passes = num_passes
        self.num_images = num_images
        self.batch_size = batch_size
        if contiguous:
            self.indices = _block(num_images, rank, world_size, round_up)
        elif round_up:
            total = math.ceil(num_images / world_size) * world_size
            indices = (list(range(num_images)) *
                       (total // max(num_images, 1) + 1))[:total]
            self.indices = indices[rank::world_size]
        else:
            self.indices = list(range(num_images))[rank::world_size]
        self.batches_per_pass = math.ceil(len(self.indices) / batch_size)

    def __iter__(self) -> Iterator[List[int]]:
        for p in range(self.num_passes):
            offset = p * self.num_images
            for b in range(0, len(self.indices), self.batch_size):
                yield [offset + i for i in self.indices[b:b + self.batch_size]]

    def __len__(self) -> int:
        return self.num_passes * self.batches_per_pass


def _block(num_images: int, rank: int, world_size: int,
           round_up: bool) -> List[int]:
    """Rank ``rank``'s block of consecutive images: as many as the
    interleaved split gives it (ranks before ``num_images % world_size``
    one more), padded with its last image (image 0 for an empty block) to
    the largest share with ``round_up``."""
    sizes = [(num_images - r + world_size - 1) // world_size
             for r in range(world_size)]
    start = sum(sizes[:rank])
    block = list(range(start, start + sizes[rank]))
    if round_up:
        block += [block[-1] if block else 0] * (sizes[0] - len(block))
    return block


class PassCollate:
    """Collate a batch of ``(pass, samples)`` into one batch per cell with
    the config's own collate function.

    Args:
        collate_fn (Callable): What the config collates with.
    """

    def __init__(self, collate_fn: Callable) -> None:
        self.collate_fn = collate_fn

    def __call__(self, items: Sequence[tuple]) -> Dict[str, Any]:
        passes = {p for p, _ in items}
        assert len(passes) == 1, f'a batch mixes passes {passes}'
        num_cells = len(items[0][1])
        return dict(
            pass_index=items[0][0],
            cells=[
                self.collate_fn([samples[j] for _, samples in items])
                for j in range(num_cells)
            ])


def resolve_collate_fn(cfg: Any = None) -> Callable:
    """The collate function a dataloader config names, as mmengine's
    ``Runner.build_dataloader`` resolves it (default ``pseudo_collate``)."""
    if cfg is None:
        cfg = dict(type='pseudo_collate')
    if callable(cfg):
        return cfg
    cfg = dict(cfg)
    fn = cfg.pop('type')
    if isinstance(fn, str):
        fn = FUNCTIONS.get(fn)
    return functools.partial(fn, **cfg)


def build_grid_dataloader(runner: Any,
                          dl_cfg: Dict[str, Any],
                          dataset: MultiCorruptedDataset,
                          passes: Sequence[Sequence[Cell]],
                          clip_blocks: bool = True):
    """One dataloader over every pass.

    Keeps the config's dataloader settings (``num_workers``,
    ``persistent_workers``, ``pin_memory``, ``prefetch_factor``, worker
    seeding through the runner, ``num_batch_per_epoch``); replaces the
    dataset, sampler and collate function by their pass-aware versions.
    The config's sampler (and batch sampler) is not built: images are read
    in order (its ``round_up`` is honoured).

    Args:
        runner (Runner): Builds the dataloader (worker seeding).
        dl_cfg (dict): The test dataloader config.
        dataset (MultiCorruptedDataset): The images, for every cell.
        passes (Sequence[Sequence[Cell]]): The passes.
        clip_blocks (bool): With clip cells, give each rank a block of
            consecutive frames (``PassBatchSampler(contiguous=True)``);
            only where the metrics do not depend on the order of the
            samples (:func:`metrics_ignore_order`). Defaults to True.

    Returns:
        torch.utils.data.DataLoader: Over a :class:`GridDataset` with a
        :class:`PassBatchSampler`; ``dataset.num_images`` images per pass.
    """
    sampler = dl_cfg.get('sampler')
    round_up = sampler.get('round_up', True) if isinstance(sampler,
                                                           dict) else True
    batch_size = dl_cfg.get('batch_size', 1)
    num_images = None
    if dl_cfg.get('num_batch_per_epoch') is not None:
        num_images = dl_cfg['num_batch_per_epoch'] * batch_size * \
            get_world_size()
    grid = GridDataset(dataset, passes, num_images)
    clips = [d for d, _ in getattr(dataset, 'parts', [(dataset, None)])
             if isinstance(d, MultiVideoCorruptedDataset)]
    sampler = PassBatchSampler(
        len(passes),
        grid.num_images,
        batch_size,
        round_up,
        contiguous=bool(clips) and clip_blocks)
    for clip_dataset in clips:
        # Before the workers copy the dataset: a clip is deleted once the
        # items of this rank that use it are served.
        clip_dataset.serve(sampler.indices)
    cfg = {k: v for k, v in dl_cfg.items() if k not in _REPLACED}
    cfg.update(
        dataset=grid,
        sampler=None,
        batch_sampler=sampler,
        collate_fn=PassCollate(resolve_collate_fn(dl_cfg.get('collate_fn'))))
    return runner.build_dataloader(
        cfg,
        seed=runner.seed,
        diff_rank_seed=runner._randomness_cfg.get('diff_rank_seed', False))


# Metrics that score by image id: the order in which the ranks' samples
# reach them changes no number. Not mmdet's VOCMetric (its sort of the
# detections of all images is not stable, so equal scores on two images
# may swap) nor CocoMetric's 'proposal_fast' (it pairs results and image
# ids by position).
_ORDER_FREE_METRICS = ('CocoMetric', 'FastCocoMetric', 'PMKMetric')


def metrics_ignore_order(evaluator_cfg: Any) -> bool:
    """Whether every metric of a test evaluator config scores by image
    id, so that the order of the samples changes no number.

    Args:
        evaluator_cfg (dict | list): The test evaluator config.

    Returns:
        bool: True for :data:`_ORDER_FREE_METRICS` (CocoMetric without
        ``'proposal_fast'``) only.
    """
    if isinstance(evaluator_cfg, dict) and 'metrics' in evaluator_cfg:
        evaluator_cfg = evaluator_cfg['metrics']
    metrics = evaluator_cfg if isinstance(evaluator_cfg,
                                          (list, tuple)) else [evaluator_cfg]
    for metric in metrics:
        kind = metric.get('type')
        name = kind if isinstance(kind, str) else getattr(kind, '__name__', '')
        if name.split('.')[-1] not in _ORDER_FREE_METRICS:
            return False
        wanted = metric.get('metric', 'bbox')
        if 'proposal_fast' in ([wanted] if isinstance(wanted, str) else
                               list(wanted)):
            return False
    return True


def _real_metrics(metrics: Dict[str, Any]) -> Dict[str, float]:
    return {
        k: v
        for k, v in metrics.items()
        if isinstance(v, numbers.Real) and not isinstance(v, bool)
    }


class PassRunner:
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

    Args:
        runner (Runner): The runner (model loaded, hooks registered).
        job (RobustnessJob): The job (seed, backend, results file).
        dl_cfg (dict): The test dataloader config.
        test_cfg (dict): The test loop config (``fp16`` is honoured).
        evaluator_cfg (dict | list): The test evaluator config; one
            evaluator is built per cell of a pass and reused by the same
            position in later passes (each ``evaluate`` clears it).
        progress (GridProgressHook): The registered progress hook.
        results (dict): The results to record into.
    """

    def __init__(self, runner: Any, job: Any, dl_cfg: Dict[str, Any],
                 test_cfg: Dict[str, Any], evaluator_cfg: Any,
                 progress: GridProgressHook, results: Dict[str, Any]):
        self.runner = runner
        self.job = job
        self.dl_cfg = dl_cfg
        self.fp16 = bool(test_cfg.get('fp16', False))
        self.evaluator_cfg = evaluator_cfg
        self.progress = progress
        self.results = results
        self.device_corrupter = find_corrupting_preprocessor(runner.model)

    def run(self, passes: Sequence[Sequence[Cell]]) -> None:
        """Evaluate every pass, recording after each."""
        passes = [list(p) for p in passes]
        if self.device_corrupter is not None:
            dataset = DecodedOnce(copy.deepcopy(self.dl_cfg['dataset']))
        else:
            dataset = pass_dataset(self.dl_cfg,
                                   [c for p in passes for c in p], self.job)
        loader = build_grid_dataloader(
            self.runner,
            self.dl_cfg,
            dataset,
            passes,
            clip_blocks=metrics_ignore_order(self.evaluator_cfg))
        meta = dataset.metainfo
        evaluators = self._evaluators(max(len(p) for p in passes), meta)
        # Without an ann_file, CocoMetric keeps the ground truth of its
        # first evaluation: fresh evaluators for every pass then.
        fresh = self.job.ground_truth == 'pipeline'
        self.runner.visualizer.dataset_meta = meta
        batches = iter(loader)
        try:
            for index, cells in enumerate(passes):
                if fresh and index:
                    evaluators = self._evaluators(len(evaluators), meta)
                self._run_pass(index, cells, batches,
                               loader.batch_sampler.batches_per_pass,
                               loader.dataset.num_images, evaluators)
        finally:
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
        return batches[0] if j == num_cells - 1 else copy.deepcopy(
            batches[0])

    @torch.no_grad()
    def _run_pass(self, index: int, cells: List[Cell], batches: Iterator,
                  num_batches: int, num_images: int,
                  evaluators: List[Any]) -> None:
        runner = self.runner
        self.progress.start_pass(cells, num_batches)
        start = time.perf_counter()
        busy = [0.0] * len(cells)
        runner.call_hook('before_test')
        runner.call_hook('before_test_epoch')
        runner.model.eval()
        for b in range(num_batches):
            batch = next(batches)
            assert batch['pass_index'] == index, (batch['pass_index'], index)
            for j, cell in enumerate(cells):
                tick = time.perf_counter()
                data = self._cell_batch(batch['cells'], j, len(cells))
                if self.device_corrupter is not None:
                    self.device_corrupter.set_cell(*cell)
                self.progress.set_cell(cell)
                runner.call_hook('before_test_iter', batch_idx=b,
                                 data_batch=data)
                with autocast(enabled=self.fp16):
                    outputs = runner.model.test_step(data)
                evaluators[j].process(data_samples=outputs, data_batch=data)
                runner.call_hook('after_test_iter', batch_idx=b,
                                 data_batch=data, outputs=outputs)
                busy[j] += time.perf_counter() - tick
        all_metrics = []
        for j in range(len(cells)):
            tick = time.perf_counter()
            all_metrics.append(evaluators[j].evaluate(num_images))
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
        shared = max(time.perf_counter() - start - sum(busy), 0.0)
        seconds = [t + shared / len(cells) for t in busy]
        metrics = [_real_metrics(m) for m in all_metrics]
        if is_main_process():
            for cell, m, s in zip(cells, metrics, seconds):
                record_cell(self.results, cell, m, s,
                            num_predictions=self.progress.predictions[cell])
            save_results(self.results, self.job.results_file)
        for cell, m, s in zip(cells, metrics, seconds):
            runner.logger.info(
                f'[robustness] {cell_key(cell)} done in {s:.1f}s: ' +
                ', '.join(f'{k}={v:.4f}' for k, v in m.items()))
