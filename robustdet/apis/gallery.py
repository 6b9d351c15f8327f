# Copyright (c) robustdet contributors. All rights reserved.
"""What a corruption gallery shows (``tools/corruption_gallery.py``): an
image or a clip, read as the benchmark reads it and corrupted as it
corrupts it, under each selected corruption and severity.

The pixels are those the benchmark evaluates: each image is corrupted with
the seed ``test_robust.py`` gives it
(:func:`robustdet.datasets.transforms.corrupt.corruption_seed` of the
image's identity relative to the dataset's ``data_root``), with the same
backend and channel order, and the depth-aware corruptions read the same
depth maps. Clips are cut and seeded as the video benchmark cuts and seeds
them (:func:`robustdet.datasets.video_corrupted.clip_seed` of the clip's
key). The grid itself is drawn by :mod:`robustdet.visualization.gallery`.
"""
import copy
import os
import os.path as osp
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Sequence, Tuple

import cv2
import numpy as np
from mmdet.registry import DATASETS

from ..corruptions import (CLEAN_SEVERITY, DEFAULT_BACKEND,
                           DEFAULT_CALIBRATION, check_severity, corrupt,
                           get_corruption)
from ..datasets.corrupted import iter_leaf_datasets, loading_index
from ..datasets.depth import DepthSource
from ..datasets.transforms.corrupt import corruption_seed, image_identity
from ..datasets.video_clips import (VideoFrames, check_clip_settings,
                                    clip_window, frame_identity,
                                    load_video_ann)
from ..datasets.video_corrupted import anchor_path, clip_seed
from ..utils.cli import load_config
from ..utils.errors import RobustDetError
from ..utils.setup_env import register_all_modules
from ..video import corrupt_clip, get_clip_corruption
from ..visualization.gallery import (DEFAULT_STRIP_FRAMES, DEFAULT_THUMB_WIDTH,
                                     Gallery, check_strip_frames,
                                     check_thumb_width, clip_grid, image_grid)

#: Image files a gallery reads (frames of a clip folder too).
IMAGE_EXTS: Tuple[str, ...] = ('.jpg', '.jpeg', '.png', '.bmp', '.ppm',
                               '.tif', '.tiff', '.webp')

# ------------------------------------------------------------------ inputs


@dataclass(frozen=True)
class GalleryImage:
    """An image to corrupt and what its corruption seeds derive from.

    Args:
        rgb (np.ndarray): uint8 H×W×3 RGB (or H×W grayscale) pixels.
        path (str): Its path, as the dataset gives it.
        data_root (str, optional): The dataset's ``data_root``: the image's
            identity is its path relative to it, and depth folders are
            found under it.
    """
    rgb: np.ndarray
    path: str
    data_root: Optional[str] = None

    @property
    def identity(self) -> str:
        """The identity its seeds derive from (as the benchmark's)."""
        return image_identity(self.path, self.data_root)


@dataclass(frozen=True)
class GalleryClip:
    """A clip to corrupt and what its corruption seeds derive from.

    Args:
        frames (np.ndarray): (T, H, W, 3) uint8 RGB.
        key (str): The clip's key as the video benchmark forms it (first
            frame's identity and length), which its seeds derive from.
        paths (tuple[str]): Its frame files.
    """
    frames: np.ndarray
    key: str
    paths: Tuple[str, ...] = ()


def read_image(path: str) -> np.ndarray:
    """Read an image file as OpenCV's colour loader (and mmdet's default
    ``LoadImageFromFile``) reads it, as uint8 RGB.

    Args:
        path (str): The image file.

    Returns:
        np.ndarray: H×W×3 uint8 RGB.
    """
    try:
        with open(path, 'rb') as f:
            data = f.read()
    except FileNotFoundError:
        raise RobustDetError(f'image file not found: {path}') from None
    except OSError as e:
        raise RobustDetError(
            f'cannot read image {path}: {e.strerror or e}') from None
    bgr = None
    if data:
        bgr = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    if bgr is None:
        raise RobustDetError(f'unreadable image {path}: not an image file '
                             'OpenCV can decode')
    return np.ascontiguousarray(bgr[..., ::-1])


