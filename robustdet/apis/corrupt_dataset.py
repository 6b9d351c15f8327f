# Copyright (c) robustdet contributors. All rights reserved.
"""Write -C copies of an image tree to disk, for use outside mmdet.

``OUT_DIR/<corruption>/<severity>/<path relative to SRC_DIR>``: the tree
is mirrored, each image corrupted with the seed ``test_robust.py`` would
use for it when the dataset's ``data_root`` is ``identity_root`` (default:
``SRC_DIR``). Finished images are skipped, so an interrupted run resumes;
each file is written atomically; the source tree is never written to.

With ``region`` ``'objects'`` or ``'background'`` the corruption applies
inside or outside the ground-truth instances of a COCO annotation file
(``ann_file``), as ``test_robust.py --region`` does, and the copies go to
``OUT_DIR/region-<region>/<corruption>/<severity>/...``. The depth-aware
corruptions read each image's depth from ``depth`` (a
:class:`~robustdet.datasets.depth.DepthSource` config, relative to the
identity root).
"""
import json
import multiprocessing
import os
import os.path as osp
from typing import Any, Dict, Iterator, List, Optional, Sequence, Tuple

import cv2
import numpy as np
from tqdm import tqdm

from ..corruptions import (DEFAULT_BACKEND, DEFAULT_CALIBRATION,
                           check_severity, corrupt, get_corruption)
from ..corruptions.region import blend_region, check_region, region_weight
from ..datasets.depth import DepthSource
from ..utils.errors import RobustDetError
from ..utils.io import write_bytes_atomic
from ..utils.lifetime import die_with_parent
from ..utils.seeding import derive_seed
from .bad_images import read_image_bytes

IMAGE_EXTS = ('.jpg', '.jpeg', '.png', '.bmp', '.ppm', '.tif', '.tiff',
              '.webp')
# JPEG written at quality 100 without chroma subsampling: as close to the
# corrupted pixels as JPEG gets while keeping the file names (annotations
# still match). --lossless writes PNG instead.
_JPEG_PARAMS = [
    int(cv2.IMWRITE_JPEG_QUALITY), 100,
    int(cv2.IMWRITE_JPEG_SAMPLING_FACTOR),
    int(cv2.IMWRITE_JPEG_SAMPLING_FACTOR_444)
]


def list_images(src_dir: str) -> List[str]:
    """Image paths under ``src_dir``, relative, sorted, '/' separated."""
    found = []
    for root, dirs, files in os.walk(src_dir):
        dirs.sort()
        for name in sorted(files):
            if name.lower().endswith(IMAGE_EXTS):
                rel = osp.relpath(osp.join(root, name), src_dir)
                found.append(rel.replace(os.sep, '/'))
    return found


def check_dirs(src_dir: str, out_dir: str) -> None:
    """Refuse a missing source or an output inside the source tree."""
    if not osp.isdir(src_dir):
        raise RobustDetError(f'source directory not found: {src_dir}')
    src = osp.realpath(src_dir)
    out = osp.realpath(out_dir)
    if out == src or out.startswith(src + os.sep):
        raise RobustDetError(
            f'output {out_dir} is inside the source tree {src_dir}; '
            'robustdet never writes into a source dataset, choose another '
            '--out-dir')


def output_path(out_dir: str, rel: str, name: str, severity: int,
                lossless: bool, region: str = 'all') -> str:
    """Where the corrupted copy of ``rel`` goes."""
    if lossless:
        rel = osp.splitext(rel)[0] + '.png'
    if region != 'all':
        out_dir = osp.join(out_dir, f'region-{region}')
    return osp.join(out_dir, name, str(severity), rel)


def plan(src_dir: str, out_dir: str, names: Sequence[str],
         severities: Sequence[int], lossless: bool,
         region: str = 'all') -> Iterator[Tuple]:
    """The (rel, name, severity, out_path) jobs still to do."""
    for rel in list_images(src_dir):
        for name in names:
            for sev in severities:
                out = output_path(out_dir, rel, name, sev, lossless, region)
                if not osp.exists(out):
                    yield rel, name, sev, out


