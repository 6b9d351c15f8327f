# Copyright (c) robustdet contributors. All rights reserved.
"""Corrupt only the objects of an image, or only its background.

``tools/test_robust.py --region objects|background`` corrupts the whole
image as usual (:func:`robustdet.corruptions.corrupt`) and then blends the
result with the clean image through a weight map built from the image's
ground-truth instances (mmdet 3.x ``results['instances']``, original-image
pixels). The definitions:

* **Object pixels** (:func:`object_mask`): the union of the instances'
  masks. An instance without a mask contributes its box: the pixels whose
  centres ``(j + 0.5, i + 0.5)`` lie in ``[x1, x2) × [y1, y2)``, so an
  integer box ``[10, 20, 30, 40]`` covers columns 10-29 and rows 20-39;
  a box that holds no pixel centre in a direction (narrower than a pixel)
  takes the one pixel column (row) holding its middle, so every box in
  the image covers at least one pixel. Polygons and RLE masks are
  rasterised by pycocotools (``frPyObjects``, ``merge``, ``decode``), the
  rasterisation of COCO's evaluation and of mmdet's ``PolygonMasks``;
  polygons of fewer than 3 points are dropped and an instance left with
  none is taken as having no mask (its box). Ignored instances
  (``ignore_flag=1``: crowds, ambiguous objects) are objects too: they
  are things in the scene, which the evaluator merely does not score, so
  they are corrupted with the objects, not with the background.
* **Weight** (:func:`region_weight`): 1 on every object pixel, falling
  linearly with ``d``, the Euclidean distance between a pixel's centre
  and the nearest object pixel's centre: ``max(0, 1 - d / (feather +
  1))``. The ramp lies wholly outside the objects, so ``objects``
  corrupts all of every object and a soft edge of ``feather`` pixels
  (measured across a straight edge) beyond it; ``background`` leaves
  every object pixel clean. ``feather=0`` is a hard edge.
* **Blend** (:func:`blend_region`): ``objects`` gives ``w * corrupted +
  (1 - w) * clean``, ``background`` ``(1 - w) * corrupted + w * clean``,
  ``all`` the corrupted image itself. The two regions partition the
  change: their changes add up to that of ``all`` within 1 grey level.

Every step gives the same pixels on every x86-64 CPU (AVX-512, AVX2,
SSE): OpenCV's and numpy's float filters (a Gaussian blur, a float
distance transform) sum in an order that depends on the vector code the
CPU runs, which moves the last bit and so, after rounding, a grey level
here and there. The distance is therefore exact integer work (a
separable, truncated squared Euclidean distance in small integers), the
weight a table lookup of it, and the blend integer arithmetic on the
weight quantised to ``0..255`` (``np.rint(w * 255)``, elementwise IEEE
float32, the same everywhere). pycocotools' rasterisation is scalar C
without dispatch on the CPU; the OpenCV calls (``transpose``, ``copyTo``)
only move bytes.
"""
import math
from typing import Dict, List, Sequence, Tuple

import cv2
import numpy as np
from pycocotools import mask as mask_util

from ..utils.errors import RobustDetError

REGIONS = ('all', 'objects', 'background')
#: Default width in pixels of the soft edge outside the objects (measured
#: across a straight edge): enough to hide the seam of a hard edge, small
#: against all but the tiniest objects.
FEATHER = 4


def check_region(region: str) -> str:
    """``region`` if it is one of :data:`REGIONS`, else a user error."""
    if region not in REGIONS:
        raise RobustDetError(f'unknown region {region!r}; '
                             f'valid: {", ".join(REGIONS)}')
    return region


def _box_span(lo: float, hi: float, size: int) -> Tuple[int, int]:
    """The pixels ``[start, stop)`` of one side whose centres lie in
    ``[lo, hi)``; the one holding ``(lo + hi) / 2`` when there are none;
    clipped to ``[0, size)``."""
    start, stop = math.ceil(lo - 0.5), math.ceil(hi - 0.5)
    if stop <= start:
        start = math.floor((lo + hi) / 2)
        stop = start + 1
    return max(start, 0), min(stop, size)