def image_from_file(path: str,
                    identity_root: Optional[str] = None) -> GalleryImage:
    """An image file to show, with the data root its identity is relative
    to.

    Args:
        path (str): The image file.
        identity_root (str, optional): The ``data_root`` of the dataset it
            belongs to, to get that benchmark's seeds (and its depth maps);
            default: the image's folder (the identity is its file name).

    Returns:
        GalleryImage: The image.
    """
    if osp.isdir(path):
        raise RobustDetError(f'{path} is a folder; give an image file or a '
                             'config (a folder of frames needs --video)')
    root = identity_root if identity_root else osp.dirname(
        osp.abspath(path))
    _check_root(path, root)
    return GalleryImage(read_image(path), path, root)


def image_from_config(config: str,
                      index: int = 0,
                      cfg_options: Optional[dict] = None) -> GalleryImage:
    """An image of a config's test dataset, loaded by the dataset's own
    loading step, as ``test_robust.py`` loads it.

    Args:
        config (str): An mmdet config with ``test_dataloader``.
        index (int): The image's index in the test dataset.
        cfg_options (dict, optional): ``--cfg-options`` overrides.

    Returns:
        GalleryImage: The image; its data root is its dataset's.
    """
    leaf, info = dataset_item(config, index, cfg_options)
    img = _loader(leaf)(dict(img_path=info['img_path']))['img']
    img = _to_uint8(img)
    rgb = np.ascontiguousarray(img[..., ::-1]) if img.ndim == 3 else img
    return GalleryImage(rgb, info['img_path'], getattr(leaf, 'data_root',
                                                       None))


def dataset_item(config: str,
                 index: int = 0,
                 cfg_options: Optional[dict] = None) -> Tuple[Any, dict]:
    """Build a config's test dataset and look up one of its items.

    Args:
        config (str): An mmdet config with ``test_dataloader``.
        index (int): The item's index.
        cfg_options (dict, optional): ``--cfg-options`` overrides.

    Returns:
        tuple: The leaf dataset the item belongs to (the one whose
        ``data_root`` holds it, else the first) and the item's data info.
    """
    register_all_modules()
    cfg = load_config(config, cfg_options, require=('test_dataloader', ))
    dataset_cfg = cfg.test_dataloader.get('dataset')
    if dataset_cfg is None:
        raise RobustDetError(f'config {config} has no '
                             'test_dataloader.dataset')
    dataset = DATASETS.build(copy.deepcopy(dataset_cfg))
    if hasattr(dataset, 'full_init'):
        dataset.full_init()
    size = len(dataset)
    if isinstance(index, bool) or not 0 <= index < size:
        raise RobustDetError(
            f'--index {index} is out of range: the test dataset of '
            f'{config} has {size} items')
    info = dataset.get_data_info(index)
    leaves = list(iter_leaf_datasets(dataset))
    if not leaves or 'img_path' not in info:
        raise RobustDetError(
            f'the test dataset of {config} ({type(dataset).__name__}) has '
            'no image loading pipeline or no img_path')
    leaf = next((d for d in leaves if _under_root(
        info['img_path'], getattr(d, 'data_root', None))), leaves[0])
    return leaf, info


def clip_from_folder(folder: str,
                     index: int = 0,
                     clip_len: int = 32,
                     identity_root: Optional[str] = None) -> GalleryClip:
    """The clip of a folder of frames (one video, frames sorted by name)
    that the video benchmark cuts around frame ``index``
    (``clip_mode='segment'``).

    Args:
        folder (str): The video's folder of frames.
        index (int): A frame of the clip (its position, sorted by name).
        clip_len (int): Frames per clip.
        identity_root (str, optional): The dataset's ``data_root``, for
            that benchmark's seeds; default: none (the identity of a frame
            is its folder and file name).

    Returns:
        GalleryClip: The clip.
    """
    check_clip_settings(clip_len, 'segment', 'dir', 'error')
    if not osp.isdir(folder):
        raise RobustDetError(
            f'--video needs a folder of frames or a config; {folder} is '
            'not a folder')
    names = sorted(n for n in os.listdir(folder)
                   if n.lower().endswith(IMAGE_EXTS))
    if not names:
        raise RobustDetError(f'no frames ({", ".join(IMAGE_EXTS)}) in '
                             f'{folder}')
    if identity_root:
        _check_root(folder, identity_root)
    _, paths, _ = VideoFrames('dir').locate(osp.join(folder, names[0]))
    if isinstance(index, bool) or not 0 <= index < len(paths):
        raise RobustDetError(f'--index {index} is out of range: {folder} '
                             f'has {len(paths)} frames')
    start, stop = clip_window(index, len(paths), clip_len, 'segment')
    return _clip(paths[start:stop], [identity_root or ''], read_image)


