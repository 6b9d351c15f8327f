# Copyright (c) robustdet contributors. All rights reserved.
"""Synthetic fog for the demo's Cityscapes layout (a stand-in for Foggy
Cityscapes).

Foggy Cityscapes (Sakaridis et al., 2018) applies Koschmieder's optical
model to each Cityscapes image,

    I(x) = R(x) t(x) + L (1 - t(x)),    t(x) = exp(-beta d(x)),

where ``R`` is the clear image, ``L`` the atmospheric light, ``d`` the scene
depth in metres and ``beta`` the attenuation coefficient (0.005, 0.01 and
0.02 per metre). The real dataset computes ``d`` from Cityscapes' stereo
disparity (with denoising and refinement) and estimates ``L`` per image;
download it from https://www.cityscapes-dataset.com (package
``leftImg8bit_trainvaltest_foggy.zip``) rather than making it with this
module.

:func:`write_foggy_cityscapes` fogs a synthetic Cityscapes tree (the demo
data) with the same law, the same file layout and names, and a synthetic
depth map: a flat ground plane seen by a Cityscapes-like camera, so depth
grows towards the horizon; everything at or above the horizon is at
``max_depth_m``. The horizon is read from the ``sky`` polygon of the image's
``gtFine`` polygons file (the demo writes one), else assumed at
:data:`DEFAULT_HORIZON` of the image height.
"""
import json
import os
import os.path as osp
from typing import Dict, Iterable, Sequence, Union

import cv2
import numpy as np

from robustdet.datasets.foggy_cityscapes import (CLEAN_SUFFIX, FOGGY_BETAS,
                                                 foggy_file_name,
                                                 parse_foggy_beta)
from robustdet.utils.errors import RobustDetError
from robustdet.utils.io import write_bytes_atomic
from robustdet.utils.seeding import derive_seed
from .layouts import encode_image

#: Default atmospheric light (a bright grey) in 0-255 intensity units.
DEFAULT_AIRLIGHT = 220.0
#: Horizon row as a fraction of the image height when no polygons say.
DEFAULT_HORIZON = 0.45
#: Height of the Cityscapes camera above the road, in metres.
CAMERA_HEIGHT_M = 1.22
#: Cityscapes focal length in pixels per pixel of image width (2262/2048).
FOCAL_PER_WIDTH = 1.1
#: Depth of the horizon and everything above it, in metres.
MAX_DEPTH_M = 200.0
# Relative amplitude of the smooth, seeded depth perturbation.
_DEPTH_NOISE = 0.1


def add_fog(img_rgb: np.ndarray,
            depth_m: np.ndarray,
            beta: float,
            airlight: Union[float, Sequence[float]] = DEFAULT_AIRLIGHT
            ) -> np.ndarray:
    """Fog an image with Koschmieder's law (Sakaridis et al., 2018).

    ``I = R t + L (1 - t)`` with transmittance ``t = exp(-beta d)``.

    Args:
        img_rgb (np.ndarray): Clear ``(H, W, 3)`` uint8 image ``R``.
        depth_m (np.ndarray): ``(H, W)`` scene depth ``d`` in metres,
            non-negative (``inf`` gives pure airlight).
        beta (float): Attenuation coefficient in 1/m, non-negative.
        airlight (float | Sequence[float]): Atmospheric light ``L`` in
            0-255 units, one value or one per channel. Defaults to
            :data:`DEFAULT_AIRLIGHT`.

    Returns:
        np.ndarray: The foggy ``(H, W, 3)`` uint8 image.
    """
    img = np.asarray(img_rgb)
    depth = np.asarray(depth_m, dtype=np.float64)
    if img.ndim != 3 or img.shape[2] != 3 or img.dtype != np.uint8:
        raise ValueError('img_rgb must be an (H, W, 3) uint8 image, got '
                         f'{img.dtype} {img.shape}')
    if depth.shape != img.shape[:2]:
        raise ValueError(f'depth_m has shape {depth.shape}, expected '
                         f'{img.shape[:2]}')
    if np.isnan(depth).any() or (depth < 0).any():
        raise ValueError('depth_m must be non-negative')
    if not beta >= 0:
        raise ValueError(f'beta must be non-negative, got {beta}')
    light = np.broadcast_to(
        np.asarray(airlight, dtype=np.float64).reshape(-1), (3, ))
    # beta = 0 is clear air, even at infinite depth.
    trans = np.exp(-float(beta) * depth) if beta > 0 else np.ones_like(depth)
    trans = trans[..., None]
    out = img.astype(np.float64) * trans + light * (1.0 - trans)
    return np.clip(np.rint(out), 0, 255).astype(np.uint8)


