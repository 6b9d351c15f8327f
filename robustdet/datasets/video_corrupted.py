# Copyright (c) robustdet contributors. All rights reserved.
"""Video detection datasets under clip corruptions (codecs, transmission
errors, temporal perturbations, camera motion).

For each annotated frame, its clip (a window of frames of the same video,
see :mod:`robustdet.datasets.video_clips`) is corrupted with a clip
corruption of :mod:`robustdet.video`, and the frame at the item's
position is what the pipeline gets instead of the clean image; camera
corruptions also move its ground-truth boxes. A clip is corrupted once
and shared by every item (and dataloader worker) that needs it.
"""
import weakref
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

import numpy as np
from mmdet.registry import DATASETS
from mmengine.dataset import BaseDataset, Compose

from ..corruptions import CLEAN_SEVERITY, check_severity
from ..utils.errors import RobustDetError
from ..utils.seeding import derive_seed
from ..video.boxes import transform_boxes
from ..video.table import corrupt_clip, get_clip_corruption
from .corrupted import WrappedDataset
from .multi_corrupted import MultiCellPipeline
from .video_clips import (ClipIndex, ClipStore, VideoFrames,
                          check_clip_settings, load_video_ann)

Cell = Tuple[str, int]


def clip_seed(seed: int, clip_key: str, corruption: str) -> int:
    """The seed a clip is corrupted with: run seed, clip identity and
    corruption, not the severity (so that a higher severity's damage
    contains a lower one's, see :mod:`robustdet.video.codecs`)."""
    return derive_seed(seed, 'clip', clip_key, corruption)


class VideoCellPipeline(MultiCellPipeline):
    """A pipeline that loads a frame once and returns one sample per cell,
    the image of each replaced by its frame of the corrupted clip.

    Runs the original pipeline up to and including the image loading step,
    then per active cell a copy of that result, with the corrupted frame
    (and, for camera motion, the moved ``instances``), through the rest.

    Args:
        pipeline (Compose): The dataset's built pipeline (not modified).
        owner (_VideoCells): The dataset wrapper (clips, store, seed).
    """

    def __init__(self, pipeline: Compose, owner: '_VideoCells') -> None:
        super().__init__(pipeline, {})
        self.loader = self.head[-1]
        self.owner = owner
        self.active = []
        self.loads_masks = any(
            getattr(t, 'with_mask', False) for t in self.transforms)

    def load_frames(self, paths: Sequence[str]) -> np.ndarray:
        """Decode frames with the pipeline's own loading step, as a
        (T, H, W, 3) uint8 array in the loader's channel order."""
        frames = []
        for path in paths:
            img = self.loader(dict(img_path=path))['img']
            if img.ndim != 3 or img.shape[2] != 3:
                raise RobustDetError(
                    f'clip corruptions need 3-channel frames; {path} loads '
                    f'as shape {img.shape}')
            if frames and img.shape != frames[0].shape:
                raise RobustDetError(
                    f'frames of one video differ in size: {paths[0]} is '
                    f'{frames[0].shape[:2]}, {path} is {img.shape[:2]}')
            frames.append(np.clip(np.rint(img), 0, 255).astype(np.uint8)
                          if img.dtype != np.uint8 else img)
        return np.stack(frames)

    def corrupt(self, sample: dict, cell: Cell) -> dict:
        """The loaded sample with its frame of the cell's corrupted clip
        (and, for camera motion, its moved instances)."""
        if cell[1] == CLEAN_SEVERITY:
            return sample
        frame, transform = self.owner.corrupted_frame(
            sample['img_path'], anchor_path(sample), cell, self)
        img = sample['img']
        if frame.shape != img.shape:
            raise RobustDetError(
                f'{sample["img_path"]}: the clip frame has shape '
                f'{frame.shape}, the loaded image {img.shape}')
        sample['img'] = frame.astype(img.dtype, copy=False)
        sample['corruption'], sample['severity'] = cell
        if transform is not None:
            if 'gt_bboxes' in sample:
                raise RobustDetError(
                    f'{cell[0]} moves the ground truth, but the pipeline '
                    'loads annotations before the image')
            if self.loads_masks:
                raise RobustDetError(
                    f'{cell[0]} moves boxes only; the pipeline loads masks '
                    '(LoadAnnotations with_mask=True)')
            height, width = img.shape[:2]
            sample['instances'] = move_instances(
                sample.get('instances', []), transform, width, height)
        return sample