def clip_from_config(config: str,
                     index: int = 0,
                     clip_len: int = 32,
                     clip_mode: str = 'auto',
                     cfg_options: Optional[dict] = None) -> GalleryClip:
    """The clip ``test_robust.py`` cuts for item ``index`` of a video
    config's test dataset (frames from its CocoVID annotations, else from
    the frame's folder), loaded by the dataset's own loading step.

    Args:
        config (str): An mmdet config whose test dataset is a video
            dataset (CocoVID annotations or neighbour sets).
        index (int): The item.
        clip_len (int): Frames per clip.
        clip_mode (str): ``'auto'`` (``'anchor'`` for a neighbour-set
            item, else ``'segment'``), ``'segment'`` or ``'anchor'``.
        cfg_options (dict, optional): ``--cfg-options`` overrides.

    Returns:
        GalleryClip: The clip.
    """
    check_clip_settings(clip_len, clip_mode, 'auto', 'error')
    leaf, info = dataset_item(config, index, cfg_options)
    anchor = anchor_path(info)
    mode = clip_mode
    if mode == 'auto':
        mode = 'segment' if anchor is None else 'anchor'
    if mode == 'anchor' and anchor is None:
        raise RobustDetError(
            '--clip-mode anchor needs neighbour-set items (anchor_key); '
            f'{info["img_path"]} has none')
    ann_file = getattr(leaf, 'ann_file', None)
    ann = load_video_ann(ann_file)
    if ann is None:
        frames = VideoFrames('dir')
    else:
        prefix = (getattr(leaf, 'data_prefix', None) or {}).get('img', '')
        frames = VideoFrames('ann', [(ann, prefix, ann_file)])
    _, paths, position = frames.locate(info['img_path'])
    if mode == 'anchor':
        position = frames.locate(anchor)[2]
    start, stop = clip_window(position, len(paths), clip_len, mode)
    loader = _loader(leaf)

    def load(path: str) -> np.ndarray:
        img = _to_uint8(loader(dict(img_path=path))['img'])
        if img.ndim != 3 or img.shape[2] != 3:
            raise RobustDetError(
                f'clip corruptions need 3-channel frames; {path} loads as '
                f'shape {img.shape}')
        return np.ascontiguousarray(img[..., ::-1])

    root = getattr(leaf, 'data_root', None) or ''
    return _clip(paths[start:stop], [root], load)


def _clip(paths: Sequence[str], roots: Sequence[str], load) -> GalleryClip:
    frames = [load(p) for p in paths]
    for path, frame in zip(paths, frames):
        if frame.shape != frames[0].shape:
            raise RobustDetError(
                f'frames of one video differ in size: {paths[0]} is '
                f'{frames[0].shape[:2]}, {path} is {frame.shape[:2]}')
    key = f'{frame_identity(paths[0], roots)}+{len(paths)}'
    return GalleryClip(np.stack(frames), key, tuple(paths))


def _loader(leaf: Any) -> Any:
    """The image loading step of a leaf dataset's pipeline."""
    return leaf.pipeline.transforms[loading_index(leaf.pipeline)]


def _to_uint8(img: np.ndarray) -> np.ndarray:
    if img.dtype == np.uint8:
        return img
    return np.clip(np.rint(img), 0, 255).astype(np.uint8)


