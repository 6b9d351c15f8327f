# Copyright (c) robustdet contributors. All rights reserved.
"""Where the cells of a pass get their samples.

A job (see :class:`robustdet.apis.RobustnessJob`) gives the corruption
settings these read: ``seed``, ``backend``, ``channel_order``,
``corrupts_on_device``, ``image_dataset_args()`` (region and depth) and
``video_dataset_args()``.
"""
import copy
from typing import Any, Dict, List, Optional, Sequence

from mmdet.registry import DATASETS

from ...corruptions import CLEAN_SEVERITY
from ...corruptions.grid import Cell
from ...datasets import (MultiCorruptedDataset, MultiVideoCorruptedDataset,
                         attach_host_inputs)
from ...video.table import is_video_corruption


class DecodedOnce:
    """Stands in for a :class:`MultiCorruptedDataset` when the model's data
    preprocessor corrupts: the ``idx``-th image's one decoded sample
    serves every cell of a pass, and carries the CPU part of each cell's
    corruption (:func:`~robustdet.datasets.attach_host_inputs`), computed
    where the sample is loaded.

    Args:
        dataset (dict | Dataset): The test dataset (config), a
            :class:`~robustdet.datasets.DeferredCorruptionDataset`.
        seed (int, optional): The run's seed; None computes no CPU part
            here (the device's preprocessor then does). Defaults to None.
        channel_order (str): The run's channel order. Defaults to
            ``'rgb'``.
    """

    def __init__(self,
                 dataset: Any,
                 seed: Optional[int] = None,
                 channel_order: str = 'rgb') -> None:
        if isinstance(dataset, dict):
            dataset = DATASETS.build(dataset)
        self.dataset = dataset
        self.seed = seed
        self.channel_order = channel_order

    @property
    def metainfo(self) -> dict:
        return copy.deepcopy(self.dataset.metainfo)

    def __len__(self) -> int:
        return len(self.dataset)

    def get(self, idx: int, cells: Optional[Sequence[Cell]] = None) -> list:
        """``[sample]``: one sample for all the cells."""
        sample = self.dataset[idx]
        if self.seed is not None and cells:
            attach_host_inputs(sample, cells, self.seed, self.channel_order)
        return [sample]


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
            channel_order=job.channel_order,
            **job.image_dataset_args()), image))
    if video:
        parts.append((MultiVideoCorruptedDataset(
            dataset=copy.deepcopy(dl_cfg['dataset']),
            cells=video,
            **job.video_dataset_args()), video))
    return parts[0][0] if len(parts) == 1 else CellRouter(parts)


def cell_dataloader_cfg(dataloader_cfg: Dict[str, Any], cell: Cell,
                        job: Any) -> Dict[str, Any]:
    """The test dataloader config of a cell: the dataset wrapped in
    ``CorruptedDataset`` or, for a clip corruption, ``VideoCorruptedDataset``
    (the clean cell keeps it as it is; so does backend ``'torch'``, whose
    model corrupts)."""
    dl = copy.deepcopy(dataloader_cfg)
    name, severity = cell
    if severity != CLEAN_SEVERITY and is_video_corruption(name):
        dl['dataset'] = dict(
            type='VideoCorruptedDataset',
            dataset=dl['dataset'],
            corruption=name,
            severity=severity,
            **job.video_dataset_args())
    elif severity != CLEAN_SEVERITY and job.corrupts_on_device:
        # The model corrupts; the workers compute the CPU part.
        dl['dataset'] = dict(dl['dataset'], host_cells=[list(cell)],
                             seed=job.seed, channel_order=job.channel_order)
    elif severity != CLEAN_SEVERITY:
        dl['dataset'] = dict(
            type='CorruptedDataset',
            dataset=dl['dataset'],
            corruption=name,
            severity=severity,
            seed=job.seed,
            backend=job.backend,
            channel_order=job.channel_order,
            **job.image_dataset_args())
    return dl