def coco_instances(ann_file: str,
                   rels: Sequence[str]) -> Dict[str, List[Dict[str, Any]]]:
    """The ground truth of each image of a COCO annotation file, as mmdet's
    data infos hold it (``bbox`` as x1, y1, x2, y2, ``mask`` the
    segmentation, ``ignore_flag`` = iscrowd), by ``file_name``.

    Args:
        ann_file (str): A COCO instances JSON.
        rels (Sequence[str]): The images (relative paths) that need it.

    Returns:
        dict: ``{rel: [instance, ...]}`` for every image of ``rels``.

    Raises:
        RobustDetError: The file is unreadable, or an image is not in it.
    """
    try:
        with open(ann_file, encoding='utf-8') as f:
            coco = json.load(f)
        ids = {im['file_name']: im['id'] for im in coco['images']}
        anns = coco['annotations']
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise RobustDetError(
            f'--ann-file {ann_file} is not a readable COCO annotation file: '
            f'{e}') from None
    missing = [r for r in rels if r not in ids]
    if missing:
        raise RobustDetError(
            f'{len(missing)} image(s) are not in --ann-file {ann_file}, '
            f'e.g. {missing[0]}; the file names of its images must be the '
            'paths relative to the source directory')
    by_id: Dict[Any, List[Dict[str, Any]]] = {}
    for ann in anns:
        x, y, w, h = ann['bbox']
        instance = dict(bbox=[x, y, x + w, y + h],
                        ignore_flag=int(ann.get('iscrowd', 0)))
        if ann.get('segmentation'):
            instance['mask'] = ann['segmentation']
        by_id.setdefault(ann['image_id'], []).append(instance)
    return {r: by_id.get(ids[r], []) for r in rels}


def corrupt_file(src_dir: str,
                 rel: str,
                 jobs: Sequence[Tuple[str, int, str]],
                 seed: int,
                 identity_prefix: str,
                 backend: str,
                 channel_order: str,
                 region: str = 'all',
                 instances: Optional[List[Dict[str, Any]]] = None,
                 depth: Optional[Dict[str, Any]] = None,
                 identity_root: Optional[str] = None) -> Optional[str]:
    """Read one image once and write all its corrupted copies.

    Args:
        src_dir (str): Source root.
        rel (str): Image path relative to ``src_dir``.
        jobs (Sequence[tuple]): ``(corruption, severity, out_path)``.
        seed (int): Run seed.
        identity_prefix (str): Prefix of ``rel`` in the image identity
            (the path of ``src_dir`` relative to the identity root).
        backend (str): Corruption backend.
        channel_order (str): ``'rgb'`` or ``'bgr'``.
        region (str): ``'all'``, ``'objects'`` or ``'background'``.
        instances (list[dict], optional): The image's ground truth, for a
            region other than ``'all'``.
        depth (dict, optional): A ``DepthSource`` config.
        identity_root (str, optional): What depth roots are relative to.

    Returns:
        str, optional: Why the image was skipped, or None.
    """
    data, reason = read_image_bytes(osp.join(src_dir, rel))
    if reason:
        return reason
    bgr = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    rgb = np.ascontiguousarray(bgr[..., ::-1])
    identity = identity_prefix + rel
    weight = None
    if region != 'all':
        weight = region_weight(rgb.shape[0], rgb.shape[1], instances or [])
    depth_map = None
    calibration = DEFAULT_CALIBRATION
    if depth is not None and any(get_corruption(n).needs_depth
                                 for n, _, _ in jobs):
        source = DepthSource.from_cfg(depth)
        calibration = source.calibration
        depth_map = source.load(osp.join(src_dir, rel), identity_root)
    for name, sev, out in jobs:
        img = corrupt(rgb, name, sev, seed=derive_seed(
            seed, identity, name, sev), backend=backend,
                      channel_order=channel_order, depth=depth_map,
                      depth_calibration=calibration)
        if weight is not None:
            img = blend_region(rgb, img, weight, region)
        ext = osp.splitext(out)[1].lower()
        params = _JPEG_PARAMS if ext in ('.jpg', '.jpeg') else []
        ok, buf = cv2.imencode(ext, np.ascontiguousarray(img[..., ::-1]),
                               params)
        if not ok:
            raise RobustDetError(f'cannot encode {out}')
        write_bytes_atomic(buf.tobytes(), out)
    return None