def _under_root(path: str, root: Optional[str]) -> bool:
    if not root:
        return False
    rel = osp.relpath(osp.abspath(path), osp.abspath(root))
    return not rel.startswith(osp.pardir)


def _check_root(path: str, root: str) -> None:
    if not _under_root(path, root):
        raise RobustDetError(f'{path} is not under --identity-root {root}')


# ------------------------------------------------------------- corrupting


def check_severities(severities: Sequence[int]) -> List[int]:
    """The gallery's columns: clean (0) first, then the severities asked
    for, sorted, each once (each checked, 0 allowed)."""
    checked = {check_severity(s, allow_clean=True) for s in severities}
    return [CLEAN_SEVERITY] + sorted(checked - {CLEAN_SEVERITY})


def corrupt_image_cells(image: GalleryImage,
                        names: Sequence[str],
                        severities: Sequence[int],
                        seed: int = 0,
                        backend: str = DEFAULT_BACKEND,
                        channel_order: str = 'rgb',
                        depth: Optional[dict] = None
                        ) -> Dict[Tuple[str, int], np.ndarray]:
    """The image under every corruption and severity, with the seeds,
    backend, channel order and depth of ``test_robust.py``.

    Args:
        image (GalleryImage): The image.
        names (Sequence[str]): Image corruptions.
        severities (Sequence[int]): Severities (0 = clean).
        seed (int): Run seed.
        backend (str): Corruption backend.
        channel_order (str): ``'rgb'`` or ``'bgr'``.
        depth (dict, optional): The depth source config
            (:class:`robustdet.datasets.depth.DepthSource`), read for the
            depth-aware corruptions only.

    Returns:
        dict: ``{(name, severity): uint8 RGB image}``.
    """
    source = None if depth is None else DepthSource.from_cfg(depth)
    identity = image.identity
    entries = [get_corruption(n) for n in names]
    depth_map = None
    # The depth-aware ones first: without depth, their one-line error
    # comes before any other work.
    out = {}
    for entry in sorted(entries, key=lambda e: not e.needs_depth):
        for sev in severities:
            check_severity(sev, allow_clean=True)
            if sev == CLEAN_SEVERITY:
                out[(entry.name, sev)] = image.rgb
                continue
            if (entry.needs_depth and depth_map is None
                    and source is not None):
                depth_map = source.load(image.path, image.data_root)
            out[(entry.name, sev)] = corrupt(
                image.rgb, entry.name, sev,
                seed=corruption_seed(seed, identity, entry.name, sev),
                backend=backend, channel_order=channel_order,
                depth=depth_map if entry.needs_depth else None,
                depth_calibration=(DEFAULT_CALIBRATION if source is None
                                   else source.calibration))
    return out


def corrupt_clip_cells(clip: GalleryClip,
                       names: Sequence[str],
                       severities: Sequence[int],
                       seed: int = 0,
                       channel_order: str = 'rgb',
                       short_clips: str = 'error'
                       ) -> Dict[Tuple[str, int], np.ndarray]:
    """The clip under every clip corruption and severity, seeded as the
    video benchmark seeds it.

    Args:
        clip (GalleryClip): The clip.
        names (Sequence[str]): Clip corruptions.
        severities (Sequence[int]): Severities (0 = clean).
        seed (int): Run seed.
        channel_order (str): ``'rgb'`` or ``'bgr'`` (the loader's BGR
            frames corrupted as they are).
        short_clips (str): A clip shorter than a corruption needs:
            ``'error'`` or ``'pad'`` (its last frame repeated, the padding
            dropped after corrupting).

    Returns:
        dict: ``{(name, severity): (T, H, W, 3) uint8 RGB frames}``.
    """
    if short_clips not in ('error', 'pad'):
        raise RobustDetError(f'unknown short_clips {short_clips!r}; valid: '
                             'error, pad')
    frames = clip.frames
    n = len(frames)
    out = {}
    for name in names:
        corruption = get_clip_corruption(name)
        for sev in severities:
            check_severity(sev, allow_clean=True)
            if sev == CLEAN_SEVERITY:
                out[(name, sev)] = frames
                continue
            src = frames if channel_order == 'rgb' else frames[..., ::-1]
            if n < corruption.min_frames:
                if short_clips == 'error':
                    raise RobustDetError(
                        f'{name} needs clips of at least '
                        f'{corruption.min_frames} frames; the clip has '
                        f'{n} (pass --short-clips pad to repeat its last '
                        'frame, or a longer --clip-len)')
                src = np.concatenate([src] + [src[-1:]] *
                                     (corruption.min_frames - n))
            result = corrupt_clip(
                np.ascontiguousarray(src), name, sev,
                seed=clip_seed(seed, clip.key, name)).frames[:n]
            if channel_order != 'rgb':
                result = result[..., ::-1]
            out[(name, sev)] = np.ascontiguousarray(result)
    return out


