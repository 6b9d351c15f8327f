# Copyright (c) robustdet contributors. All rights reserved.
"""Which sample of which epoch a training pipeline is running on.

:class:`~robustdet.datasets.EpochPositionDataset`, the outermost dataset
of a training set, enters a :class:`SampleContext` around every sample
it loads; :class:`~robustdet.datasets.RandomCorrupt` reads it. The
context is a plain module-level value: a dataloader worker (or the main
process with no workers) loads its samples one at a time, and each
process, forked or spawned, has its own.
"""
import contextlib
from typing import Iterator, NamedTuple, Optional


class SampleContext(NamedTuple):
    """A sample being loaded.

    Attributes:
        epoch (int): The training epoch.
        seed (int): The run's seed.
        known (bool): Whether the epoch and seed were set (by
            :class:`~robustdet.engine.RandomCorruptHook`) rather than
            left at their initial 0.
        position (int): The sample's index in the outermost dataset of
            the epoch: repeats (``RepeatDataset``) and concatenated copies
            (``ConcatDataset``) of one image have different positions.
    """
    epoch: int
    seed: int
    known: bool
    position: int


_current: Optional[SampleContext] = None


def current_sample() -> Optional[SampleContext]:
    """The sample being loaded; None outside an
    :class:`~robustdet.datasets.EpochPositionDataset`."""
    return _current


@contextlib.contextmanager
def loading(sample: SampleContext) -> Iterator[SampleContext]:
    """Make ``sample`` the current one while its pipeline runs (nested
    loads, e.g. mosaic's extra images, keep the outer sample)."""
    global _current
    previous = _current
    if previous is None:
        _current = sample
    try:
        yield _current
    finally:
        _current = previous