# The settings that decide a -C tree's pixels, kept in it: a rerun into
# the same folder skips the files that exist, so it must not change them.
SETTINGS_FILE = 'robustdet_corrupt.json'


def _comparable(settings: Dict[str, Any]) -> Dict[str, Any]:
    """Settings as compared: depth folders by their real path, so that
    ``d``, ``./d`` and its absolute path are one setting."""
    depth = settings.get('depth')
    if not depth:
        return settings
    depth = {k: osp.realpath(v) if k in ('root', 'image_root') and v else v
             for k, v in depth.items()}
    return dict(settings, depth=depth)


def check_settings(out_dir: str, settings: Dict[str, Any]) -> None:
    """Refuse to add to ``out_dir`` with other settings than its files
    were made with, then record ``settings`` there
    (:data:`SETTINGS_FILE`).

    A setting that is None (no depth needed) neither conflicts nor
    replaces a recorded one. A folder that already holds files but no
    record (made before the record existed) is neither checked nor
    recorded: what its files were made with is unknown.

    Args:
        out_dir (str): The output root.
        settings (dict): ``seed``, ``backend``, ``channel_order``,
            ``lossless``, ``identity_prefix`` and ``depth``.

    Raises:
        RobustDetError: If a recorded setting differs, or the record is
            not JSON (one line naming it, both values and the record).
    """
    path = osp.join(out_dir, SETTINGS_FILE)
    settings = _comparable(settings)
    recorded: Dict[str, Any] = {}
    if osp.exists(path):
        try:
            with open(path) as f:
                recorded = json.load(f)
        except (OSError, ValueError) as e:
            raise RobustDetError(
                f'{path} is not a readable settings record ({e}); remove '
                'it only if the files beside it were made with these '
                'settings') from None
    elif osp.isdir(out_dir) and os.listdir(out_dir):
        return
    for key, value in settings.items():
        old = recorded.get(key)
        if value is not None and old is not None and old != value:
            raise RobustDetError(
                f'{out_dir} holds copies made with {key} {old!r}, not '
                f'{value!r} ({path}); a rerun keeps the files that exist, '
                'so write these to another output folder')
    merged = dict(recorded)
    merged.update({k: v for k, v in settings.items() if v is not None})
    if merged != recorded:
        os.makedirs(out_dir, exist_ok=True)
        write_bytes_atomic(
            json.dumps(merged, indent=2, sort_keys=True).encode(), path)


