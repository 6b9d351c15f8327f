# Copyright (c) robustdet contributors. All rights reserved.
"""Which clip of its video each annotated frame belongs to, and the
on-disk store that corrupts every clip once.

A *clip* is a run of consecutive frames of one video. Frames of a video
come either from the CocoVID json of the dataset (``frames_from='ann'``:
``images[]`` with ``video_id`` and ``frame_id``) or from the directory
the frame lies in (``frames_from='dir'``: every file with the frame's
extension, sorted by name, as in ImageNet VID's ``Data/VID/<split>/
<video>/<frame>.JPEG``).

Clips are cut in one of two ways:

* ``'segment'``: the video is split into consecutive segments of
  ``clip_len`` frames from its first frame; a frame belongs to the segment
  it falls in. The last segment is extended backwards to ``clip_len``
  frames when the video is long enough, so clips have the same length.
* ``'anchor'``: for neighbour sets (items carry ``anchor_key``), the clip
  is the ``clip_len`` frames centred on the set's anchor (moved inside the
  video at its ends), so every frame of a set comes from ONE corrupted
  clip - as a video pipeline delivers them - and the clip is corrupted
  once per set. A frame the window does not reach is an error that names
  it.

A video shorter than ``clip_len`` gives a shorter clip (the whole video).
"""
import fcntl
import hashlib
import json
import os
import os.path as osp
import shutil
import tempfile
import time
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np

from ..utils.errors import RobustDetError

CLIP_MODES = ('auto', 'segment', 'anchor')
FRAME_SOURCES = ('auto', 'ann', 'dir')
SHORT_CLIPS = ('error', 'pad')
_LOCK_STRIPES = 64


def check_clip_settings(clip_len: Any, clip_mode: str, frames_from: str,
                        short_clips: str) -> None:
    """Validate how clips are cut (one-line errors).

    Args:
        clip_len (int): Frames per clip, >= 1.
        clip_mode (str): One of :data:`CLIP_MODES`.
        frames_from (str): One of :data:`FRAME_SOURCES`.
        short_clips (str): One of :data:`SHORT_CLIPS`.
    """
    if not isinstance(clip_len, int) or isinstance(clip_len,
                                                   bool) or clip_len < 1:
        raise RobustDetError(
            f'clip_len must be an integer >= 1, got {clip_len!r}')
    for name, value, valid in (('clip_mode', clip_mode, CLIP_MODES),
                               ('frames_from', frames_from, FRAME_SOURCES),
                               ('short_clips', short_clips, SHORT_CLIPS)):
        if value not in valid:
            raise RobustDetError(f'unknown {name} {value!r}; valid: '
                                 f'{", ".join(valid)}')


@dataclass(frozen=True)
class Clip:
    """A run of consecutive frames of one video.

    Attributes:
        key (str): Stable identity (the first frame's identity and the
            length); the corruption seed derives from it.
        video (str): The video, for messages.
        paths (tuple[str]): Frame image paths in time order.
        num_video_frames (int): Frames of the whole video.
    """
    key: str
    video: str
    paths: Tuple[str, ...]
    num_video_frames: int


def frame_identity(path: str, roots: Sequence[str]) -> str:
    """A frame's stable identity: its path relative to the first root that
    contains it, else its last two path components (video and frame)."""
    for root in roots:
        if root:
            rel = osp.relpath(osp.abspath(path), osp.abspath(root))
            if not rel.startswith(osp.pardir):
                return rel.replace(osp.sep, '/')
    parts = osp.normpath(path).split(osp.sep)
    return '/'.join(parts[-2:])


def load_video_ann(ann_file: Optional[str]) -> Optional[dict]:
    """A CocoVID json (videos, and images with ``video_id`` and
    ``frame_id``), or None when ``ann_file`` is not one."""
    if not ann_file or not str(ann_file).endswith('.json') or \
            not osp.isfile(ann_file):
        return None
    data = _read_json(ann_file)
    images = data.get('images') or []
    if data.get('videos') and images and all(
            'video_id' in i and 'frame_id' in i for i in images):
        return data
    return None