def ground_plane_depth(height: int,
                       width: int,
                       horizon: float,
                       max_depth_m: float = MAX_DEPTH_M) -> np.ndarray:
    """Depth of a flat road seen by a Cityscapes-like camera.

    A pixel row ``y`` below the horizon sees the road at
    ``f h / (y + 0.5 - horizon)`` metres, with the camera height
    :data:`CAMERA_HEIGHT_M` and focal length ``FOCAL_PER_WIDTH * width``
    pixels; depth is capped at ``max_depth_m``, which rows at or above the
    horizon get.

    Args:
        height (int): Image height.
        width (int): Image width.
        horizon (float): Horizon row in pixels.
        max_depth_m (float): Largest depth. Defaults to :data:`MAX_DEPTH_M`.

    Returns:
        np.ndarray: ``(height, width)`` float64 depth in metres.
    """
    focal = FOCAL_PER_WIDTH * width
    below = np.arange(height, dtype=np.float64) + 0.5 - horizon
    with np.errstate(divide='ignore'):
        rows = np.where(below > 0, focal * CAMERA_HEIGHT_M / below,
                        max_depth_m)
    rows = np.minimum(rows, max_depth_m)
    return np.repeat(rows[:, None], width, axis=1)


def _horizon(polygons_file: str, height: int) -> float:
    """Horizon row of an image from its ``gtFine`` polygons, if any.

    Args:
        polygons_file (str): ``*_gtFine_polygons.json`` path (may not
            exist).
        height (int): Image height.

    Returns:
        float: The lowest row of the ``sky`` polygon, else
        ``DEFAULT_HORIZON * height``.
    """
    if osp.isfile(polygons_file):
        with open(polygons_file, encoding='utf-8') as f:
            objects = json.load(f).get('objects', [])
        rows = [
            y for obj in objects if obj.get('label') == 'sky'
            for _, y in obj.get('polygon', [])
        ]
        if rows:
            return float(max(rows))
    return DEFAULT_HORIZON * height


def _depth_noise(seed: int, height: int, width: int) -> np.ndarray:
    """Smooth multiplicative depth perturbation around 1.

    Args:
        seed (int): Seed of this image.
        height (int): Image height.
        width (int): Image width.

    Returns:
        np.ndarray: ``(height, width)`` factors in about ``[0.9, 1.1]``.
    """
    rng = np.random.default_rng(seed)
    grid = rng.uniform(-1.0, 1.0, size=(4, 6)).astype(np.float32)
    smooth = cv2.resize(grid, (width, height), interpolation=cv2.INTER_CUBIC)
    return np.exp(_DEPTH_NOISE * np.clip(smooth, -1.0, 1.0)).astype(
        np.float64)


def synthetic_depth(polygons_file: str, height: int, width: int,
                    seed: int) -> np.ndarray:
    """Synthetic depth map of one image of a Cityscapes tree.

    :func:`ground_plane_depth` at the image's horizon (see
    :func:`write_foggy_cityscapes`) times a smooth seeded perturbation of
    about 10 %, standing in for the imperfect stereo depth of the real
    dataset.

    Args:
        polygons_file (str): The image's ``*_gtFine_polygons.json`` (may not
            exist).
        height (int): Image height.
        width (int): Image width.
        seed (int): Seed of this image.

    Returns:
        np.ndarray: ``(height, width)`` float64 depth in metres.
    """
    depth = ground_plane_depth(height, width, _horizon(polygons_file, height))
    return depth * _depth_noise(seed, height, width)


