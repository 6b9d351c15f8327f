# Copyright (c) robustdet contributors. All rights reserved.
"""The CPU side of corrupting on the model's device (``--backend torch``):
decode and pack at the original resolution, nothing else."""
from typing import Any, List, Optional, Sequence, Union

import numpy as np
from mmcv.transforms import LoadAnnotations
from mmdet.datasets.transforms import PackDetInputs, Resize
from mmdet.registry import DATASETS
from mmengine.dataset import BaseDataset, Compose

from ..corruptions import CLEAN_SEVERITY, check_channel_order
from ..corruptions.grid import Cell, cell_key
from ..utils.errors import RobustDetError
from .corrupted import WrappedDataset, loading_index
from .transforms import DeferredResize, RecordImageIdentity, corruption_seed

#: What ``Resize`` must be set to for the device to resize as it does.
_DEVICE_RESIZE = dict(interpolation='bilinear', backend='cv2')
#: Metainfo key of a data sample's host inputs: ``{cell key: inputs}``
#: (:func:`attach_host_inputs`).
HOST_KEY = 'corruption_host'
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


def attach_host_inputs(sample: dict, cells: Sequence[Cell], seed: int,
                       channel_order: str = 'rgb') -> dict:
    """Compute, in this process, the CPU part of each cell's corruption
    of a packed sample's image, for the model's device to use
    (:func:`robustdet.corruptions.host.host_inputs`: the random
    fields of snow, frost, fog, glass_blur, elastic_transform and spatter,
    the JPEG codec). In a dataloader worker that work then overlaps with
    the model instead of delaying it.

    Args:
        sample (dict): ``inputs`` (a uint8 BGR ``3×H×W`` tensor) and
            ``data_samples`` (with ``img_identity`` in its metainfo).
        cells (Sequence[tuple]): The cells the image will be corrupted
            for.
        seed (int): The run's seed (the images' seeds derive from it as
            the model's preprocessor derives them).
        channel_order (str): The run's channel order.

    Returns:
        dict: The sample, its data sample's metainfo holding
        :data:`HOST_KEY`: ``{cell key: inputs}`` (when any cell has some).
    """
    # Deferred: it loads the numba kernels of the fast backend.
    from ..corruptions.host import host_inputs
    check_channel_order(channel_order)
    data_sample = sample['data_samples']
    identity = data_sample.metainfo.get('img_identity')
    host = {}
    rgb: Optional[np.ndarray] = None
    for name, severity in cells:
        if severity == CLEAN_SEVERITY:
            continue
        if rgb is None:
            rgb = np.ascontiguousarray(
                sample['inputs'].flip(0).permute(1, 2, 0).numpy())
        inputs = host_inputs(
            rgb, name, severity,
            corruption_seed(seed, identity, name, severity), channel_order)
        if inputs is not None:
            host[cell_key((name, severity))] = inputs
    if host:
        # set_field: set_metainfo would deep-copy the arrays.
        data_sample.set_field(host, HOST_KEY, field_type='metainfo')
    return sample


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

    With ``host_cells``, each sample also carries the CPU part of those
    cells' corruptions (:func:`attach_host_inputs`), computed where the
    sample is loaded (a dataloader worker).

    Args:
        dataset (dict | BaseDataset): The test dataset (config).
        lazy_init (bool): Whether to defer loading annotations.
        host_cells (Sequence[tuple], optional): The cells whose CPU part
            to compute per sample. Defaults to none.
        seed (int): The run's seed, with ``host_cells``. Defaults to 0.
        channel_order (str): The run's channel order, with
            ``host_cells``. Defaults to ``'rgb'``.
    """

    def __init__(self,
                 dataset: Union[dict, BaseDataset],
                 lazy_init: bool = False,
                 host_cells: Optional[Sequence[Cell]] = None,
                 seed: int = 0,
                 channel_order: str = 'rgb') -> None:
        for leaf in self._wrap(dataset):
            defer_pipeline(leaf.pipeline, getattr(leaf, 'data_root', None))
        self.host_cells = [tuple(c) for c in host_cells or ()]
        self.seed = seed
        self.channel_order = check_channel_order(channel_order)
        self._finish_init(lazy_init)

    def __getitem__(self, idx: int) -> Any:
        sample = self.dataset[idx]
        if self.host_cells:
            attach_host_inputs(sample, self.host_cells, self.seed,
                               self.channel_order)
        return sample

    def __repr__(self) -> str:
        return (f'{type(self).__name__}('
                f'dataset={type(self.dataset).__name__})')