def move_instances(instances: Sequence[dict], transform: np.ndarray,
                   width: int, height: int) -> List[dict]:
    """Instances with their boxes moved by a frame's transform; boxes that
    leave the frame are dropped (:func:`robustdet.video.transform_boxes`).

    Args:
        instances (Sequence[dict]): mmdet instances (``bbox`` x1y1x2y2).
        transform (np.ndarray): (3, 3) input-to-output transform.
        width (int): Frame width.
        height (int): Frame height.

    Returns:
        list[dict]: The kept instances (masks removed), in order.
    """
    if not instances:
        return []
    boxes = np.array([i['bbox'] for i in instances], dtype=np.float64)
    moved, keep = transform_boxes(boxes, transform, width, height)
    out = []
    for inst, box, k in zip(instances, moved, keep):
        if k:
            inst = {key: v for key, v in inst.items() if key != 'mask'}
            inst['bbox'] = [float(v) for v in box]
            out.append(inst)
    return out


class _VideoCells(WrappedDataset):
    """What the video corruption wrappers share: the clip index, the store
    and the per-leaf pipelines."""

    def _setup(self, dataset: Union[dict, BaseDataset], cells: List[Cell],
               seed: int, clip_len: int, clip_mode: str, frames_from: str,
               short_clips: str, channel_order: str,
               cache_dir: Optional[str], lazy_init: bool) -> None:
        check_clip_settings(clip_len, clip_mode, frames_from, short_clips)
        if channel_order not in ('rgb', 'bgr'):
            raise RobustDetError(f'unknown channel_order {channel_order!r}; '
                                 'valid: rgb, bgr')
        for name, severity in cells:
            if severity != CLEAN_SEVERITY:
                get_clip_corruption(name)
        self.cells = cells
        self.seed = seed
        self.clip_len = clip_len
        self.clip_mode = clip_mode
        self.frames_from = frames_from
        self.short_clips = short_clips
        self.channel_order = channel_order
        self.cache_dir = cache_dir
        self.index: Optional[ClipIndex] = None
        self.store: Optional[ClipStore] = None
        self._leaves = self._wrap(dataset)
        self._pipelines: List[VideoCellPipeline] = []
        for leaf in self._leaves:
            leaf.pipeline = VideoCellPipeline(leaf.pipeline, self)
            self._pipelines.append(leaf.pipeline)
        self._clean: Tuple[Optional[str], Optional[np.ndarray]] = (None, None)
        self._finish_init(lazy_init)

    def full_init(self) -> None:
        """Initialize the wrapped dataset, index its clips and check that
        they are long enough for the corruptions."""
        if self._fully_initialized:
            return
        self.dataset.full_init()
        infos = [self.dataset.get_data_info(i)
                 for i in range(len(self.dataset))]
        mode = self.clip_mode
        if mode == 'auto':
            mode = ('anchor' if infos and all('anchor_key' in i
                                              for i in infos) else
                    'segment')
        source = self.frames_from
        anns = []
        if source != 'dir':
            for leaf in self._leaves:
                ann_file = getattr(leaf, 'ann_file', None)
                prefix = (getattr(leaf, 'data_prefix', None) or {}).get(
                    'img', '')
                anns.append((load_video_ann(ann_file), prefix, ann_file))
            bad = [a for d, _, a in anns if d is None]
            if source == 'ann' and bad:
                raise RobustDetError(
                    "frames_from='ann' needs CocoVID json annotations "
                    '(videos, images with video_id and frame_id); '
                    f'{bad[0]!r} is not')
            source = 'dir' if bad else 'ann'
        self.resolved = dict(clip_mode=mode, frames_from=source)
        items = [(i['img_path'], anchor_path(i)) for i in infos]
        self._keys = items
        roots = [getattr(leaf, 'data_root', None) or ''
                 for leaf in self._leaves]
        self.index = ClipIndex(items, VideoFrames(source, anns),
                               self.clip_len, mode, roots)
        self._check_short(self.cells)
        if self.store is None:
            self.store = ClipStore(self.cache_dir)
            weakref.finalize(self, self.store.close)
        self._fully_initialized = True

    def serve(self, indices: Sequence[int]) -> None:
        """Count the clips' uses over the items this process serves only.

        With the items split over ranks, a rank then deletes each clip
        from its store once it has served its own items of it (counted
        over the whole dataset, it would keep every clip to the end).

        Args:
            indices (Sequence[int]): The items this process serves, a
                repeated one once per time.
        """
        self.full_init()
        self.index.count_uses([self._keys[i] for i in indices])

    def _check_short(self, cells: Sequence[Cell]) -> None:
        shortest = self.index.shortest()
        if shortest is None or self.short_clips == 'pad':
            return
        for name, severity in cells:
            if severity == CLEAN_SEVERITY:
                continue
            need = get_clip_corruption(name).min_frames
            if len(shortest.paths) < need:
                raise RobustDetError(
                    f'{name} needs clips of at least {need} frames; video '
                    f'{shortest.video} has {shortest.num_video_frames} '
                    f"(clip_len={self.clip_len}); pass short_clips='pad' "
                    '(--short-clips pad) to repeat its last frame')

    def corrupted_frame(self, path: str, anchor: Optional[str], cell: Cell,
                        pipeline: VideoCellPipeline
                        ) -> Tuple[np.ndarray, Optional[np.ndarray]]:
        """An item's frame of its corrupted clip (in the loader's channel
        order) and its box transform."""
        clip, pos, uses = self.index.lookup(path, anchor)
        name, severity = cell
        corruption = get_clip_corruption(name)
        seed = clip_seed(self.seed, clip.key, name)

        def compute():
            frames = self._clean_clip(clip, pipeline)
            n = len(frames)
            if n < corruption.min_frames:
                # short_clips='pad' (else full_init refused): repeat the
                # last frame, corrupt, keep the clip's own frames.
                frames = np.concatenate(
                    [frames] + [frames[-1:]] * (corruption.min_frames - n))
            rgb = self.channel_order == 'rgb'
            src = np.ascontiguousarray(frames[..., ::-1]) if rgb else frames
            result = corrupt_clip(src, name, severity, seed=seed)
            out = result.frames[:n]
            result.frames = (np.ascontiguousarray(out[..., ::-1])
                             if rgb else out)
            if result.transforms is not None:
                result.transforms = result.transforms[:n]
            return result

        key = f'{clip.key}|{name}|{severity}|{seed}|{self.channel_order}'
        return self.store.frame(key, pos, uses, compute)

    def _clean_clip(self, clip, pipeline: VideoCellPipeline) -> np.ndarray:
        """The clip's clean frames, kept for the next cell of the same clip
        (a pass corrupts one clip several ways)."""
        key, frames = self._clean
        if key != clip.key:
            frames = pipeline.load_frames(clip.paths)
            self._clean = (clip.key, frames)
        return frames

    def _activate(self, cells: Sequence[Cell]) -> None:
        for pipeline in self._pipelines:
            pipeline.active = list(cells)

    def __getstate__(self) -> Dict[str, Any]:
        state = dict(self.__dict__)
        state['_clean'] = (None, None)
        return state


