# Copyright (c) robustdet contributors. All rights reserved.
import os.path as osp
from typing import Any, Dict, Optional, Union

import numpy as np
from mmcv.transforms import BaseTransform
from mmdet.registry import TRANSFORMS

from ...corruptions import (DEFAULT_BACKEND, DEFAULT_CALIBRATION,
                            check_severity, corrupt, get_corruption)
from ...corruptions.region import blend_region, check_region, region_weight
from ...utils.errors import RobustDetError
from ...utils.seeding import derive_seed
from ..depth import DepthSource


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

    With ``region='objects'`` (or ``'background'``) the corruption is
    applied inside (outside) the image's ground-truth instances only, with
    a soft edge (:mod:`robustdet.corruptions.region`); the corruptions
    that need depth (fog_3d, near_focus, far_focus) read each image's
    depth map from ``depth``.

    Required Keys:

    - img (np.uint8, BGR as loaded by mmdet)
    - img_path (str)
    - instances (list[dict], only for ``region`` other than ``'all'``: the
      dataset's ground truth, ``bbox`` and optional ``mask``, in the
      loaded image's pixels)

    Modified Keys:

    - img

    Added Keys:

    - corruption (str)
    - severity (int)
    - region (str)

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
            to (the dataset's ``data_root``; depth roots are relative to it
            too). Defaults to None.
        region (str): ``'all'`` (default), ``'objects'`` or
            ``'background'``.
        depth (dict | DepthSource, optional): Where each image's depth
            map is (:class:`robustdet.datasets.depth.DepthSource` or its
            config). Read only for the corruptions that need depth, which
            fail with a one-line error without it. Defaults to None.
    """

    def __init__(self,
                 corruption: str,
                 severity: int,
                 seed: int = 0,
                 backend: str = DEFAULT_BACKEND,
                 channel_order: str = 'rgb',
                 path_root: Optional[str] = None,
                 region: str = 'all',
                 depth: Union[None, Dict[str, Any], DepthSource] = None
                 ) -> None:
        entry = get_corruption(corruption)
        self.corruption = entry.name
        self.severity = check_severity(severity, allow_clean=True)
        self.seed = seed
        self.backend = backend
        self.channel_order = channel_order
        self.path_root = path_root
        self.region = check_region(region)
        self.depth = None if depth is None else DepthSource.from_cfg(depth)
        self.needs_depth = entry.needs_depth and self.severity > 0

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
                      channel_order=self.channel_order,
                      depth=self._depth(results['img_path']),
                      depth_calibration=self._calibration())
        if self.region != 'all' and self.severity > 0:
            out = blend_region(rgb, out, self._weight(results, rgb.shape),
                               self.region)
        results['img'] = (
            np.ascontiguousarray(out[..., ::-1]) if out.ndim == 3 else out)
        results['corruption'] = self.corruption
        results['severity'] = self.severity
        results['region'] = self.region
        return results

    def _depth(self, img_path: str) -> Optional[np.ndarray]:
        """The image's depth map when the corruption needs one."""
        if not self.needs_depth or self.depth is None:
            return None
        return self.depth.load(img_path, self.path_root)

    def _calibration(self) -> str:
        """How the depth source's maps are normalised."""
        if self.depth is None:
            return DEFAULT_CALIBRATION
        return self.depth.calibration

    def _weight(self, results: dict, shape: tuple) -> np.ndarray:
        """Where the corruption applies: 1 on the ground-truth objects."""
        instances = results.get('instances')
        if instances is None:
            raise RobustDetError(
                f'--region {self.region} needs the ground truth of '
                f'{results["img_path"]}, but its data info has no '
                "'instances'")
        return region_weight(shape[0], shape[1], instances)

    def __repr__(self) -> str:
        return (f'{self.__class__.__name__}(corruption={self.corruption!r}, '
                f'severity={self.severity}, seed={self.seed}, '
                f'backend={self.backend!r}, '
                f'channel_order={self.channel_order!r}, '
                f'path_root={self.path_root!r}, region={self.region!r}, '
                f'depth={self.depth!r})')


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