class VideoFrames:
    """The frame list of every video of a dataset.

    Args:
        frames_from (str): ``'ann'`` or ``'dir'`` (see the module doc).
        anns (list[tuple[dict, str, str]]): For ``'ann'``: the CocoVID
            json (:func:`load_video_ann`), image prefix and file name of
            each leaf dataset.
    """

    def __init__(self, frames_from: str,
                 anns: Sequence[Tuple[dict, str, str]] = ()) -> None:
        self.frames_from = frames_from
        self._dirs: Dict[str, List[str]] = {}
        self._by_path: Dict[str, Tuple[str, int]] = {}
        self._videos: Dict[str, List[str]] = {}
        if frames_from == 'ann':
            for data, prefix, ann_file in anns:
                self._read_ann(data, prefix, ann_file)

    def _read_ann(self, data: dict, prefix: str, ann_file: str) -> None:
        videos = {v['id']: str(v.get('name', v['id']))
                  for v in data.get('videos', [])}
        per_video: Dict[Any, List[Tuple[int, str]]] = {}
        for img in data.get('images', []):
            path = osp.join(prefix, img['file_name'])
            per_video.setdefault(img['video_id'], []).append(
                (int(img['frame_id']), path))
        for vid, frames in per_video.items():
            frames.sort()
            ids = [f for f, _ in frames]
            if len(set(ids)) != len(ids):
                raise RobustDetError(
                    f'{ann_file}: video {videos.get(vid, vid)!r} lists a '
                    'frame_id twice')
            name = f'{ann_file}#{videos.get(vid, vid)}'
            self._videos[name] = [p for _, p in frames]
            for i, (_, p) in enumerate(frames):
                self._by_path[p] = (name, i)

    def locate(self, path: str) -> Tuple[str, List[str], int]:
        """The video of a frame, its frame paths and the frame's position.

        Args:
            path (str): A frame's image path.

        Returns:
            tuple: ``(video, paths, index)``.
        """
        if self.frames_from == 'ann':
            if path not in self._by_path:
                raise RobustDetError(
                    f'frame {path} is not an image of the CocoVID '
                    'annotations; it has no video')
            video, index = self._by_path[path]
            return video, self._videos[video], index
        directory, name = osp.split(path)
        frames = self._dirs.get(directory)
        if frames is None:
            ext = osp.splitext(name)[1].lower()
            try:
                names = os.listdir(directory)
            except OSError as e:
                raise RobustDetError(
                    f'cannot list the video directory of frame {path}: {e}'
                ) from None
            frames = [
                osp.join(directory, n) for n in sorted(names)
                if osp.splitext(n)[1].lower() == ext
            ]
            self._dirs[directory] = frames
        try:
            index = frames.index(path)
        except ValueError:
            raise RobustDetError(
                f'frame {path} is not in its video directory') from None
        return directory, frames, index


def _read_json(path: str) -> dict:
    try:
        with open(path, encoding='utf-8') as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        raise RobustDetError(f'cannot read {path}: {e}') from None


