# Copyright (c) robustdet contributors. All rights reserved.
"""A test sampler that gives each rank whole batches of one process."""
import copy
from typing import Any, Dict, Iterator, Optional

from mmdet.registry import DATA_SAMPLERS
from mmengine.dist import get_dist_info
from torch.utils.data import Sampler

from ...utils.evaluator_cfg import metrics_ignore_order
from .pass_batch_sampler import batch_runs


@DATA_SAMPLERS.register_module()
class BatchRunSampler(Sampler):
    """The test images of this rank: a consecutive run of the batches one
    process makes (:func:`batch_runs`), so every image is scored in the
    batch it has on one process. mmdet pads a batch's images to its
    largest, so with images of several sizes that is what keeps the
    numbers of one process at any world size.

    The shares differ by up to a batch and are not padded: mmengine's
    ``collect_results`` gathers them whole, in another order than the
    dataset's, so the evaluator's metrics must score by image id
    (:func:`~robustdet.utils.evaluator_cfg.metrics_ignore_order`).

    Args:
        dataset (Dataset): The test set.
        batch_size (int): The dataloader's batch size.
        seed (int, optional): Unused (the order is the dataset's).
    """

    def __init__(self,
                 dataset: Any,
                 batch_size: int,
                 seed: Optional[int] = None) -> None:
        rank, world_size = get_dist_info()
        runs = batch_runs(len(dataset), batch_size, world_size)[rank]
        self.indices = [i for batch in runs for i in batch]

    def __iter__(self) -> Iterator[int]:
        return iter(self.indices)

    def __len__(self) -> int:
        return len(self.indices)

    def set_epoch(self, epoch: int) -> None:
        """Nothing to do: the order does not change between epochs."""


def with_batch_runs(dl_cfg: Dict[str, Any],
                    evaluator_cfg: Any) -> Dict[str, Any]:
    """A test dataloader config whose sampler is :class:`BatchRunSampler`
    on a launched run (world size > 1) whose metrics score by image id
    and whose sampler reads in order (mmengine's ``DefaultSampler``
    without shuffling, or none); otherwise the config as it is.

    Args:
        dl_cfg (dict): The test dataloader config.
        evaluator_cfg (dict | list): The test evaluator config.

    Returns:
        dict: The config (a copy where changed).
    """
    sampler = dl_cfg.get('sampler') or {}
    in_order = (sampler.get('type') in (None, 'DefaultSampler',
                                        'mmengine.DefaultSampler')
                and not sampler.get('shuffle', False))
    if (get_dist_info()[1] == 1 or not in_order
            or not metrics_ignore_order(evaluator_cfg)):
        return dl_cfg
    dl_cfg = copy.deepcopy(dl_cfg)
    dl_cfg['sampler'] = dict(type='BatchRunSampler',
                             batch_size=dl_cfg.get('batch_size', 1))
    return dl_cfg
