# Copyright (c) robustdet contributors. All rights reserved.
"""The hook that keeps :class:`~robustdet.datasets.RandomCorrupt`'s
epoch and seed current in training."""
import logging
from typing import List

from mmdet.registry import HOOKS
from mmengine.hooks import Hook
from mmengine.logging import print_log
from mmengine.runner import EpochBasedTrainLoop

from ...datasets.epoch_position import EpochPositionDataset
from ...datasets.transforms.random_corrupt import (RandomCorrupt,
                                                   iter_random_corrupts)
from ...utils.errors import RobustDetError


@HOOKS.register_module()
class RandomCorruptHook(Hook):
    """Set the epoch and the run's seed on the training set's
    :class:`~robustdet.datasets.EpochPositionDataset` before every
    training epoch; its :class:`~robustdet.datasets.RandomCorrupt`
    transforms draw from them.

    The wrapper keeps them in shared memory, which the dataloader workers
    read when they load a sample: workers forked, spawned or started by a
    forkserver, once and kept (``persistent_workers=True``) or every
    epoch, see every epoch, and a resumed run sees the epoch it resumes
    at (``runner.epoch``). mmengine's message hub would not do: a spawned
    worker starts with an empty one, a persistent one keeps the copy made
    when it started. The hook runs before the loop hands the epoch's
    first indices to the workers, and an epoch's samples are all loaded
    before the next epoch's hook runs. The run's seed is the config's
    ``randomness.seed``, or 0 where none is set (mmengine then draws a
    random seed, which would make the draws unrepeatable).

    A training set with RandomCorrupt whose outermost dataset is not an
    EpochPositionDataset is refused in one line. An iteration-based loop
    has one epoch: its passes over the data draw anew only through the
    positions (a warning says so).
    """

    priority = 'NORMAL'

    def before_train(self, runner) -> None:
        """Check the training set; say what the hook drives, and warn
        where that is nothing or the loop is iteration-based."""
        dataset = runner.train_dataloader.dataset
        count = len(self._transforms(runner))
        if not count:
            print_log(
                'RandomCorruptHook: the training set has no RandomCorrupt '
                'transform', logger='current', level=logging.WARNING)
            return
        if not isinstance(dataset, EpochPositionDataset):
            raise RobustDetError(
                f'RandomCorruptHook: the training set is a '
                f'{type(dataset).__name__}, not an EpochPositionDataset: '
                "wrap it, outermost, in dict(type='EpochPositionDataset', "
                'dataset=...) (with_random_corrupt() does), so that every '
                'sample of an epoch draws its own corruption')
        print_log(
            f'RandomCorruptHook: {count} RandomCorrupt transform(s), run '
            f'seed {run_seed(runner)}', logger='current')
        if not isinstance(runner.train_loop, EpochBasedTrainLoop):
            print_log(
                'RandomCorruptHook: the training loop is not epoch-based, '
                'so every pass over the data repeats the draws of epoch 0',
                logger='current', level=logging.WARNING)

    def before_train_epoch(self, runner) -> None:
        """Set the epoch and the run seed on the training set."""
        dataset = runner.train_dataloader.dataset
        if isinstance(dataset, EpochPositionDataset):
            dataset.set_epoch(runner.epoch, run_seed(runner))

    @staticmethod
    def _transforms(runner) -> List[RandomCorrupt]:
        return list(iter_random_corrupts(runner.train_dataloader.dataset))


def run_seed(runner) -> int:
    """The run's seed for :class:`~robustdet.datasets.RandomCorrupt`: the
    config's ``randomness.seed``, or 0 where none is set."""
    randomness = (runner.cfg.get('randomness') or {})
    seed = randomness.get('seed')
    return 0 if seed is None else int(seed)