def anchor_path(info: dict) -> Optional[str]:
    """The anchor's image path of a neighbour-set item (None otherwise)."""
    anchor, key = info.get('anchor_key'), info.get('frame_key')
    if anchor is None:
        return None
    path = info['img_path']
    if key is None or not path.endswith(key):
        raise RobustDetError(
            f'neighbour-set item {path} has an anchor_key but its path does '
            'not end with its frame_key')
    return path[:len(path) - len(key)] + anchor


def _cells(cells: Sequence[Sequence]) -> List[Cell]:
    out = [(str(c[0]), check_severity(int(c[1]), allow_clean=True))
           for c in cells]
    if not out:
        raise RobustDetError('no cells given')
    if len(set(out)) != len(out):
        raise RobustDetError(f'repeated cells in {out}')
    return out


_ARGS_DOC = """
        seed (int): Run seed; each clip's seed derives from it, the clip's
            first frame and length, and the corruption.
        clip_len (int): Frames per clip (default 32; see
            :mod:`robustdet.datasets.video_clips`).
        clip_mode (str): ``'segment'``, ``'anchor'`` or ``'auto'``
            (anchor for neighbour-set items, else segment).
        frames_from (str): Where the frames of a video come from:
            ``'ann'`` (the CocoVID json), ``'dir'`` (the frame's directory)
            or ``'auto'`` (ann when every annotation file is CocoVID).
        short_clips (str): A clip shorter than a corruption needs:
            ``'error'`` (default) or ``'pad'`` (repeat its last frame for
            the corruption; the padding frames are discarded).
        channel_order (str): ``'rgb'``: frames are corrupted as RGB (the
            codecs' colour conversion assumes it); ``'bgr'``: as loaded.
        cache_dir (str, optional): Parent directory of the clip store
            (default: the system temporary directory).
        lazy_init (bool): Whether to defer loading annotations."""