def write_foggy_cityscapes(cityscapes_root: str,
                           splits: Iterable[str] = ('val', ),
                           betas: Iterable[Union[float, str]] = FOGGY_BETAS,
                           seed: int = 0,
                           airlight: Union[float,
                                           Sequence[float]] = DEFAULT_AIRLIGHT
                           ) -> Dict[str, Union[str, int]]:
    """Write ``leftImg8bit_foggy`` for a (synthetic) Cityscapes tree.

    For each ``leftImg8bit/{split}/{city}/{stem}_leftImg8bit.png`` and each
    beta this writes ``leftImg8bit_foggy/{split}/{city}/{foggy name}`` (see
    :func:`~robustdet.datasets.foggy_file_name`), the layout of the real
    Foggy Cityscapes, fogged by
    :func:`add_fog` with :func:`synthetic_depth` (one depth map per image,
    shared by all betas, so a denser fog is foggier everywhere). Files are
    written atomically; existing ones are skipped, so an interrupted run
    can be resumed. The same arguments give byte-identical files.

    This is for the demo data only: the real Foggy Cityscapes uses stereo
    depth; download it from https://www.cityscapes-dataset.com (package
    ``leftImg8bit_trainvaltest_foggy.zip``).

    Args:
        cityscapes_root (str): Root holding ``leftImg8bit/`` (and, for the
            horizon, ``gtFine/`` polygons).
        splits (Iterable[str]): Splits to fog. Defaults to ``('val',)``.
        betas (Iterable[float | str]): Fog densities, a subset of
            :data:`FOGGY_BETAS`. Defaults to all three.
        seed (int): Seed of the depth perturbations. Defaults to 0.
        airlight (float | Sequence[float]): Atmospheric light in 0-255
            units. Defaults to :data:`DEFAULT_AIRLIGHT`.

    Returns:
        dict: ``foggy_root`` (the ``leftImg8bit_foggy`` directory), and the
        numbers of files ``written`` and ``skipped`` (already there).
    """
    if isinstance(splits, str):
        splits = (splits, )
    splits = tuple(dict.fromkeys(splits))
    if isinstance(betas, (str, int, float)):
        betas = (betas, )
    betas = tuple(dict.fromkeys(parse_foggy_beta(b) for b in betas))
    if not splits or not betas:
        raise RobustDetError('write_foggy_cityscapes needs at least one '
                             'split and one beta')
    if isinstance(seed, bool) or int(seed) != seed or seed < 0:
        raise RobustDetError(
            f'seed must be a non-negative integer, got {seed!r}')
    root = osp.abspath(cityscapes_root)
    foggy_root = osp.join(root, 'leftImg8bit_foggy')
    written = skipped = 0
    for split in splits:
        img_dir = osp.join(root, 'leftImg8bit', split)
        if not osp.isdir(img_dir):
            raise RobustDetError(
                f'no Cityscapes images of split {split!r}: {img_dir} is not '
                'a directory')
        for city in sorted(os.listdir(img_dir)):
            if not osp.isdir(osp.join(img_dir, city)):
                continue
            names = sorted(n for n in os.listdir(osp.join(img_dir, city))
                           if n.endswith(CLEAN_SUFFIX))
            for name in names:
                rel = f'{city}/{name}'
                todo = [(b, osp.join(foggy_root, split,
                                     foggy_file_name(rel, b)))
                        for b in betas]
                skipped += sum(osp.exists(out) for _, out in todo)
                todo = [(b, out) for b, out in todo if not osp.exists(out)]
                if not todo:
                    continue
                src = osp.join(img_dir, rel)
                bgr = cv2.imread(src, cv2.IMREAD_COLOR)
                if bgr is None:
                    raise RobustDetError(f'cannot read image {src}')
                img = cv2.cvtColor(bgr, cv2.COLOR_BGR2RGB)
                stem = name[:-len(CLEAN_SUFFIX)]
                polygons = osp.join(root, 'gtFine', split, city,
                                    f'{stem}_gtFine_polygons.json')
                depth = synthetic_depth(
                    polygons, img.shape[0], img.shape[1],
                    derive_seed(int(seed), 'foggy_depth', split, rel))
                for beta, out in todo:
                    write_bytes_atomic(
                        encode_image(add_fog(img, depth, beta, airlight),
                                     '.png'), out)
                    written += 1
    return dict(foggy_root=foggy_root, written=written, skipped=skipped)
