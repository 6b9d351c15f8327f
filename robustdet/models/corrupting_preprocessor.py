# Copyright (c) robustdet contributors. All rights reserved.
"""Corrupt and resize test batches on the model's device."""
from typing import Any, List, Optional, Sequence, Tuple, Union

import torch
import torch.nn.functional as F
from mmdet.registry import MODELS
from mmengine.model import BaseDataPreprocessor
from torch import nn

from ..corruptions import (CLEAN_SEVERITY, check_channel_order, check_severity,
                           get_corruption)
from ..corruptions.grid import cell_key
from ..datasets.deferred_corrupted import HOST_KEY
from ..datasets.transforms import corruption_seed
from ..utils.errors import RobustDetError

Cell = Tuple[str, int]


@MODELS.register_module()
class CorruptingDataPreprocessor(BaseDataPreprocessor):
    """Wrap a detector's data preprocessor: corrupt each image at its
    original resolution on the device, resize it as the test pipeline's
    ``Resize`` would, then preprocess as the wrapped preprocessor does.

    The GPU path of ``tools/test_robust.py --backend torch``: the dataloader
    only decodes and packs the images at their original resolution
    (:class:`robustdet.datasets.DeferredCorruptionDataset`, whose
    :class:`~robustdet.datasets.DeferredResize` already put the resized
    ``img_shape``, ``scale_factor``... into each data sample's metainfo).
    For a batch, this preprocessor

    1. corrupts the images on the device with
       :func:`robustdet.corruptions.torch_backend.corrupt_batch`, each with
       the seed :class:`~robustdet.datasets.CorruptImage` derives for it
       (from ``seed``, the ``img_identity`` in its metainfo, the corruption
       and severity), mmdet's BGR arrays read as RGB as
       :class:`~robustdet.datasets.CorruptImage` does (``channel_order``);
    2. resizes each image to its metainfo's ``img_shape`` bilinearly
       (``align_corners=False``, rounded to uint8, as OpenCV's bilinear
       resize of mmdet's ``Resize`` does; OpenCV's fixed-point weights may
       put a pixel one grey level away);
    3. hands the batch to the wrapped preprocessor (normalisation,
       padding, stacking, ``batch_input_shape`` and ``pad_shape``).

    The cell (corruption and severity) is set with :meth:`set_cell` before
    each pass; severity 0 resizes only.

    Args:
        data_preprocessor (dict | nn.Module): The model's own data
            preprocessor (config), e.g. ``DetDataPreprocessor``.
        corruption (str): Corruption name. Defaults to ``'clean'``.
        severity (int): 1-5, or 0 for none. Defaults to 0.
        seed (int): Run seed. Defaults to 0.
        channel_order (str): ``'rgb'`` (published definitions) or
            ``'bgr'``, see :class:`~robustdet.datasets.CorruptImage`.
            Defaults to ``'rgb'``.
        device (str, optional): Where to corrupt and resize. Defaults to
            the model's device (that of this preprocessor).
    """

    def __init__(self,
                 data_preprocessor: Union[dict, nn.Module],
                 corruption: str = 'clean',
                 severity: int = CLEAN_SEVERITY,
                 seed: int = 0,
                 channel_order: str = 'rgb',
                 device: Optional[str] = None) -> None:
        super().__init__()
        if isinstance(data_preprocessor, dict):
            data_preprocessor = MODELS.build(data_preprocessor)
        self.data_preprocessor = data_preprocessor
        self.seed = seed
        self.channel_order = check_channel_order(channel_order)
        self.corruption_device = None
        if device is not None:
            from ..corruptions.torch_backend import resolve_device
            self.corruption_device = resolve_device(device)
        self.set_cell(corruption, severity)

    def set_cell(self, corruption: str, severity: int) -> None:
        """Corrupt the next batches with this corruption and severity.

        Args:
            corruption (str): Corruption name (not looked up for severity
                0).
            severity (int): 1-5, or 0 for the clean images.
        """
        severity = check_severity(severity, allow_clean=True)
        if severity != CLEAN_SEVERITY:
            corruption = get_corruption(corruption).name
        self.corruption = corruption
        self.severity = severity

    @property
    def cell(self) -> Cell:
        """The current ``(corruption, severity)``."""
        return self.corruption, self.severity

    def forward(self, data: dict, training: bool = False) -> dict:
        """Corrupt, resize, then preprocess as the wrapped preprocessor.

        Args:
            data (dict): A batch from the dataloader: ``inputs`` (uint8
                ``3×H×W`` BGR images at their original resolution) and
                ``data_samples``.
            training (bool): Must be False: this is for testing.

        Returns:
            dict: What the wrapped preprocessor returns.
        """
        if training:
            raise RobustDetError(
                'CorruptingDataPreprocessor is for testing only')
        return self.data_preprocessor(
            self.corrupt_and_resize(data), training)

    def corrupt_and_resize(self, data: dict) -> dict:
        """Steps 1 and 2: the batch with its images corrupted and resized
        on the device (a list of ``3×h×w`` tensors), data samples
        unchanged.

        Args:
            data (dict): A batch from the dataloader.

        Returns:
            dict: The batch with new ``inputs``.
        """
        inputs = data['inputs']
        if isinstance(inputs, torch.Tensor):
            inputs = list(inputs.unbind(0))
        samples = data.get('data_samples')
        if samples is None or len(samples) != len(inputs):
            raise RobustDetError(
                'CorruptingDataPreprocessor needs one data sample per image '
                '(their metainfo says how to resize it)')
        device = self.corruption_device or self.device
        # In full float32 also under test_cfg fp16 (autocast would run the
        # blurs' convolutions in half precision).
        with torch.autocast(device_type=device.type, enabled=False):
            images = [img.to(device, non_blocking=True) for img in inputs]
            if self.severity != CLEAN_SEVERITY:
                images = self._corrupt(images, samples, device)
            images = [
                resize_like_cv2(img, _img_shape(s))
                for img, s in zip(images, samples)
            ]
        return dict(data, inputs=images)

    def _corrupt(self, images: List[torch.Tensor], samples: Sequence[Any],
                 device: torch.device) -> List[torch.Tensor]:
        from ..corruptions.torch_backend import corrupt_batch
        for img in images:
            if img.dim() != 3 or img.shape[0] != 3:
                raise RobustDetError(
                    'backend torch corrupts 3-channel images; got an input '
                    f'of shape {tuple(img.shape)}')
        seeds = [
            corruption_seed(self.seed, _identity(s), self.corruption,
                            self.severity) for s in samples
        ]
        # The CPU part each dataloader worker computed for this cell
        # (attach_host_inputs), taken out of the shared dict; the images
        # without get it computed here.
        key = cell_key(self.cell)
        host = [(s.get(HOST_KEY) or {}).pop(key, None) for s in samples]
        for s in samples:
            # This cell's samples (a pass's cells share the dict) go on to
            # the model, hooks and evaluator without the other cells'.
            if HOST_KEY in s:
                delattr(s, HOST_KEY)
        # mmdet's BGR C×H×W -> RGB H×W×3 and back, as CorruptImage does.
        out = corrupt_batch([img.flip(0).permute(1, 2, 0) for img in images],
                            self.corruption,
                            self.severity,
                            seeds,
                            device=device,
                            channel_order=self.channel_order,
                            host=host)
        return [img.permute(2, 0, 1).flip(0) for img in out]

    def _sync_device(self) -> None:
        inner = self.data_preprocessor
        if isinstance(inner, BaseDataPreprocessor):
            inner._device = self._device

    def to(self, *args, **kwargs) -> nn.Module:
        """Move to a device, the wrapped preprocessor included."""
        out = super().to(*args, **kwargs)
        self._sync_device()
        return out

    def cuda(self, *args, **kwargs) -> nn.Module:
        """Move to the GPU, the wrapped preprocessor included."""
        out = super().cuda(*args, **kwargs)
        self._sync_device()
        return out

    def cpu(self, *args, **kwargs) -> nn.Module:
        """Move to the CPU, the wrapped preprocessor included."""
        out = super().cpu(*args, **kwargs)
        self._sync_device()
        return out

    def __repr__(self) -> str:
        return (f'{type(self).__name__}(cell={self.cell}, seed={self.seed}, '
                f'channel_order={self.channel_order!r}, '
                f'device={self.corruption_device}, '
                f'data_preprocessor={self.data_preprocessor!r})')