@DATASETS.register_module()
class VideoCorruptedDataset(_VideoCells):
    __doc__ = """A video detection dataset under one clip corruption.

    Works on any dataset whose items are video frames: a ``CocoDataset``
    on CocoVID-style annotations (ImageNet VID converted by mmtracking's
    tools) or a :class:`NeighborSetDataset` (pm-k under a codec). Each
    item is the frame at its position in its corrupted clip; camera-motion
    corruptions also move its ``instances`` (boxes re-enclosed, clipped,
    dropped when mostly out of frame; masks are not supported), so score
    them against the delivered ground truth: ``CocoMetric(ann_file=None)``
    with ``'instances'`` in ``PackDetInputs``' ``meta_keys`` (VOC and pm-k
    metrics read the packed boxes already). Temporal corruptions deliver
    another time's content at a frame's time; its ground truth stays the
    frame's own.

    Example config::

        test_dataloader = dict(dataset=dict(
            type='VideoCorruptedDataset', corruption='h264_crf',
            severity=3, dataset=dict(type='CocoDataset', ...)))

    Args:
        dataset (dict | BaseDataset): The dataset (config) to corrupt.
        corruption (str): Clip corruption name (``robustdet.video``).
        severity (int): 1-5; 0 leaves the images unchanged.""" + _ARGS_DOC

    def __init__(self,
                 dataset: Union[dict, BaseDataset],
                 corruption: str,
                 severity: int,
                 seed: int = 0,
                 clip_len: int = 32,
                 clip_mode: str = 'auto',
                 frames_from: str = 'auto',
                 short_clips: str = 'error',
                 channel_order: str = 'rgb',
                 cache_dir: Optional[str] = None,
                 lazy_init: bool = False) -> None:
        self.corruption = corruption
        self.severity = severity
        self._setup(dataset, _cells([(corruption, severity)]), seed,
                    clip_len, clip_mode, frames_from, short_clips,
                    channel_order, cache_dir, lazy_init)

    def __getitem__(self, idx: int) -> Any:
        self._activate(self.cells)
        samples = self.dataset[idx]
        return None if samples is None else samples[0]

    def __repr__(self) -> str:
        return (f'{type(self).__name__}(corruption={self.corruption!r}, '
                f'severity={self.severity}, seed={self.seed}, '
                f'clip_len={self.clip_len}, clip_mode={self.clip_mode!r}, '
                f'dataset={type(self.dataset).__name__})')


@DATASETS.register_module()
class MultiVideoCorruptedDataset(_VideoCells):
    __doc__ = """Every frame of a video dataset under several clip
    corruption cells, loaded once; ``get(idx, cells)`` gives one sample per
    cell, each identical to :class:`VideoCorruptedDataset`'s (the plain
    dataset's for a clean cell). ``tools/test_robust.py --cells-per-pass
    K`` uses it for the video cells.

    Args:
        dataset (dict | BaseDataset): The dataset (config) to corrupt.
        cells (Sequence[Sequence]): ``(corruption, severity)`` pairs;
            severity 0 is the clean frame.""" + _ARGS_DOC

    def __init__(self,
                 dataset: Union[dict, BaseDataset],
                 cells: Sequence[Sequence],
                 seed: int = 0,
                 clip_len: int = 32,
                 clip_mode: str = 'auto',
                 frames_from: str = 'auto',
                 short_clips: str = 'error',
                 channel_order: str = 'rgb',
                 cache_dir: Optional[str] = None,
                 lazy_init: bool = False) -> None:
        self._setup(dataset, _cells(cells), seed, clip_len, clip_mode,
                    frames_from, short_clips, channel_order, cache_dir,
                    lazy_init)

    def get(self, idx: int, cells: Optional[Sequence[Cell]] = None) -> list:
        """The ``idx``-th item's samples for some of the cells (default
        all), in the order given."""
        active = self.cells if cells is None else [
            (c[0], int(c[1])) for c in cells
        ]
        unknown = [c for c in active if c not in self.cells]
        if unknown:
            raise KeyError(f'cells {unknown} are not among {self.cells}')
        self._activate(active)
        return self.dataset[idx]

    def __getitem__(self, idx: int) -> list:
        return self.get(idx)

    def __repr__(self) -> str:
        return (f'{type(self).__name__}(cells={self.cells}, '
                f'seed={self.seed}, clip_len={self.clip_len}, '
                f'dataset={type(self.dataset).__name__})')
