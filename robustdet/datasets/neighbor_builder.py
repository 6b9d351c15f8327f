# Copyright (c) robustdet contributors. All rights reserved.
"""Build pm-k neighbour sets from any video annotation (pure Python).

A neighbour set is an anchor frame and the frames of the same video within
±k frames of it, as in ImageNet-Vid-Robust (Shankar et al. 2019). The
result has ImageNet-Vid-Robust's ``pmsets.json`` form, ``{anchor_key:
[neighbour_key, ...]}``, with the images' ``file_name`` as keys.
"""
import os.path as osp
from collections import defaultdict
from typing import (Dict, Iterable, List, Mapping, Optional, Sequence, Set,
                    Tuple)

import numpy as np

from ..utils.errors import RobustDetError
from ..utils.pmsets import frame_number
from ..utils.seeding import derive_seed


def video_frames(images: Iterable[Mapping]) -> Dict[object, List[Tuple]]:
    """Group images by video: ``{video: [(frame, file_name), ...]}`` sorted
    by frame. Uses CocoVID's ``video_id``/``frame_id`` when present, else
    the file name: directory = video, last number = frame (as in ImageNet
    VID, see :func:`robustdet.utils.pmsets.frame_number`)."""
    videos: Dict[object, List[Tuple[int, str]]] = defaultdict(list)
    for img in images:
        name = img['file_name']
        if 'video_id' in img and 'frame_id' in img:
            video, frame = img['video_id'], int(img['frame_id'])
        else:
            video, frame = osp.dirname(name), frame_number(name)
        videos[video].append((frame, name))
    for video, frames in videos.items():
        frames.sort()
        numbers = [f for f, _ in frames]
        if len(set(numbers)) != len(numbers):
            dup = next(f for f in numbers if numbers.count(f) > 1)
            raise RobustDetError(
                f'video {video!r} has frame {dup} more than once')
    return dict(videos)


def build_neighbor_sets(images: Sequence[Mapping],
                        k: int = 10,
                        anchors_per_video: int = 1,
                        seed: int = 0,
                        min_gap: Optional[int] = None,
                        rejected: Iterable[Tuple[str, str]] = (),
                        annotated: Optional[Set[str]] = None
                        ) -> Dict[str, List[str]]:
    """Choose anchors (seeded) and collect their ±k neighbours.

    Per video, anchors are drawn at random (seeded by ``seed`` and the
    video) among the frames whose whole ±k window lies inside the video, or
    among all frames when no frame has a whole window; anchors keep at
    least ``min_gap`` frames apart (default ``2k + 1``: disjoint sets).

    Args:
        images (Sequence[Mapping]): COCO/CocoVID ``images`` entries
            (``file_name``, and ``video_id``/``frame_id`` if present).
        k (int): Largest |offset| of a neighbour.
        anchors_per_video (int): Anchors to draw per video (fewer if the
            video is too short).
        seed (int): Seed of the anchor choice.
        min_gap (int, optional): Smallest frame distance between anchors.
        rejected (Iterable[tuple]): ``(anchor_key, neighbour_key)`` pairs
            to leave out (e.g. rejected in a human review).
        annotated (set[str], optional): If given, only these frames can be
            anchors (e.g. frames with boxes).

    Returns:
        dict[str, list[str]]: ``{anchor_key: [neighbour_key, ...]}``,
        anchors by video and frame, neighbours by offset.
    """
    if k < 0:
        raise RobustDetError(f'k must be >= 0, got {k}')
    if anchors_per_video < 1:
        raise RobustDetError(
            f'anchors_per_video must be >= 1, got {anchors_per_video}')
    gap = 2 * k + 1 if min_gap is None else min_gap
    rejected = set(map(tuple, rejected))
    sets: Dict[str, List[str]] = {}
    videos = video_frames(images)
    for video in sorted(videos, key=str):
        frames = videos[video]
        numbers = [f for f, _ in frames]
        first, last = numbers[0], numbers[-1]
        candidates = [(f, n) for f, n in frames
                      if annotated is None or n in annotated]
        whole = [(f, n) for f, n in candidates
                 if f - k >= first and f + k <= last]
        pool = whole or candidates
        if not pool:
            continue
        rng = np.random.default_rng(
            derive_seed(seed, 'neighbor-anchors', str(video)))
        chosen: List[Tuple[int, str]] = []
        for i in rng.permutation(len(pool)):
            f, name = pool[i]
            if all(abs(f - c) >= gap for c, _ in chosen):
                chosen.append((f, name))
            if len(chosen) == anchors_per_video:
                break
        for f, name in sorted(chosen):
            neighbours = sorted(
                ((g - f, other) for g, other in frames
                 if 0 < abs(g - f) <= k and (name, other) not in rejected),
                key=lambda x: (abs(x[0]), x[0]))
            sets[name] = [other for _, other in neighbours]
    if not sets:
        raise RobustDetError('no anchor could be chosen (no annotated frame '
                             'in any video?)')
    return sets


def frame_labels(coco: Mapping, sets: Mapping[str, Sequence[str]]
                 ) -> Dict[str, List[int]]:
    """``{frame_key: [class_idx, ...]}`` for the frames of the sets: the
    classes of each frame's boxes, indexed by the position of their
    category in ``categories`` sorted by id (labels.json's form).

    Args:
        coco (Mapping): COCO/CocoVID json content.
        sets (Mapping): ``{anchor_key: [neighbour_key, ...]}``.

    Returns:
        dict[str, list[int]]: Sorted class indices per frame.
    """
    cat_index = {
        c['id']: i
        for i, c in enumerate(sorted(coco['categories'],
                                     key=lambda c: c['id']))
    }
    name_of = {img['id']: img['file_name'] for img in coco['images']}
    found: Dict[str, Set[int]] = defaultdict(set)
    for ann in coco.get('annotations', []):
        found[name_of[ann['image_id']]].add(cat_index[ann['category_id']])
    keys = list(sets) + [n for ns in sets.values() for n in ns]
    return {k: sorted(found.get(k, ())) for k in keys}
