# Copyright (c) robustdet contributors. All rights reserved.
"""Stylize a dataset: every image gets a seeded style, keeps its size and
file name, and lands in a mirrored layout with its annotations.

``OUT/stylize_manifest.json`` records the source, the settings, the
weights and the skipped images; ``OUT/style_assignments.csv`` which style
each output got. With ``num_styles`` K > 1 the K copies are complete
datasets of their own under ``OUT/copy0`` ... ``OUT/copy{K-1}``; with
K = 1 the dataset is ``OUT`` itself.

Reruns resume: an output that exists is finished (files are written
atomically), and the style of an image is a function of (seed, image key,
copy), so the pairs never change. A rerun with other settings into the
same directory is refused.

In a launched job (``tools/stylize_dataset.py --launcher ...``) the images
are divided over the ranks (image i goes to rank i mod world size, all its
copies with it); each rank writes the stylized files of its images, rank 0
everything else (manifest, assignments, annotations) once all are done.
With batches of one image the files are those of a single process, byte
for byte.
"""
import copy
import csv
import hashlib
import json
import os
import os.path as osp
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any, Dict, Iterator, List, Optional, Sequence, Tuple

import cv2
import mmcv
import numpy as np
import torch
from mmengine.utils import ProgressBar

from ..apis.bad_images import check_image_bytes
from ..utils.dist import barrier, gather_objects, rank_and_world
from ..utils.errors import RobustDetError
from ..utils.io import dump_json_atomic, sha256_file, write_bytes_atomic
from ..utils.seeding import derive_seed
from ..utils.watchdog import progress_begin, progress_idle, progress_tick
from ..version import __version__
from .adain import AdaIN, load_adain, weight_paths

MANIFEST = 'stylize_manifest.json'
ASSIGNMENTS = 'style_assignments.csv'
FORMAT = 'robustdet-stylize/1'
STYLE_EXTS = ('.jpg', '.jpeg', '.png', '.bmp', '.ppm', '.tif', '.tiff',
              '.webp')
# Style statistics kept in memory (1024 floats each).
STYLE_CACHE = 4096
# Buffered content images, in batches, before the largest group is run
# even if it is not full (bounds memory with many image sizes).
MAX_BUFFERED_BATCHES = 4


def list_styles(style_dir: str) -> List[str]:
    """Style images under ``style_dir``: relative paths, sorted."""
    if not osp.isdir(style_dir):
        raise RobustDetError(f'style directory not found: {style_dir}')
    found = []
    for root, dirs, files in os.walk(style_dir):
        dirs.sort()
        for name in sorted(files):
            if name.lower().endswith(STYLE_EXTS) and not name.startswith('.'):
                rel = osp.relpath(osp.join(root, name), style_dir)
                found.append(rel.replace(os.sep, '/'))
    if not found:
        raise RobustDetError(
            f'no style images ({", ".join(STYLE_EXTS)}) in {style_dir}')
    return found


def assign_style(seed: int, key: str, copy: int, num_styles: int) -> int:
    """Index of the style for copy ``copy`` of image ``key``: a stable
    function of its arguments (same pairs in every run)."""
    return derive_seed(seed, key, copy, 'style') % num_styles


def copy_root(out_dir: str, copy: int, num_copies: int) -> str:
    """The dataset root of one stylized copy."""
    return out_dir if num_copies == 1 else osp.join(out_dir, f'copy{copy}')


def resize_short_edge(img: np.ndarray, size: int) -> np.ndarray:
    """Resize so that the shorter side is ``size`` (0: unchanged)."""
    h, w = img.shape[:2]
    if size <= 0 or min(h, w) == size:
        return img
    scale = size / min(h, w)
    new = (max(1, round(w * scale)), max(1, round(h * scale)))
    interp = cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR
    return cv2.resize(img, new, interpolation=interp)


def decode_rgb(data: bytes) -> np.ndarray:
    """Decode image bytes as mmdet does (OpenCV, colour) into RGB."""
    try:
        img = mmcv.imfrombytes(data, flag='color', channel_order='rgb')
    except cv2.error:
        img = None
    if img is None:
        raise ValueError('cannot decode the image')
    return img