def corrupt_tree(src_dir: str,
                 out_dir: str,
                 names: Sequence[str],
                 severities: Sequence[int],
                 seed: int = 0,
                 identity_root: Optional[str] = None,
                 backend: str = DEFAULT_BACKEND,
                 channel_order: str = 'rgb',
                 lossless: bool = False,
                 workers: int = 0,
                 skip_bad_images: bool = False,
                 progress: bool = True,
                 region: str = 'all',
                 ann_file: Optional[str] = None,
                 depth: Optional[Dict[str, Any]] = None
                 ) -> Dict[str, object]:
    """Write the -C copies of every image under ``src_dir``.

    Args:
        src_dir (str): Source image tree.
        out_dir (str): Output root (not inside ``src_dir``).
        names (Sequence[str]): Corruptions.
        severities (Sequence[int]): Severities 1-5.
        seed (int): Run seed.
        identity_root (str, optional): The dataset ``data_root`` whose
            ``test_robust.py`` seeds to reproduce; default ``src_dir``.
        backend (str): Corruption backend.
        channel_order (str): ``'rgb'`` or ``'bgr'``.
        lossless (bool): Write PNG (renames ``.jpg`` files) instead of
            keeping file names with quality-100 JPEG.
        workers (int): Processes (0 = this process).
        skip_bad_images (bool): Skip unreadable images (listed in the
            return value) instead of stopping.
        progress (bool): Show a progress bar.
        region (str): ``'all'``, ``'objects'`` or ``'background'`` (needs
            ``ann_file``).
        ann_file (str, optional): COCO annotation file whose image file
            names are the paths relative to ``src_dir``.
        depth (dict, optional): Where the depth-aware corruptions read
            depth (a ``DepthSource`` config).

    Returns:
        dict: ``written`` (number of files) and ``skipped`` (list of
        ``(path, reason)``).

    Raises:
        RobustDetError: Besides bad arguments, when ``out_dir`` holds
            copies made with another seed, backend, channel order, file
            format, identity root or depth setting (:func:`check_settings`).
    """
    for name in names:
        get_corruption(name)
    for sev in severities:
        check_severity(sev)
    check_region(region)
    if region != 'all' and ann_file is None:
        raise RobustDetError(
            f'--region {region} needs the ground truth: pass --ann-file '
            '(COCO instances JSON of the source images)')
    needs_depth = [n for n in names if get_corruption(n).needs_depth]
    if needs_depth and depth is None:
        raise RobustDetError(
            f'{", ".join(needs_depth)} need(s) a depth map per image: pass '
            '--depth cityscapes or --depth-folder DIR --depth-suffix SUFFIX '
            '--depth-scale S')
    if depth is not None:
        depth = DepthSource.from_cfg(depth).to_cfg()
    check_dirs(src_dir, out_dir)
    root = identity_root if identity_root is not None else src_dir
    prefix = osp.relpath(osp.abspath(src_dir), osp.abspath(root))
    if prefix.startswith(osp.pardir):
        raise RobustDetError(
            f'--identity-root {identity_root} must contain {src_dir}')
    prefix = '' if prefix == '.' else prefix.replace(os.sep, '/') + '/'
    if not list_images(src_dir):
        raise RobustDetError(f'no images ({", ".join(IMAGE_EXTS)}) under '
                             f'{src_dir}')
    by_image: Dict[str, List[Tuple[str, int, str]]] = {}
    for rel, name, sev, out in plan(src_dir, out_dir, names, severities,
                                    lossless, region):
        by_image.setdefault(rel, []).append((name, sev, out))
    instances = (coco_instances(ann_file, list(by_image))
                 if region != 'all' else {})
    check_settings(out_dir, dict(
        seed=seed, backend=backend, channel_order=channel_order,
        lossless=lossless, identity_prefix=prefix,
        depth=depth if needs_depth else None))
    args = [(src_dir, rel, jobs, seed, prefix, backend, channel_order,
             region, instances.get(rel), depth, root)
            for rel, jobs in by_image.items()]
    skipped = []
    written = 0
    bar = tqdm(total=len(args), unit='img', disable=not progress,
               desc='corrupting')
    if workers > 0:
        # The workers end with this process, even killed (kill -9).
        pool = multiprocessing.get_context('spawn').Pool(
            workers, initializer=die_with_parent, initargs=(os.getpid(), ))
        outcomes = pool.imap(_star_corrupt_file, args)
    else:
        pool = None
        outcomes = map(_star_corrupt_file, args)
    try:
        for arg, reason in zip(args, outcomes):
            bar.update(1)
            if reason:
                path = osp.join(src_dir, arg[1])
                if not skip_bad_images:
                    raise RobustDetError(
                        f'unreadable image {path} ({reason}); pass '
                        '--skip-bad-images to skip and list it')
                skipped.append((path, reason))
            else:
                written += len(arg[2])
    finally:
        bar.close()
        if pool is not None:
            pool.terminate()
    return dict(written=written, skipped=skipped)


def _star_corrupt_file(args):
    return corrupt_file(*args)
