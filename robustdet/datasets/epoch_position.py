# Copyright (c) robustdet contributors. All rights reserved.
"""The outermost dataset of a training set with :class:`RandomCorrupt`:
it tells the pipeline which epoch it is and where in the epoch's dataset
each sample sits."""
from typing import Any, Union

import torch
from mmdet.registry import DATASETS
from mmengine.dataset import BaseDataset

from ..utils.errors import RobustDetError
from .corrupted import WrappedDataset
from .transforms.sample_context import SampleContext, loading

# Slots of the state shared with the dataloader workers.
_EPOCH, _SEED, _SET = 0, 1, 2


@DATASETS.register_module()
class EpochPositionDataset(WrappedDataset):
    """Pass a training set through unchanged, telling its pipeline the
    epoch, the run's seed and each sample's position
    (:mod:`~robustdet.datasets.transforms.sample_context`).

    :class:`~robustdet.datasets.RandomCorrupt` draws a sample's
    corruption from (seed, epoch, position, image): the position is the
    index this dataset is asked for, so the 8 repeats of an image in a
    ``RepeatDataset`` x8, its clean and stylized copies in a
    ``ConcatDataset``, and two images with the same file name all draw
    afresh, while the draws stay independent of the number of workers,
    the batch size, persistent workers and a resume (the sampler's
    indices are the dataset's positions, whatever the order).

    It must be the outermost dataset (the dataloader's own);
    :func:`~robustdet.datasets.transforms.random_corrupt.
    with_random_corrupt` wraps a config's training set in it, and
    :class:`~robustdet.engine.RandomCorruptHook` sets the epoch and the
    seed before every epoch. The epoch and seed live in shared memory, so
    dataloader workers started by fork, spawn or forkserver, persistent
    or not, read what the hook writes in the main process.

    Args:
        dataset (dict | BaseDataset): The training set (a config, or
            built).
        lazy_init (bool): Defer loading the annotations. Defaults to
            False.
    """

    def __init__(self, dataset: Union[dict, BaseDataset],
                 lazy_init: bool = False) -> None:
        if isinstance(dataset, dict):
            dataset = DATASETS.build(dataset)
        if not hasattr(dataset, '__getitem__') or not hasattr(
                dataset, 'metainfo'):
            raise RobustDetError(
                'EpochPositionDataset wraps a dataset (a config or an '
                f'mmengine dataset), got {type(dataset).__name__}')
        self.dataset = dataset
        self._shared = torch.zeros(3, dtype=torch.int64).share_memory_()
        self._finish_init(lazy_init)

    def set_epoch(self, epoch: int, seed: int) -> None:
        """Set the epoch and the run's seed, for this process and its
        dataloader workers (:class:`~robustdet.engine.RandomCorruptHook`
        does, before every epoch)."""
        for name, value in (('epoch', epoch), ('seed', seed)):
            if isinstance(value, bool) or not isinstance(
                    value, int) or not 0 <= value < 2**32:
                raise RobustDetError(
                    f'{name} must be an integer in [0, 2**32), got {value!r}')
        state = self._shared.numpy()
        state[_EPOCH], state[_SEED], state[_SET] = epoch, seed, 1

    @property
    def epoch(self) -> int:
        """The epoch set last (0 before any)."""
        return int(self._shared[_EPOCH])

    @property
    def seed(self) -> int:
        """The run's seed set last (0 before any)."""
        return int(self._shared[_SEED])

    def __getitem__(self, idx: int) -> Any:
        state = self._shared.numpy()
        sample = SampleContext(
            epoch=int(state[_EPOCH]), seed=int(state[_SEED]),
            known=bool(state[_SET]), position=int(idx))
        with loading(sample):
            return self.dataset[idx]