def clip_window(index: int, num_frames: int, clip_len: int,
                mode: str) -> Tuple[int, int]:
    """``[start, stop)`` of the clip around frame ``index``.

    Args:
        index (int): The frame (``'segment'``) or the anchor
            (``'anchor'``) position in the video.
        num_frames (int): Frames of the video.
        clip_len (int): Clip length.
        mode (str): ``'segment'`` or ``'anchor'``.

    Returns:
        tuple[int, int]: The window, ``min(clip_len, num_frames)`` long.
    """
    if mode == 'segment':
        start = (index // clip_len) * clip_len
    else:
        start = index - clip_len // 2
    start = max(0, min(start, num_frames - clip_len))
    return start, min(start + clip_len, num_frames)


class ClipIndex:
    """The clip and position of every item of a dataset.

    Args:
        items (list[tuple[str, str | None]]): Per item, its image path and
            its anchor's image path (None outside neighbour sets).
        frames (VideoFrames): The videos.
        clip_len (int): Clip length (>= 1).
        mode (str): ``'segment'`` or ``'anchor'``.
        roots (Sequence[str]): Data roots, for the clips' identities.
    """

    def __init__(self, items: Sequence[Tuple[str, Optional[str]]],
                 frames: VideoFrames, clip_len: int, mode: str,
                 roots: Sequence[str]) -> None:
        self.clips: List[Clip] = []
        self.items: Dict[Tuple[str, Optional[str]], Tuple[int, int]] = {}
        self.uses: List[int] = []
        ids: Dict[Tuple[str, int, int], int] = {}
        for path, anchor in items:
            video, paths, index = frames.locate(path)
            if mode == 'anchor':
                if anchor is None:
                    raise RobustDetError(
                        f"clip_mode='anchor' needs neighbour-set items "
                        f'(anchor_key); {path} has none')
                a_video, _, a_index = frames.locate(anchor)
                if a_video != video:
                    raise RobustDetError(
                        f'frame {path} and its anchor {anchor} are in '
                        'different videos')
                start, stop = clip_window(a_index, len(paths), clip_len,
                                          mode)
                if not start <= index < stop:
                    raise RobustDetError(
                        f'frame {path} is {abs(index - a_index)} frames '
                        f'from its anchor; a clip of clip_len={clip_len} '
                        'centred on the anchor does not reach it (use '
                        'clip_len >= 2 * largest offset + 1)')
            else:
                start, stop = clip_window(index, len(paths), clip_len, mode)
            cid = ids.get((video, start, stop))
            if cid is None:
                cid = ids[(video, start, stop)] = len(self.clips)
                first = frame_identity(paths[start], roots)
                self.clips.append(
                    Clip(key=f'{first}+{stop - start}', video=video,
                         paths=tuple(paths[start:stop]),
                         num_video_frames=len(paths)))
                self.uses.append(0)
            self.uses[cid] += 1
            self.items[(path, anchor)] = (cid, index - start)

    def lookup(self, path: str,
               anchor: Optional[str]) -> Tuple[Clip, int, int]:
        """The clip of an item, the item's position in it and the number of
        items that use the clip."""
        try:
            cid, pos = self.items[(path, anchor)]
        except KeyError:
            raise RobustDetError(
                f'frame {path} (anchor {anchor}) is not an item of the '
                'indexed dataset') from None
        return self.clips[cid], pos, self.uses[cid]

    def count_uses(self, keys: Sequence[Tuple[str, Optional[str]]]) -> None:
        """Count each clip's uses over these items only (the items one
        process serves, a repeated item once per time), so that a process
        deletes a clip once it has served its own items of it.

        Args:
            keys (Sequence[tuple]): ``(path, anchor)`` of the items.
        """
        uses = [0] * len(self.clips)
        for key in keys:
            uses[self.items[tuple(key)][0]] += 1
        self.uses = uses

    def shortest(self) -> Optional[Clip]:
        """The shortest clip (None without clips)."""
        return min(self.clips, key=lambda c: len(c.paths), default=None)


class ClipStore:
    """Corrupted clips on disk, computed once and shared by processes.

    The first process (dataloader worker) that needs a (clip, cell)
    computes the whole corrupted clip and saves it; the others read the
    frame they need from it (memory-mapped). Files are guarded by striped
    ``flock`` locks. Each clip knows how many items use it: when they have
    all been served its files are deleted, so the disk holds only the
    clips in flight. A clip asked for again later is recomputed (the
    corruptions are deterministic). The directory is created by the
    owning process and removed when the store is closed or the owner
    exits; other processes never remove it.

    Args:
        parent (str, optional): Where to create the store directory
            (default: the system temporary directory).
    """

    def __init__(self, parent: Optional[str] = None) -> None:
        if parent:
            os.makedirs(parent, exist_ok=True)
        self.root = tempfile.mkdtemp(prefix='robustdet-clips-', dir=parent)
        os.makedirs(osp.join(self.root, 'locks'))
        self.owner = os.getpid()
        # This process's clip computations and their seconds (load, corrupt
        # and save), for benchmarks.
        self.computed = 0
        self.compute_seconds = 0.0

    def close(self) -> None:
        """Remove the directory (only in the owning process)."""
        if os.getpid() == self.owner:
            shutil.rmtree(self.root, ignore_errors=True)

    def _lock_path(self, digest: str) -> str:
        stripe = int(digest[:8], 16) % _LOCK_STRIPES
        return osp.join(self.root, 'locks', f'{stripe}.lock')

    def frame(self, key: str, position: int, uses: int,
              compute: Callable[[], Any]) -> Tuple[np.ndarray,
                                                   Optional[np.ndarray]]:
        """Frame ``position`` of a corrupted clip, and its box transform.

        Args:
            key (str): Identity of (clip, corruption, severity, seed).
            position (int): Frame of the clip.
            uses (int): Items served from this clip before it is deleted.
            compute (Callable): Returns the clip's ``ClipResult``.

        Returns:
            tuple: The (H, W, 3) uint8 frame and its (3, 3) transform (None
            when the corruption does not move the image).
        """
        digest = hashlib.sha1(key.encode('utf-8')).hexdigest()
        base = osp.join(self.root, digest)
        with open(self._lock_path(digest), 'a') as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if not osp.exists(base + '.npy'):
                start = time.perf_counter()
                result = compute()
                _save(base + '.tr.npy', result.transforms)
                _save(base + '.npy', result.frames)
                _write_count(base, 0)
                self.computed += 1
                self.compute_seconds += time.perf_counter() - start
            frames = np.load(base + '.npy', mmap_mode='r')
            frame = np.array(frames[position])
            del frames
            transform = None
            if osp.exists(base + '.tr.npy'):
                transform = np.load(base + '.tr.npy')[position]
            served = _read_count(base) + 1
            if served >= uses:
                for suffix in ('.npy', '.tr.npy', '.count'):
                    if osp.exists(base + suffix):
                        os.remove(base + suffix)
            else:
                _write_count(base, served)
        return frame, transform


def _save(path: str, array: Optional[np.ndarray]) -> None:
    if array is None:
        return
    tmp = path + '.tmp.npy'
    np.save(tmp, np.ascontiguousarray(array))
    os.replace(tmp, path)


def _read_count(base: str) -> int:
    try:
        with open(base + '.count') as f:
            return int(f.read() or 0)
    except FileNotFoundError:
        return 0


def _write_count(base: str, value: int) -> None:
    with open(base + '.count', 'w') as f:
        f.write(str(value))