def resize_like_cv2(img: torch.Tensor, size: Sequence[int]) -> torch.Tensor:
    """Resize a ``C×H×W`` image bilinearly as OpenCV's ``INTER_LINEAR``
    (mmdet's default ``Resize``) does: pixel centres aligned
    (``align_corners=False``), no antialiasing, uint8 rounded.

    Args:
        img (torch.Tensor): The image.
        size (Sequence[int]): ``(h, w)``.

    Returns:
        torch.Tensor: The resized image (the same tensor if it has the
        size already), of the input's dtype.
    """
    size = (int(size[0]), int(size[1]))
    if tuple(img.shape[-2:]) == size:
        return img
    out = F.interpolate(
        img[None].float(), size=size, mode='bilinear',
        align_corners=False)[0]
    if img.dtype == torch.uint8:
        return out.round_().clamp_(0, 255).to(torch.uint8)
    return out.to(img.dtype)


def _img_shape(sample: Any) -> Tuple[int, int]:
    shape = sample.metainfo.get('img_shape')
    if shape is None:
        raise RobustDetError(
            "CorruptingDataPreprocessor needs 'img_shape' in each data "
            "sample's metainfo (the size the test pipeline's Resize gives "
            'the image)')
    return tuple(shape[:2])


def _identity(sample: Any) -> str:
    identity = sample.metainfo.get('img_identity')
    if identity is None:
        raise RobustDetError(
            "CorruptingDataPreprocessor needs 'img_identity' in each data "
            "sample's metainfo for the corruption seeds; wrap the test "
            'dataset in DeferredCorruptionDataset, which records it')
    return identity


def find_corrupting_preprocessor(
        model: nn.Module) -> Optional[CorruptingDataPreprocessor]:
    """The :class:`CorruptingDataPreprocessor` of a (wrapped) model, if any.

    Args:
        model (nn.Module): The model, possibly wrapped (DDP...).

    Returns:
        CorruptingDataPreprocessor | None: Its preprocessor.
    """
    for module in model.modules():
        if isinstance(module, CorruptingDataPreprocessor):
            return module
    return None
