# Copyright (c) robustdet contributors. All rights reserved.
"""The batch sampler of the pass machinery: batches of one pass at a time,
split over the ranks."""
import math
from typing import Iterator, List, Optional

from mmengine.dist import get_dist_info


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
