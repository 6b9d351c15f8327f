# Copyright (c) robustdet contributors. All rights reserved.
"""The batch sampler of the pass machinery: batches of one pass at a time,
split over the ranks as the whole batches of one process."""
from typing import Iterator, List, Optional

from mmengine.dist import get_dist_info


def batch_runs(num_images: int, batch_size: int,
               world_size: int) -> List[List[List[int]]]:
    """The batches one process makes (consecutive images, ``batch_size``
    each, the last one shorter), split into consecutive runs as even as
    whole batches allow (rank r before rank r + 1).

    Args:
        num_images (int): Images.
        batch_size (int): Images per batch.
        world_size (int): Ranks.

    Returns:
        list[list[list[int]]]: Per rank, its batches of image indices.
    """
    batches = [
        list(range(start, min(start + batch_size, num_images)))
        for start in range(0, num_images, batch_size)
    ]
    runs, start = [], 0
    for rank in range(world_size):
        count = len(batches) // world_size + int(
            rank < len(batches) % world_size)
        runs.append(batches[start:start + count])
        start += count
    return runs


class PassBatchSampler:
    """Batches of a :class:`GridDataset`, pass after pass, never mixed.

    Within a pass each rank takes a consecutive run of the batches one
    process would make (consecutive images, ``batch_size`` each, the last
    one shorter; the runs as even as whole batches allow, rank r before
    rank r + 1). So every image is scored in the batch it has on one
    process, and the numbers do not depend on the world size even where a
    batch's padding changes a detector's output (mmdet pads the images of
    a batch to its largest). The ranks' shares differ by up to a batch;
    the evaluation pads the shorter ones and puts the samples back into
    the dataset's order (:mod:`robustdet.engine.runner.ordered_eval`). A
    share is consecutive images, so with clip corruptions each rank
    corrupts only the clips of its share (a clip at a share's edge on
    both ranks).

    Args:
        num_passes (int): Number of passes.
        num_images (int): Images per pass.
        batch_size (int): Images per batch.
        rank (int, optional): Defaults to the process's rank.
        world_size (int, optional): Defaults to the world size.
    """

    def __init__(self,
                 num_passes: int,
                 num_images: int,
                 batch_size: int,
                 rank: Optional[int] = None,
                 world_size: Optional[int] = None) -> None:
        if rank is None or world_size is None:
            rank, world_size = get_dist_info()
        self.num_passes = num_passes
        self.num_images = num_images
        self.batch_size = batch_size
        runs = batch_runs(num_images, batch_size, world_size)
        self.batches = runs[rank]
        self.indices = [i for batch in self.batches for i in batch]
        self.batches_per_pass = len(self.batches)
        # Each rank's number of samples per pass, for the evaluation.
        self.counts = [sum(map(len, run)) for run in runs]

    def __iter__(self) -> Iterator[List[int]]:
        for p in range(self.num_passes):
            offset = p * self.num_images
            for batch in self.batches:
                yield [offset + i for i in batch]

    def __len__(self) -> int:
        return self.num_passes * self.batches_per_pass
