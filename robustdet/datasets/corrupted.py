# Copyright (c) robustdet contributors. All rights reserved.
import copy
from typing import Any, Iterator, Optional, Union

from mmcv.transforms import LoadImageFromFile
from mmdet.registry import DATASETS, TRANSFORMS
from mmengine.dataset import BaseDataset, Compose

from ..corruptions import DEFAULT_BACKEND
from ..utils.errors import RobustDetError
from .transforms import CorruptImage


def iter_leaf_datasets(dataset: Any) -> Iterator[Any]:
    """Yield the datasets that own a pipeline, looking through wrappers
    (``ConcatDataset``, ``RepeatDataset``, ``ClassBalancedDataset``...)."""
    if isinstance(getattr(dataset, 'pipeline', None), Compose):
        yield dataset
    elif hasattr(dataset, 'datasets'):
        for d in dataset.datasets:
            yield from iter_leaf_datasets(d)
    elif hasattr(dataset, 'dataset'):
        yield from iter_leaf_datasets(dataset.dataset)


def _is_image_loader(transform: Any) -> bool:
    return isinstance(transform, LoadImageFromFile) or type(
        transform).__name__.startswith('LoadImage')


def loading_index(pipeline: Compose) -> int:
    """The index of the image loading step of a built pipeline.

    The loading step is found by type (mmcv's ``LoadImageFromFile`` and its
    subclasses, or any ``LoadImage*`` transform), not by position.

    Args:
        pipeline (Compose): A built pipeline.

    Returns:
        int: The index of the first image loading transform.

    Raises:
        RobustDetError: The pipeline already corrupts images, or it has no
            image loading step.
    """
    if getattr(pipeline, 'corrupts_images', False) or any(
            isinstance(t, CorruptImage) for t in pipeline.transforms):
        raise RobustDetError(
            'the dataset pipeline already corrupts images; build a fresh '
            'dataset for each corruption')
    for i, t in enumerate(pipeline.transforms):
        if _is_image_loader(t):
            return i
    names = [type(t).__name__ for t in pipeline.transforms]
    raise RobustDetError(
        'cannot corrupt images: the dataset pipeline has no image loading '
        f'step (LoadImageFromFile or a subclass); it is {names}')


def insert_after_loading(pipeline: Compose, transform: Any) -> int:
    """Insert a transform right after the image loading step (see
    :func:`loading_index`).

    Args:
        pipeline (Compose): A built pipeline.
        transform: The transform to insert.

    Returns:
        int: The index the transform was inserted at.

    Raises:
        RobustDetError: The pipeline has no image loading step, or already
            corrupts images.
    """
    index = loading_index(pipeline) + 1
    pipeline.transforms.insert(index, transform)
    return index


class WrappedDataset:
    """What the corruption wrappers share: a wrapped ``dataset`` whose
    metainfo, annotations and length they pass through."""
    dataset: BaseDataset
    _fully_initialized: bool

    def _wrap(self, dataset: Union[dict, BaseDataset]) -> list:
        """Build ``dataset`` if needed, keep it and return its leaves."""
        if isinstance(dataset, dict):
            dataset = DATASETS.build(dataset)
        self.dataset = dataset
        leaves = list(iter_leaf_datasets(dataset))
        if not leaves:
            raise RobustDetError(
                f'cannot corrupt {type(dataset).__name__}: it has no '
                'pipeline')
        return leaves

    def _finish_init(self, lazy_init: bool) -> None:
        self._fully_initialized = False
        if not lazy_init:
            self.full_init()

    def __getitem__(self, idx: int) -> Any:
        return self.dataset[idx]

    @property
    def metainfo(self) -> dict:
        """The wrapped dataset's metainfo."""
        return copy.deepcopy(self.dataset.metainfo)

    def full_init(self) -> None:
        """Fully initialize the wrapped dataset."""
        if self._fully_initialized:
            return
        self.dataset.full_init()
        self._fully_initialized = True

    def get_data_info(self, idx: int) -> dict:
        """Annotation of the ``idx``-th image (unchanged)."""
        return self.dataset.get_data_info(idx)

    def __len__(self) -> int:
        return len(self.dataset)


@DATASETS.register_module()
class CorruptedDataset(WrappedDataset):
    """Turn any mmdet detection dataset into its -C version.

    The wrapped dataset keeps its annotations, metainfo and evaluation;
    its pipeline gets a :class:`CorruptImage` step right after the image
    is loaded (before any resizing), as in PASCAL-C / COCO-C /
    Cityscapes-C (Michaelis et al. 2019).

    Example config::

        test_dataloader = dict(dataset=dict(
            type='CorruptedDataset', corruption='fog', severity=3,
            dataset=dict(type='CocoDataset', ...)))

    Args:
        dataset (dict | BaseDataset): The dataset (config) to corrupt.
        corruption (str): Corruption name.
        severity (int): 1-5; 0 leaves the images unchanged.
        seed (int): Run seed; per-image seeds are derived from it.
        backend (str): Corruption backend.
        channel_order (str): ``'rgb'`` or ``'bgr'``, see
            :class:`CorruptImage`.
        lazy_init (bool): Whether to defer loading annotations.
        region (str): ``'all'``, ``'objects'`` or ``'background'``, see
            :class:`CorruptImage`.
        depth (dict, optional): Where each image's depth map is, for the
            corruptions that need one (a
            :class:`~robustdet.datasets.depth.DepthSource` config).
    """

    def __init__(self,
                 dataset: Union[dict, BaseDataset],
                 corruption: str,
                 severity: int,
                 seed: int = 0,
                 backend: str = DEFAULT_BACKEND,
                 channel_order: str = 'rgb',
                 lazy_init: bool = False,
                 region: str = 'all',
                 depth: Optional[dict] = None) -> None:
        self.corruption = corruption
        self.severity = severity
        self.seed = seed
        self.backend = backend
        self.channel_order = channel_order
        self.region = region
        self.depth = depth
        for leaf in self._wrap(dataset):
            insert_after_loading(
                leaf.pipeline,
                TRANSFORMS.build(
                    dict(
                        type=CorruptImage.__name__,
                        corruption=corruption,
                        severity=severity,
                        seed=seed,
                        backend=backend,
                        channel_order=channel_order,
                        path_root=getattr(leaf, 'data_root', None),
                        region=region,
                        depth=depth)))
        self._finish_init(lazy_init)

    def __repr__(self) -> str:
        return (f'{type(self).__name__}(corruption={self.corruption!r}, '
                f'severity={self.severity}, seed={self.seed}, '
                f'backend={self.backend!r}, '
                f'channel_order={self.channel_order!r}, '
                f'region={self.region!r}, '
                f'dataset={type(self.dataset).__name__})')