def _mask_rles(mask, height: int, width: int) -> List[Dict]:
    """The pycocotools RLEs of one instance mask; an empty list for a
    mask without a usable polygon."""
    if isinstance(mask, dict):
        size = [int(s) for s in mask.get('size', ())]
        if size != [height, width]:
            raise RobustDetError(
                f'an instance mask is an RLE of size {size} (height, width) '
                f'but the image is [{height}, {width}]')
        if isinstance(mask['counts'], (list, tuple)):  # uncompressed
            return [mask_util.frPyObjects(
                dict(size=size, counts=list(mask['counts'])), height, width)]
        return [dict(size=size, counts=mask['counts'])]
    if isinstance(mask, (list, tuple)):
        polygons = [
            np.asarray(p, dtype=np.float64).ravel().tolist() for p in mask
        ]
        polygons = [p for p in polygons if len(p) >= 6 and len(p) % 2 == 0]
        if not polygons:
            return []
        return mask_util.frPyObjects(polygons, height, width)
    raise TypeError(f'an instance mask must be a list of polygons or an RLE '
                    f'dict, not {type(mask).__name__}')


def object_mask(height: int, width: int,
                instances: Sequence[Dict]) -> np.ndarray:
    """The object pixels of an image: the union of its instances.

    Args:
        height (int): Image height in pixels.
        width (int): Image width in pixels.
        instances (Sequence[dict]): mmdet 3.x instances, each with
            ``'bbox'`` ``[x1, y1, x2, y2]`` and optionally ``'mask'`` (a
            list of flat polygons or a COCO RLE dict); ignored instances
            included. See the module docstring for the rasterisation.

    Returns:
        np.ndarray: bool ``(height, width)``, True on object pixels.

    Raises:
        RobustDetError: An RLE mask is not of size ``(height, width)``.
    """
    rles, boxes = [], []
    for instance in instances:
        mask = instance.get('mask')
        instance_rles = ([] if mask is None else _mask_rles(
            mask, height, width))
        if instance_rles:
            rles.extend(instance_rles)
        else:
            x1, y1, x2, y2 = (float(v) for v in instance['bbox'])
            boxes.append(
                _box_span(y1, y2, height) + _box_span(x1, x2, width))
    if rles:
        union = rles[0] if len(rles) == 1 else mask_util.merge(rles)
        # decode() fills a column-major array; cv2.transpose of its
        # transpose (a row-major view) is a plain byte copy to row-major,
        # 30 times faster than numpy's.
        objects = cv2.transpose(mask_util.decode(union).T)
    else:
        objects = np.zeros((height, width), dtype=np.uint8)
    for i0, i1, j0, j1 in boxes:
        objects[i0:i1, j0:j1] = 1
    return objects.view(bool)


def _squared_distance(objects: np.ndarray, reach: int) -> np.ndarray:
    """Squared Euclidean distance between pixel centres to the nearest
    True pixel of ``objects``, exact below ``reach ** 2`` and at least
    ``reach ** 2`` elsewhere (truncated), in integers.

    Separable: ``g``, the distance along its column capped at ``reach``,
    then ``min over |dx| < reach of g[:, j + dx] ** 2 + dx ** 2``. A true
    distance under ``reach`` is reached by an uncapped term of the
    minimum; every other term is at least ``reach ** 2``.
    """
    # 2 * reach**2 - 1 bounds every sum; uint8 halves the memory traffic.
    dtype = np.uint8 if 2 * reach * reach <= 255 else np.int32
    height, width = objects.shape
    far = np.where(objects, 0, reach).astype(dtype)
    column = far.copy()
    for d in range(1, min(reach, height)):
        np.minimum(column[d:], far[:-d] + d, out=column[d:])
        np.minimum(column[:-d], far[d:] + d, out=column[:-d])
    square = column * column
    dist2 = square.copy()
    for d in range(1, min(reach, width)):
        np.minimum(dist2[:, d:], square[:, :-d] + d * d, out=dist2[:, d:])
        np.minimum(dist2[:, :-d], square[:, d:] + d * d, out=dist2[:, :-d])
    return dist2


