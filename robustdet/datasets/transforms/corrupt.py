# Copyright (c) robustdet contributors. All rights reserved.
import os.path as osp
from typing import Optional

import numpy as np
from mmcv.transforms import BaseTransform
from mmdet.registry import TRANSFORMS

from ...corruptions import (DEFAULT_BACKEND, check_severity, corrupt,
                            get_corruption)
from ...utils.seeding import derive_seed


def image_identity(img_path: str, path_root: Optional[str] = None) -> str:
    """The stable identity of an image, which its corruption seeds derive
    from: its path relative to ``path_root`` with '/' separators, else (no
    root, or the image lies outside it) its file name.

    Args:
        img_path (str): The image path.
        path_root (str, optional): The dataset's ``data_root``.

    Returns:
        str: The identity.
    """
    if path_root:
        rel = osp.relpath(osp.abspath(img_path), osp.abspath(path_root))
        if not rel.startswith(osp.pardir):
            return rel.replace(osp.sep, '/')
    return osp.basename(img_path)


def corruption_seed(seed: int, identity: str, corruption: str,
                    severity: int) -> int:
    """The seed an image is corrupted with, wherever it is corrupted (by
    :class:`CorruptImage` on the CPU, or on the model's device by
    :class:`robustdet.models.CorruptingDataPreprocessor`).

    Args:
        seed (int): Run seed.
        identity (str): The image's identity, see :func:`image_identity`.
        corruption (str): Corruption name.
        severity (int): Severity.

    Returns:
        int: A seed in ``[0, 2**32)``.
    """
    return derive_seed(seed, identity, corruption, severity)


@TRANSFORMS.register_module()
class CorruptImage(BaseTransform):
    """Corrupt the loaded image, reproducibly, as in the -C benchmarks.

    Put it right after the image loading step: the benchmark corrupts the
    image at its original resolution, before resizing.
    :class:`robustdet.datasets.CorruptedDataset` inserts it there for you.

    Each image gets its own seed, derived from (``seed``, the image's
    identity, corruption, severity) with a stable hash, so the pixels do
    not depend on the process, the number of dataloader workers or the
    order of loading. The identity is the image path relative to
    ``path_root`` (the dataset's ``data_root``), or the file name when no
    root is given or the image lies outside it.

    Unlike mmdet's ``Corrupt``, which corrupts mmdet's BGR arrays as if they
    were RGB, the published (RGB) definitions are applied by default.

    Required Keys:

    - img (np.uint8, BGR as loaded by mmdet)
    - img_path (str)

    Modified Keys:

    - img

    Added Keys:

    - corruption (str)
    - severity (int)

    Args:
        corruption (str): Corruption name.
        severity (int): 1-5, or 0 for no change.
        seed (int): Run seed. Defaults to 0.
        backend (str): Corruption backend, ``'fast'`` or ``'reference'``.
            Defaults to ``'fast'``.
        channel_order (str): ``'rgb'`` (published definitions) or
            ``'bgr'`` (what mmdet's ``Corrupt`` does). Defaults to
            ``'rgb'``.
        path_root (str, optional): Root that image identities are relative
            to. Defaults to None.
    """

    def __init__(self,
                 corruption: str,
                 severity: int,
                 seed: int = 0,
                 backend: str = DEFAULT_BACKEND,
                 channel_order: str = 'rgb',
                 path_root: Optional[str] = None) -> None:
        self.corruption = get_corruption(corruption).name
        self.severity = check_severity(severity, allow_clean=True)
        self.seed = seed
        self.backend = backend
        self.channel_order = channel_order
        self.path_root = path_root

    def image_identity(self, img_path: str) -> str:
        """The stable identity of an image: its path relative to
        ``path_root`` with '/' separators, else its file name (see
        :func:`image_identity`)."""
        return image_identity(img_path, self.path_root)

    def transform(self, results: dict) -> dict:
        """Corrupt ``results['img']``.

        Args:
            results (dict): Result dict from the loading step.

        Returns:
            dict: The result dict with the corrupted image.
        """
        img = results['img']
        seed = corruption_seed(self.seed,
                               self.image_identity(results['img_path']),
                               self.corruption, self.severity)
        # mmdet loads BGR; corrupt() takes RGB.
        rgb = np.ascontiguousarray(img[..., ::-1]) if img.ndim == 3 else img
        out = corrupt(rgb, self.corruption, self.severity, seed=seed,
                      backend=self.backend,
                      channel_order=self.channel_order)
        results['img'] = (
            np.ascontiguousarray(out[..., ::-1]) if out.ndim == 3 else out)
        results['corruption'] = self.corruption
        results['severity'] = self.severity
        return results

    def __repr__(self) -> str:
        return (f'{self.__class__.__name__}(corruption={self.corruption!r}, '
                f'severity={self.severity}, seed={self.seed}, '
                f'backend={self.backend!r}, '
                f'channel_order={self.channel_order!r}, '
                f'path_root={self.path_root!r})')


@TRANSFORMS.register_module()
class RecordImageIdentity(BaseTransform):
    """Record the image's identity, which its corruption seeds derive from,
    for a corruption applied later on the model's device.

    ``tools/test_robust.py --backend torch`` puts it right after the image
    loading step (:class:`robustdet.datasets.DeferredCorruptionDataset`)
    and :class:`robustdet.models.CorruptingDataPreprocessor` reads it from
    the data samples' metainfo, so the device corrupts every image with the
    seed :class:`CorruptImage` would use.

    Required Keys:

    - img_path (str)

    Added Keys:

    - img_identity (str)

    Args:
        path_root (str, optional): Root that image identities are relative
            to (the dataset's ``data_root``). Defaults to None.
    """

    def __init__(self, path_root: Optional[str] = None) -> None:
        self.path_root = path_root

    def transform(self, results: dict) -> dict:
        """Add ``results['img_identity']``.

        Args:
            results (dict): Result dict with ``img_path``.

        Returns:
            dict: The result dict with the identity.
        """
        results['img_identity'] = image_identity(results['img_path'],
                                                 self.path_root)
        return results

    def __repr__(self) -> str:
        return f'{self.__class__.__name__}(path_root={self.path_root!r})'
