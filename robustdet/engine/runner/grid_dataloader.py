# Copyright (c) robustdet contributors. All rights reserved.
"""One dataloader for every pass of a grid.

Its index space is (pass, image) (:class:`GridDataset`); its batch sampler
never mixes passes (:class:`~robustdet.engine.samplers.PassBatchSampler`)
and its collate function gives one batch per cell of the pass
(:class:`PassCollate`), so dataloader workers start once for the whole run
and keep loading the next pass while a pass is being scored.
"""
import functools
from typing import Any, Callable, Dict, Optional, Sequence

from mmengine.dist import get_world_size
from mmengine.registry import FUNCTIONS
from torch.utils.data import Dataset

from ...corruptions.grid import Cell
from ...datasets import MultiVideoCorruptedDataset
from ..samplers import PassBatchSampler

# Dataloader settings replaced by the pass dataset, sampler and collate.
_REPLACED = ('dataset', 'sampler', 'batch_sampler', 'batch_size', 'shuffle',
             'drop_last', 'collate_fn', 'num_batch_per_epoch')


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
                          dataset: Any,
                          passes: Sequence[Sequence[Cell]]):
    """One dataloader over every pass.

    Keeps the config's dataloader settings (``num_workers``,
    ``persistent_workers``, ``pin_memory``, ``prefetch_factor``, worker
    seeding through the runner, ``num_batch_per_epoch``); replaces the
    dataset, sampler and collate function by their pass-aware versions.
    The config's sampler (and batch sampler) is not built: each rank reads
    its run of the batches of one process, in order
    (:class:`PassBatchSampler`).

    Args:
        runner (Runner): Builds the dataloader (worker seeding).
        dl_cfg (dict): The test dataloader config.
        dataset (MultiCorruptedDataset): The images, for every cell.
        passes (Sequence[Sequence[Cell]]): The passes.

    Returns:
        torch.utils.data.DataLoader: Over a :class:`GridDataset` with a
        :class:`PassBatchSampler`; ``dataset.num_images`` images per pass.
    """
    batch_size = dl_cfg.get('batch_size', 1)
    num_images = None
    if dl_cfg.get('num_batch_per_epoch') is not None:
        num_images = dl_cfg['num_batch_per_epoch'] * batch_size * \
            get_world_size()
    grid = GridDataset(dataset, passes, num_images)
    clips = [d for d, _ in getattr(dataset, 'parts', [(dataset, None)])
             if isinstance(d, MultiVideoCorruptedDataset)]
    sampler = PassBatchSampler(len(passes), grid.num_images, batch_size)
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