# --------------------------------------------------------------- galleries


def image_gallery(image: GalleryImage,
                  names: Sequence[str],
                  severities: Sequence[int],
                  thumb_width: int = DEFAULT_THUMB_WIDTH,
                  seed: int = 0,
                  backend: str = DEFAULT_BACKEND,
                  channel_order: str = 'rgb',
                  depth: Optional[dict] = None) -> Gallery:
    """The gallery of an image: a row per corruption, a column for the
    clean image and one per severity.

    Args:
        image (GalleryImage): The image.
        names (Sequence[str]): Image corruptions (table names).
        severities (Sequence[int]): Severities; the clean column is always
            first.
        thumb_width (int): Thumbnail width in pixels.
        seed (int): Run seed.
        backend (str): Corruption backend.
        channel_order (str): ``'rgb'`` or ``'bgr'``.
        depth (dict, optional): Depth source config, for the depth-aware
            corruptions.

    Returns:
        Gallery: One frame.
    """
    if not names:
        raise RobustDetError('no corruptions selected')
    thumb_width = check_thumb_width(thumb_width)
    columns = check_severities(severities)
    images = corrupt_image_cells(image, names, columns, seed, backend,
                                 channel_order, depth)
    info = dict(input=image.identity, seed=seed, backend=backend,
                channel_order=channel_order)
    title = (f'{image.identity}   backend {backend}   seed {seed}' +
             (f'   channel order {channel_order}'
              if channel_order != 'rgb' else ''))
    return image_grid(images, names, columns, thumb_width, title, info)


def clip_gallery(clip: GalleryClip,
                 names: Sequence[str],
                 severities: Sequence[int],
                 thumb_width: int = DEFAULT_THUMB_WIDTH,
                 seed: int = 0,
                 channel_order: str = 'rgb',
                 short_clips: str = 'error',
                 animated: bool = True,
                 strip_frames: int = DEFAULT_STRIP_FRAMES) -> Gallery:
    """The gallery of a clip: a row per clip corruption, a column for the
    clean clip and one per severity; animated (a frame per clip frame) or
    still (each cell a strip of ``strip_frames`` frames).

    Args:
        clip (GalleryClip): The clip.
        names (Sequence[str]): Clip corruptions.
        severities (Sequence[int]): Severities; the clean column is always
            first.
        thumb_width (int): Width of a frame's thumbnail.
        seed (int): Run seed.
        channel_order (str): ``'rgb'`` or ``'bgr'``.
        short_clips (str): ``'error'`` or ``'pad'``.
        animated (bool): One grid per clip frame (for a GIF), else one
            grid of strips.
        strip_frames (int): Frames per strip (still galleries).

    Returns:
        Gallery: T frames, or one.
    """
    if not names:
        raise RobustDetError('no clip corruptions selected')
    thumb_width = check_thumb_width(thumb_width)
    strip_frames = check_strip_frames(strip_frames)
    columns = check_severities(severities)
    clips = corrupt_clip_cells(clip, names, columns, seed, channel_order,
                               short_clips)
    title = f'clip {clip.key}   seed {seed}'
    info = dict(input=clip.key, seed=seed, channel_order=channel_order,
                frames=len(clip.frames))
    return clip_grid(clips, names, columns, thumb_width, title, info,
                     animated, strip_frames)
