# Copyright (c) robustdet contributors. All rights reserved.
"""The pixels of the drawn images (``--show-dir``), as each cell's model
saw them before resizing.

The pipeline does not keep them, so they are computed again for the few
drawn images, from the image file, the same way: the dataset's own
loading step, then the cell's corruption as the test dataset applies it
(:meth:`~robustdet.datasets.MultiCellPipeline.load_and_corrupt`: the same
per-image seeds, region and depth, and for a clip corruption the frame of
its corrupted clip). With backend ``'torch'`` the model's data
preprocessor corrupts on its device; the images are corrupted there again
with its seeds (:class:`DeviceImages`).

Each source has ``load(cell, indices)``: RGB uint8 images, as
:class:`~robustdet.engine.hooks.show_hook.ShowHook` draws them.
"""
import copy
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np
import torch
from mmcv.transforms import LoadImageFromFile
from mmdet.registry import DATASETS
from mmengine.dataset import Compose

from ...corruptions import CLEAN_SEVERITY
from ...corruptions.grid import Cell
from ...datasets import CorruptImage, corruption_seed, image_identity
from ...utils.errors import RobustDetError
from .cell_datasets import pass_dataset


def locate(dataset: Any, idx: int) -> Tuple[Any, int]:
    """The dataset that owns a pipeline (looking through wrappers) and the
    index in it of item ``idx`` of ``dataset``.

    Args:
        dataset (Dataset): A dataset, possibly wrapped (robustdet's
            corruption wrappers, mmengine's ``ConcatDataset``,
            ``RepeatDataset``, ``ClassBalancedDataset``).
        idx (int): An item of ``dataset``.

    Returns:
        tuple: ``(leaf dataset, index in it)``.
    """
    while not isinstance(getattr(dataset, 'pipeline', None), Compose):
        if hasattr(dataset, 'datasets'):
            which, idx = dataset._get_ori_dataset_idx(idx)
            dataset = dataset.datasets[which]
        elif hasattr(dataset, 'dataset'):
            if hasattr(dataset, '_get_ori_dataset_idx'):
                idx = dataset._get_ori_dataset_idx(idx)
            dataset = dataset.dataset
        else:
            raise RobustDetError(
                f'cannot draw the images of {type(dataset).__name__}: it '
                'has no pipeline')
    return dataset, idx


def _is_loader(transform: Any) -> bool:
    return isinstance(transform, LoadImageFromFile) or type(
        transform).__name__.startswith('LoadImage')


def _head(pipeline: Compose) -> List[Any]:
    """The pipeline's steps up to its image loading step, and the
    :class:`CorruptImage` right after it if any."""
    transforms = list(pipeline.transforms)
    for i, transform in enumerate(transforms):
        if _is_loader(transform):
            end = i + 1
            while end < len(transforms) and isinstance(
                    transforms[end], CorruptImage):
                end += 1
            return transforms[:end]
    raise RobustDetError(
        'cannot draw the images: the dataset pipeline has no image loading '
        f'step; it is {[type(t).__name__ for t in transforms]}')


def to_rgb(img: np.ndarray) -> np.ndarray:
    """A loaded image (mmdet's BGR, or grey) as RGB uint8."""
    if img.dtype != np.uint8:
        img = np.clip(np.rint(img), 0, 255).astype(np.uint8)
    if img.ndim == 2:
        return np.stack([img] * 3, axis=-1)
    return np.ascontiguousarray(img[..., ::-1])


class LoadedImages:
    """The images of a dataset as its pipeline loads them, before any
    resizing: through the steps up to the loading one (and a
    :class:`CorruptImage` inserted after it), or, for a pipeline that
    corrupts per cell (``MultiCorruptedDataset``,
    ``(Multi)VideoCorruptedDataset``), loaded and corrupted for the cell.

    Args:
        dataset (dict | Dataset): The dataset, or its config (built on
            first use). A clip corruption dataset should be one of its
            own: its clips are computed again, in its own store.
    """

    def __init__(self, dataset: Any) -> None:
        self._dataset = dataset

    @property
    def dataset(self) -> Any:
        if isinstance(self._dataset, dict):
            self._dataset = DATASETS.build(copy.deepcopy(self._dataset))
        return self._dataset

    def sample(self, idx: int, cell: Optional[Cell] = None) -> dict:
        """Item ``idx`` as the loading step (and the cell's corruption)
        leave it: ``img``, ``img_path``, ``instances``..."""
        leaf, local = locate(self.dataset, idx)
        info = leaf.get_data_info(local)
        pipeline = leaf.pipeline
        if cell is not None and hasattr(pipeline, 'load_and_corrupt'):
            sample = pipeline.load_and_corrupt(info, tuple(cell))
        else:
            sample = info
            for transform in _head(pipeline):
                sample = transform(sample)
                if sample is None:
                    break
        if sample is None:
            raise RobustDetError(
                f'cannot draw {info.get("img_path")}: its loading step '
                'returned None')
        return sample

    def load(self, cell: Optional[Cell],
             indices: Sequence[int]) -> List[np.ndarray]:
        """The images at ``indices``, RGB uint8."""
        if hasattr(self.dataset, 'serve'):
            # A clip store: delete each clip once these frames are served.
            self.dataset.serve(list(indices))
        return [to_rgb(self.sample(i, cell)['img']) for i in indices]