def region_weight(height: int,
                  width: int,
                  instances: Sequence[Dict],
                  feather: int = FEATHER) -> np.ndarray:
    """The weight of the objects in the blend of :func:`blend_region`.

    Args:
        height (int): Image height in pixels.
        width (int): Image width in pixels.
        instances (Sequence[dict]): As for :func:`object_mask`.
        feather (int): Width in pixels of the soft edge outside the
            objects. Defaults to :data:`FEATHER`.

    Returns:
        np.ndarray: float32 ``(height, width)``: 1 on object pixels,
        ``max(0, 1 - d / (feather + 1))`` at distance ``d`` (between pixel
        centres) from the nearest one, 0 for an image without instances.

    Raises:
        RobustDetError: ``feather`` is not a non-negative integer, or an
            RLE mask is not of size ``(height, width)``.
    """
    if (isinstance(feather, bool) or not isinstance(feather, (int,
                                                              np.integer))
            or feather < 0):
        raise RobustDetError(
            f'feather must be a non-negative integer, not {feather!r}')
    objects = object_mask(height, width, instances)
    if feather == 0 or not objects.any():
        return objects.astype(np.float32)
    reach = int(feather) + 1
    # Crop to the objects' bounding box grown by the reach: the weight is
    # 0 beyond it.
    rows, cols = np.flatnonzero(objects.any(1)), np.flatnonzero(objects.any(0))
    i0, i1 = max(rows[0] - reach, 0), min(rows[-1] + reach + 1, height)
    j0, j1 = max(cols[0] - reach, 0), min(cols[-1] + reach + 1, width)
    dist2 = _squared_distance(objects[i0:i1, j0:j1], reach)
    # The weight of every squared distance, computed once in float64.
    table = 1.0 - np.sqrt(np.arange(reach * reach + 1)) / reach
    table = np.maximum(table, 0.0).astype(np.float32)
    weight = np.zeros((height, width), dtype=np.float32)
    # dist2 <= reach ** 2 (the dx = 0 term of its minimum).
    weight[i0:i1, j0:j1] = np.take(table, dist2)
    return weight


def blend_region(clean: np.ndarray, corrupted: np.ndarray,
                 weight: np.ndarray, region: str) -> np.ndarray:
    """Keep the corruption only in a region of the image.

    With ``q = rint(weight * 255)`` (float32) and, per pixel and channel,
    ``objects``: ``(q * corrupted + (255 - q) * clean + 127) // 255``;
    ``background``: the same with ``255 - q`` for ``q``; exact integers.

    Args:
        clean (np.ndarray): uint8 ``(H, W)`` or ``(H, W, C)`` image.
        corrupted (np.ndarray): uint8, of the shape of ``clean``.
        weight (np.ndarray): ``(H, W)`` in ``[0, 1]``, from
            :func:`region_weight`.
        region (str): One of :data:`REGIONS`.

    Returns:
        np.ndarray: uint8 of the shape of ``clean``; for ``all``,
        ``corrupted`` itself (not a copy).

    Raises:
        RobustDetError: ``region`` is unknown.
    """
    check_region(region)
    if region == 'all':
        return corrupted
    if clean.dtype != np.uint8 or corrupted.dtype != np.uint8:
        raise TypeError(f'images must be uint8, not {clean.dtype} and '
                        f'{corrupted.dtype}')
    if clean.shape != corrupted.shape or weight.shape != clean.shape[:2]:
        raise ValueError(f'shapes differ: clean {clean.shape}, corrupted '
                         f'{corrupted.shape}, weight {weight.shape}')
    q = np.rint(np.asarray(weight, dtype=np.float32) * np.float32(255))
    q = np.clip(q, 0, 255).astype(np.uint8)
    # Where q is 255 the pixel is inside (taken from `inside`), where 0
    # outside; only the thin band between needs arithmetic.
    inside, outside = ((corrupted, clean) if region == 'objects' else
                       (clean, corrupted))
    full = q == 255
    # A masked byte copy (no arithmetic); 40 times faster than np.copyto.
    out = cv2.copyTo(inside, full.view(np.uint8), outside.copy())
    band = np.nonzero((q > 0) & ~full)
    w = q[band].astype(np.uint16)
    w = w.reshape(w.shape + (1, ) * (out.ndim - 2))
    mixed = (w * inside[band] + (255 - w) * outside[band] + 127) // 255
    out[band] = mixed.astype(np.uint8)
    return out
