# Copyright (c) robustdet contributors. All rights reserved.
"""The CPU side of corrupting on the model's device (``--backend torch``):
decode and pack at the original resolution, nothing else."""
from typing import Any, List, Union

from mmcv.transforms import LoadAnnotations
from mmdet.datasets.transforms import PackDetInputs, Resize
from mmdet.registry import DATASETS
from mmengine.dataset import BaseDataset, Compose

from ..utils.errors import RobustDetError
from .corrupted import WrappedDataset, loading_index
from .transforms import DeferredResize, RecordImageIdentity

#: What ``Resize`` must be set to for the device to resize as it does.
_DEVICE_RESIZE = dict(interpolation='bilinear', backend='cv2')
#: Metainfo keys the device needs in every data sample.
DEVICE_META_KEYS = ('img_identity', 'img_shape')
_SUPPORTED = ("the test pipeline may only load the image, resize it "
              "(mmdet's Resize, bilinear, cv2 backend), load annotations "
              "and pack them (PackDetInputs)")


def _transform_name(transform: Any) -> str:
    return type(transform).__name__


def defer_pipeline(pipeline: Compose, path_root: Any = None) -> None:
    """Make a built test pipeline decode and pack only, in place.

    The image loading step is followed by :class:`RecordImageIdentity`;
    mmdet's ``Resize`` becomes :class:`DeferredResize` (metainfo and
    annotations as ``Resize`` sets them, the image left at its size);
    ``PackDetInputs`` also packs :data:`DEVICE_META_KEYS`.

    Args:
        pipeline (Compose): A built test pipeline.
        path_root (str, optional): The dataset's ``data_root`` (image
            identities are relative to it).

    Raises:
        RobustDetError: The pipeline has a step that would see the image
            before it is corrupted (anything but the loading step,
            ``Resize``, ``LoadAnnotations`` and ``PackDetInputs``), a
            ``Resize`` the device cannot repeat, several resizes, no image
            loading step or no ``PackDetInputs``, or it already corrupts.
    """
    load = loading_index(pipeline)
    transforms = list(pipeline.transforms)
    out: List[Any] = []
    resized = packed = False
    for i, t in enumerate(transforms):
        step = f'{_transform_name(t)} (step {i + 1})'
        if i == load or isinstance(t, LoadAnnotations):
            out.append(t)
            if i == load:
                out.append(RecordImageIdentity(path_root=path_root))
        elif type(t) is Resize:
            bad = {
                k: getattr(t, k)
                for k, v in _DEVICE_RESIZE.items() if getattr(t, k) != v
            }
            if bad:
                raise RobustDetError(
                    'backend torch resizes on the device as cv2 resizes '
                    'bilinearly; the test pipeline has ' + step + ' with ' +
                    ', '.join(f'{k}={v!r}' for k, v in bad.items()))
            if resized:
                raise RobustDetError(
                    f'backend torch: {_SUPPORTED}; it resizes twice '
                    f'({step})')
            resized = True
            out.append(DeferredResize.from_resize(t))
        elif isinstance(t, PackDetInputs) and i > load:
            keys = tuple(t.meta_keys)
            t.meta_keys = keys + tuple(k for k in DEVICE_META_KEYS
                                       if k not in keys)
            packed = True
            out.append(t)
        else:
            raise RobustDetError(
                f'backend torch corrupts and resizes the images in the '
                f"model's data preprocessor, so {_SUPPORTED}; it has {step}, "
                'which would see the image before it is corrupted; use '
                'backend fast')
    if not packed:
        raise RobustDetError(
            f'backend torch: {_SUPPORTED}; it has no PackDetInputs after the '
            'image loading step')
    pipeline.transforms = out


@DATASETS.register_module()
class DeferredCorruptionDataset(WrappedDataset):
    """A test dataset whose pipeline only decodes and packs, for a model
    whose data preprocessor corrupts and resizes
    (:class:`robustdet.models.CorruptingDataPreprocessor`,
    ``tools/test_robust.py --backend torch``).

    Each leaf dataset's pipeline is changed by :func:`defer_pipeline`: the
    image is not corrupted and keeps its original resolution, its identity
    (for the corruption seeds) is recorded, and the data samples carry the
    metainfo the config's ``Resize`` would have set (``img_shape``,
    ``scale_factor``...), so the device resizes to ``img_shape`` and the
    model maps its predictions back to the original image as usual.

    Args:
        dataset (dict | BaseDataset): The test dataset (config).
        lazy_init (bool): Whether to defer loading annotations.
    """

    def __init__(self,
                 dataset: Union[dict, BaseDataset],
                 lazy_init: bool = False) -> None:
        for leaf in self._wrap(dataset):
            defer_pipeline(leaf.pipeline, getattr(leaf, 'data_root', None))
        self._finish_init(lazy_init)

    def __repr__(self) -> str:
        return (f'{type(self).__name__}('
                f'dataset={type(self.dataset).__name__})')