class GridImages:
    """The images of a corruption grid's cells as the dataloader corrupts
    them: the datasets of :func:`~robustdet.engine.pass_dataset` over the
    cells (image and clip corruptions), built on first use.

    Args:
        dl_cfg (dict): The test dataloader config of the clean cell.
        cells (Sequence[Cell]): The cells that may be drawn.
        job (RobustnessJob): The corruption settings.
    """

    def __init__(self, dl_cfg: Dict[str, Any], cells: Sequence[Cell],
                 job: Any) -> None:
        self.dl_cfg = dl_cfg
        self.cells = [tuple(c) for c in cells]
        self.job = job
        self._parts: Optional[List[Tuple[LoadedImages, set]]] = None

    def _source(self, cell: Cell) -> LoadedImages:
        if self._parts is None:
            built = pass_dataset(self.dl_cfg, self.cells, self.job)
            parts = getattr(built, 'parts', None) or [(built, built.cells)]
            self._parts = [(LoadedImages(d), set(map(tuple, own)))
                           for d, own in parts]
        for source, own in self._parts:
            if tuple(cell) in own:
                return source
        raise KeyError(f'{cell} is not among {self.cells}')

    def load(self, cell: Cell, indices: Sequence[int]) -> List[np.ndarray]:
        """The images at ``indices`` under ``cell``, RGB uint8."""
        return self._source(cell).load(cell, indices)


class DeviceImages:
    """The images of a grid whose model corrupts (backend ``'torch'``):
    decoded by the test dataset, corrupted on the data preprocessor's
    device with its seeds and channel order, as
    :class:`~robustdet.models.CorruptingDataPreprocessor` does.

    Args:
        dataset (dict | Dataset): The test dataset (config), which only
            decodes.
        preprocessor (CorruptingDataPreprocessor): The model's.
    """

    def __init__(self, dataset: Any, preprocessor: Any) -> None:
        self.loaded = LoadedImages(dataset)
        self.preprocessor = preprocessor

    def load(self, cell: Cell, indices: Sequence[int]) -> List[np.ndarray]:
        """The images at ``indices`` under ``cell``, RGB uint8."""
        name, severity = cell
        samples = [self.loaded.sample(i) for i in indices]
        images = [to_rgb(s['img']) for s in samples]
        if severity == CLEAN_SEVERITY:
            return images
        # Deferred as in the preprocessor: it loads the numba kernels.
        from ...corruptions.torch_backend import corrupt_batch
        pre = self.preprocessor
        roots = [
            getattr(locate(self.loaded.dataset, i)[0], 'data_root', None)
            for i in indices
        ]
        seeds = [
            corruption_seed(pre.seed, image_identity(s['img_path'], root),
                            name, severity)
            for s, root in zip(samples, roots)
        ]
        out = corrupt_batch([torch.from_numpy(img) for img in images],
                            name,
                            severity,
                            seeds,
                            device=pre.corruption_device or pre.device,
                            channel_order=pre.channel_order)
        return [img.cpu().numpy() for img in out]


def grid_images(dl_cfg: Dict[str, Any], cells: Sequence[Cell], job: Any,
                preprocessor: Any = None) -> Any:
    """The image source of a grid's pictures.

    Args:
        dl_cfg (dict): The test dataloader config the cells are built
            from.
        cells (Sequence[Cell]): The cells that may be drawn.
        job (RobustnessJob): The corruption settings.
        preprocessor (CorruptingDataPreprocessor, optional): The model's,
            when it corrupts (backend ``'torch'``).

    Returns:
        GridImages | DeviceImages: With ``load(cell, indices)``.
    """
    if preprocessor is not None:
        return DeviceImages(dl_cfg['dataset'], preprocessor)
    return GridImages(dl_cfg, cells, job)