def encode_like(img: np.ndarray, path: str, jpeg_quality: int) -> bytes:
    """Encode RGB ``img`` in the format of ``path``'s extension."""
    ext = osp.splitext(path)[1].lower()
    params = []
    if ext in ('.jpg', '.jpeg'):
        params = [int(cv2.IMWRITE_JPEG_QUALITY), jpeg_quality]
    ok, buf = cv2.imencode(ext, np.ascontiguousarray(img[..., ::-1]), params)
    if not ok:
        raise RobustDetError(f'cannot encode {ext} for {path}')
    return buf.tobytes()


def check_out_dir(out_dir: str, inputs: Sequence[str]) -> None:
    """Refuse an output directory inside (or equal to) an input tree."""
    out = osp.realpath(out_dir)
    for src in inputs:
        src = osp.realpath(src)
        if out == src or out.startswith(src + os.sep):
            raise RobustDetError(
                f'--out-dir {out_dir} is inside the input tree {src}; '
                'robustdet never writes into a source dataset')


class Stylizer:
    """Runs AdaIN on batches on a device, falling back on out-of-memory:
    a batch that does not fit is split, and a single image that does not
    fit runs on the CPU (never skipped).

    Args:
        model (AdaIN): The model (moved to ``device``).
        device (str | torch.device): Where to run.
        alpha (float): Style weight in [0, 1].
    """

    def __init__(self, model: AdaIN, device: Any, alpha: float) -> None:
        self.device = torch.device(device)
        self.model = model.to(self.device)
        self.alpha = alpha
        self._cpu_model: Optional[AdaIN] = None
        self.cpu_fallbacks = 0

    def _cpu(self) -> AdaIN:
        """The CPU copy of the model (made on first need)."""
        if self._cpu_model is None:
            self._cpu_model = copy.deepcopy(self.model).cpu()
        return self._cpu_model

    def _apply(self, x: torch.Tensor, mean: torch.Tensor, std: torch.Tensor,
               on_fallback: bool) -> torch.Tensor:
        """Run the model; ``on_fallback`` runs the CPU copy, unwatched by
        the distributed watchdog (it may take many times a batch); the
        step after it is timed, not watched."""
        if on_fallback:
            progress_idle()
            try:
                return self._cpu()(x.cpu(), mean.cpu(), std.cpu(),
                                   self.alpha)
            finally:
                progress_begin()
        dev = self.device
        return self.model(x.to(dev), mean.to(dev), std.to(dev), self.alpha)

    def _out_of_memory(self) -> None:
        if self.device.type == 'cuda':
            torch.cuda.empty_cache()

    def __call__(self, x: torch.Tensor, mean: torch.Tensor,
                 std: torch.Tensor) -> torch.Tensor:
        """Stylize (N, 3, H, W) in [0, 1]; returns a CPU tensor."""
        try:
            return self._apply(x, mean, std, False).cpu()
        except torch.OutOfMemoryError:
            self._out_of_memory()
        if x.shape[0] > 1:
            half = x.shape[0] // 2
            return torch.cat([
                self(x[:half], mean[:half], std[:half]),
                self(x[half:], mean[half:], std[half:])
            ])
        self.cpu_fallbacks += 1
        return self._apply(x, mean, std, True)

    def style_stats(self,
                    style: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
        """Style mean and std (on the CPU), with the same fallback."""
        try:
            stats = self.model.style_stats(style.to(self.device))
        except torch.OutOfMemoryError:
            self._out_of_memory()
            self.cpu_fallbacks += 1
            progress_idle()  # unwatched, as a batch's fallback
            try:
                stats = self._cpu().style_stats(style.cpu())
            finally:
                progress_begin()
        return stats[0].cpu(), stats[1].cpu()


def to_tensor(img: np.ndarray) -> torch.Tensor:
    """(H, W, 3) uint8 RGB to (3, H, W) float in [0, 1]."""
    return torch.from_numpy(np.ascontiguousarray(img)).permute(
        2, 0, 1).float().div_(255)


def to_uint8(img: torch.Tensor) -> np.ndarray:
    """(3, H, W) in [0, 1] to (H, W, 3) uint8, rounding half up."""
    return img.mul(255).add_(0.5).clamp_(0, 255).byte().permute(1, 2,
                                                               0).numpy()


@dataclass
class StylizeJob:
    """What to stylize and how.

    Args:
        layout: A :mod:`~robustdet.stylize.layouts` layout.
        style_dir (str): Directory of style images (searched recursively).
        out_dir (str): Output root (not inside the input tree).
        alpha (float): Style weight in [0, 1] (paper: 1).
        num_styles (int): Stylized copies per image.
        seed (int): Seed of the style assignment.
        content_size (int): Stylize at this shorter side, then resize back
            to the input size (0: at the input size).
        style_size (int): Shorter side styles are resized to (0: keep).
        device (str): Torch device.
        batch_size (int): Images of equal size per forward pass.
        weights_dir (str, optional): Directory with the AdaIN weight files
            (default: torch hub cache / download).
        jpeg_quality (int): Quality of JPEG outputs.
        weights (str): Recorded identity of the weights (default: the
            sha256 of the files used).
    """
    layout: Any
    style_dir: str
    out_dir: str
    alpha: float = 1.0
    num_styles: int = 1
    seed: int = 0
    content_size: int = 0
    style_size: int = 512
    device: str = 'cpu'
    batch_size: int = 1
    weights_dir: Optional[str] = None
    jpeg_quality: int = 95
    weights: Dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not 0.0 <= self.alpha <= 1.0:
            raise RobustDetError(f'--alpha must be in [0, 1], got '
                                 f'{self.alpha}')
        for name in ('num_styles', 'batch_size'):
            if getattr(self, name) < 1:
                raise RobustDetError(f'--{name.replace("_", "-")} must be '
                                     f'>= 1, got {getattr(self, name)}')
        for name in ('content_size', 'style_size'):
            if getattr(self, name) < 0:
                raise RobustDetError(f'--{name.replace("_", "-")} must be '
                                     f'>= 0, got {getattr(self, name)}')
        if not 1 <= self.jpeg_quality <= 100:
            raise RobustDetError('--jpeg-quality must be in [1, 100]')
        check_out_dir(self.out_dir, list(self.layout.inputs))
        check_out_dir(self.out_dir, [self.style_dir])
        self.styles = list_styles(self.style_dir)

    def settings(self) -> Dict[str, Any]:
        """What determines the output pixels (checked on resume)."""
        listing = '\n'.join(self.styles).encode('utf-8')
        return dict(
            source=self.layout.describe(),
            style_dir=osp.abspath(self.style_dir),
            num_style_images=len(self.styles),
            style_list_sha256=hashlib.sha256(listing).hexdigest(),
            alpha=self.alpha,
            num_styles=self.num_styles,
            seed=self.seed,
            content_size=self.content_size,
            style_size=self.style_size,
            jpeg_quality=self.jpeg_quality,
            weights=self.weights)

    def outputs(self,
                rank: int = 0,
                world_size: int = 1) -> Iterator[Tuple[str, str, int, str,
                                                       str]]:
        """(key, source, copy, style, output path) for every output (of
        the images of ``rank``: every ``world_size``-th, from the
        ``rank``-th)."""
        for i, (key, src, rel) in enumerate(self.layout.items()):
            if i % world_size != rank:
                continue
            for k in range(self.num_styles):
                style = self.styles[assign_style(self.seed, key, k,
                                                 len(self.styles))]
                root = copy_root(self.out_dir, k, self.num_styles)
                yield key, src, k, style, osp.join(root, rel)


def _check_resume(job: StylizeJob, settings: Dict[str, Any]) -> None:
    path = osp.join(job.out_dir, MANIFEST)
    if not osp.exists(path):
        return
    try:
        with open(path) as f:
            old = json.load(f)['settings']
    except (ValueError, KeyError, TypeError):
        raise RobustDetError(
            f'{path} is not a robustdet stylization manifest; use another '
            '--out-dir') from None
    diff = [k for k in settings if old.get(k) != settings[k]]
    if diff:
        k = diff[0]
        raise RobustDetError(
            f'{job.out_dir} holds a stylization with other settings ({k}: '
            f'{old.get(k)!r} there, {settings[k]!r} now); use another '
            '--out-dir')


def _write_manifest(job: StylizeJob, settings: Dict[str, Any], status: str,
                    **extra: Any) -> None:
    manifest = dict(
        format=FORMAT,
        robustdet_version=__version__,
        status=status,
        settings=settings,
        images=len(job.layout),
        copies=[
            osp.relpath(copy_root(job.out_dir, k, job.num_styles),
                        job.out_dir) for k in range(job.num_styles)
        ],
        assignments=ASSIGNMENTS)
    manifest.update(extra)
    dump_json_atomic(manifest, osp.join(job.out_dir, MANIFEST))


class _StyleBank:
    """Style statistics by style path, computed on first use (LRU)."""

    def __init__(self, job: StylizeJob, stylizer: Stylizer) -> None:
        self.job = job
        self.stylizer = stylizer
        self.cache: OrderedDict[str, Tuple] = OrderedDict()

    def get(self, style: str) -> Tuple[torch.Tensor, torch.Tensor]:
        if style in self.cache:
            self.cache.move_to_end(style)
            return self.cache[style]
        path = osp.join(self.job.style_dir, style)
        try:
            with open(path, 'rb') as f:
                data = f.read()
            img = decode_rgb(data)
        except (OSError, ValueError) as e:
            raise RobustDetError(
                f'cannot read style image {path} ({e}); remove it from '
                '--style-dir (the assignment depends on the list, so it is '
                'not skipped silently) and rerun with another --out-dir'
            ) from None
        img = resize_short_edge(img, self.job.style_size)
        stats = self.stylizer.style_stats(to_tensor(img)[None])
        self.cache[style] = stats
        if len(self.cache) > STYLE_CACHE:
            self.cache.popitem(last=False)
        return stats


def run_stylize(job: StylizeJob,
                model: Optional[AdaIN] = None,
                stylizer: Optional[Stylizer] = None,
                limit: Optional[int] = None,
                progress: bool = True) -> Dict[str, Any]:
    """Stylize what is not done yet, then write annotations and records.

    Args:
        job (StylizeJob): What to do.
        model (AdaIN, optional): Default: :func:`load_adain` with
            ``job.weights_dir``.
        stylizer (Stylizer, optional): Overrides ``model`` (tests).
        limit (int, optional): Stop after this many new outputs, leaving
            the job unfinished (to test resuming).
        progress (bool): Show a progress bar with ETA.

    Returns:
        dict: ``written``, ``skipped`` ([key, reason]), ``total``,
        ``cpu_fallbacks``, ``complete``, ``seconds``; of all the ranks in a
        launched job.
    """
    if stylizer is None:
        if model is None:
            paths = weight_paths(job.weights_dir)
            job.weights = job.weights or {
                osp.basename(p): sha256_file(p)
                for p in paths
            }
            model = load_adain(job.weights_dir)
        stylizer = Stylizer(model, job.device, job.alpha)
    settings = job.settings()
    _check_resume(job, settings)  # every rank: all refuse alike
    rank, world_size = rank_and_world()
    if rank == 0:
        os.makedirs(job.out_dir, exist_ok=True)
        _write_manifest(job, settings, 'running')
    barrier()

    # Streamed (twice), so memory does not grow with the dataset.
    num_todo = sum(not osp.exists(o[4])
                   for o in job.outputs(rank, world_size))
    todo = (o for o in job.outputs(rank, world_size)
            if not osp.exists(o[4]))
    total = len(job.layout) * job.num_styles
    bar = None
    if progress and num_todo and rank == 0:
        print(f'stylizing {num_todo} of {total} outputs '
              f'({total - num_todo} already done)')
        bar = ProgressBar(num_todo)
    bank = _StyleBank(job, stylizer)
    skipped: Dict[str, str] = {}
    groups: Dict[Tuple[int, ...], List] = {}
    written = 0
    start = time.perf_counter()

    def flush(shape):
        nonlocal written
        batch = groups.pop(shape)
        x = torch.stack([b[0] for b in batch])
        means, stds = zip(*(bank.get(b[2]) for b in batch))
        out = stylizer(x, torch.cat(means), torch.cat(stds))
        for img, (_, orig_hw, _, path) in zip(out, batch):
            result = to_uint8(img)
            if result.shape[:2] != orig_hw:
                result = cv2.resize(
                    result, (orig_hw[1], orig_hw[0]),
                    interpolation=cv2.INTER_LINEAR)
            write_bytes_atomic(
                encode_like(result, path, job.jpeg_quality), path)
            written += 1
            if bar is not None:
                bar.update()
        progress_tick()

    stopped = False
    done_now = set()
    loaded: Tuple[Optional[str], Any, Any] = (None, None, None)
    # Every batch is a step of the distributed watchdog: a rank whose
    # main thread is stuck in one stops the others (the first is timed).
    progress_begin()
    for key, src, _copy, style, path in todo:
        if limit is not None and written + sum(
                len(g) for g in groups.values()) >= limit:
            stopped = True
            break
        if key in skipped:
            continue
        # The copies of an image come one after another: read it once.
        if loaded[0] != key:
            try:
                with open(src, 'rb') as f:
                    data = f.read()
                reason = check_image_bytes(data)
                if reason:
                    raise ValueError(reason)
                img = decode_rgb(data)
            except (OSError, ValueError) as e:
                skipped[key] = str(e) or type(e).__name__
                continue
            loaded = (key, img,
                      to_tensor(resize_short_edge(img, job.content_size)))
        _, img, x = loaded
        shape = tuple(x.shape)
        done_now.add(key)
        groups.setdefault(shape, []).append((x, img.shape[:2], style, path))
        if len(groups[shape]) >= job.batch_size:
            flush(shape)
        elif sum(len(g) for g in groups.values()) >= (
                MAX_BUFFERED_BATCHES * job.batch_size):
            flush(max(groups, key=lambda s: len(groups[s])))
    for shape in list(groups):
        flush(shape)
    progress_idle()  # the ranks gather: no step is due while they wait
    if bar is not None and written:
        print()

    # What every rank did (after its last file is written).
    parts = gather_objects(
        dict(written=written, skipped=skipped, done=done_now,
             stopped=stopped, cpu_fallbacks=stylizer.cpu_fallbacks))
    done_now = set().union(*(p['done'] for p in parts))
    # Images an earlier run skipped stay skipped unless they worked now.
    skipped_all = {
        key: reason
        for key, reason in _previous_skips(job) if key not in done_now
    }
    for part in parts:
        skipped_all.update(part['skipped'])
    complete = not any(p['stopped'] for p in parts)
    result = dict(
        written=sum(p['written'] for p in parts),
        skipped=sorted([k, r] for k, r in skipped_all.items()),
        total=total,
        cpu_fallbacks=sum(p['cpu_fallbacks'] for p in parts),
        complete=complete,
        seconds=round(time.perf_counter() - start, 3))
    if rank == 0:
        _write_records(job, settings, result, set(skipped_all))
    barrier()  # every rank returns with the records written
    return result


def _write_records(job: StylizeJob, settings: Dict[str, Any],
                   result: Dict[str, Any], skipped: set) -> None:
    """The manifest, and for a complete job the annotations and the
    style assignments."""
    if not result['complete']:
        _write_manifest(job, settings, 'running', skipped=result['skipped'])
        return
    done = {key for key, *_ in job.layout.items()} - skipped
    annotations = []
    for k in range(job.num_styles):
        root = copy_root(job.out_dir, k, job.num_styles)
        annotations += [
            osp.relpath(p, job.out_dir)
            for p in job.layout.finish(root, done)
        ]
    _write_assignments(job, skipped)
    _write_manifest(
        job,
        settings,
        'complete',
        skipped=result['skipped'],
        annotation_files=annotations)


def _previous_skips(job: StylizeJob) -> List[Tuple[str, str]]:
    path = osp.join(job.out_dir, MANIFEST)
    try:
        with open(path) as f:
            return [tuple(s) for s in json.load(f).get('skipped', [])]
    except (OSError, ValueError):
        return []


def _write_assignments(job: StylizeJob, skipped: set) -> None:
    """Which style went to which output, streamed to a temporary file that
    replaces the record when complete."""
    path = osp.join(job.out_dir, ASSIGNMENTS)
    tmp = path + '.tmp'
    with open(tmp, 'w', newline='') as f:
        writer = csv.writer(f, lineterminator='\n')
        writer.writerow(['image', 'copy', 'style', 'output'])
        for key, _, k, style, out in job.outputs():
            if key not in skipped:
                writer.writerow(
                    [key, k, style, osp.relpath(out, job.out_dir)])
    os.replace(tmp, path)
