# Copyright (c) robustdet contributors. All rights reserved.
"""Synthetic videos with moving objects, in ImageNet VID / ImageNet-Vid-Robust
layouts, for neighbour-set (pm-k) demos and tests.

Objects of the demo scenes drift, turn and slightly change size from frame
to frame, and every frame gets mild sensor noise and a small exposure
flicker: the kind of small natural change between nearby frames that flips
detector outputs. Written as::

    OUT/Data/VID/val/<video>/<frame>.JPEG        frames
    OUT/Annotations/VID/val/<video>/<frame>.xml  ImageNet VID XML boxes
    OUT/annotations/vid_val.json                 CocoVID json (same boxes)
    OUT/metadata/pmsets.json                     {anchor_key: [neighbours]}
    OUT/metadata/labels.json                     {frame_key: [class_idx]}

Frame keys are ``val/<video>/<frame>.JPEG``, as in ImageNet-Vid-Robust.
"""
import json
import os
import os.path as osp
from dataclasses import replace
from typing import Dict, List, Sequence, Tuple, Union
from xml.sax.saxutils import escape

import numpy as np

from robustdet.datasets.neighbor_builder import (build_neighbor_sets,
                                                 frame_labels)
from robustdet.utils.errors import RobustDetError
from robustdet.utils.io import (dump_json_atomic, write_bytes_atomic,
                                write_text_atomic)
from robustdet.utils.seeding import derive_seed
from .layouts import encode_image
from .scene import (DEMO_CLASSES, Scene, clear_of, object_polygon,
                    render_scene, sample_scene, scene_annotations)

VIDEO_META = 'demo_video_meta.json'
# px between circumscribed circles (sample_scene keeps at least this)
_GAP = 2.0


def _apart(objs) -> bool:
    return all(
        clear_of(o.cx, o.cy, o.size, objs[:i], _GAP)
        for i, o in enumerate(objs))


def _inside(obj, width: int, height: int) -> bool:
    poly = object_polygon(obj)
    return bool(poly[:, 0].min() >= 0 and poly[:, 1].min() >= 0
                and poly[:, 0].max() <= width and poly[:, 1].max() <= height)


def sample_clip(rng: np.random.Generator, num_frames: int, width: int,
                height: int) -> List[Scene]:
    """A scene whose objects move a little from frame to frame.

    Each object drifts with a constant velocity (up to ~1 % of the image
    width per frame), turns (not discs) and scales by up to ±0.3 % per
    frame; objects stay inside the image and never overlap, so boxes stay
    tight.

    Args:
        rng (np.random.Generator): Random generator.
        num_frames (int): Frames of the clip.
        width (int): Frame width.
        height (int): Frame height.

    Returns:
        list[Scene]: One scene per frame.
    """
    first = sample_scene(rng, width, height)
    speed = 0.01 * width
    motions = []
    for obj in first.objects:
        motions.append((rng.uniform(-speed, speed), rng.uniform(-speed, speed),
                        0.0 if obj.label == 0 else rng.uniform(-0.03, 0.03),
                        rng.uniform(-0.003, 0.003)))
    # Keep each object's motion only if it keeps the clip valid; objects
    # are checked one by one against the ones already fixed.
    fixed: List[Tuple] = []
    for obj, motion in zip(first.objects, motions):
        for m in (motion, (0.0, 0.0, 0.0, 0.0)):
            trial = fixed + [(obj, m)]
            if all(
                    _apart([_at(o, mm, t) for o, mm in trial])
                    and _inside(_at(obj, m, t), width, height)
                    for t in range(num_frames)):
                fixed.append((obj, m))
                break
    return [
        replace(first, objects=[_at(o, m, t) for o, m in fixed])
        for t in range(num_frames)
    ]


def _at(obj, motion, t):
    vx, vy, va, vs = motion
    return replace(
        obj,
        cx=obj.cx + vx * t,
        cy=obj.cy + vy * t,
        angle=obj.angle + va * t,
        size=obj.size * (1 + vs)**t)


def render_frame(scene: Scene, seed: int) -> np.ndarray:
    """Render a frame with mild sensor noise and exposure flicker.

    Args:
        scene (Scene): The frame's scene.
        seed (int): Seed of this frame's noise.

    Returns:
        np.ndarray: RGB uint8 image.
    """
    rng = np.random.default_rng(seed)
    img = render_scene(scene).astype(np.float32)
    img = img * rng.uniform(0.97, 1.03) + rng.normal(0, 3.0, img.shape)
    return np.clip(img + 0.5, 0, 255).astype(np.uint8)


def _vid_xml(key: str, width: int, height: int, anns: List[dict]) -> str:
    video, frame = key.split('/')[-2], osp.splitext(key.split('/')[-1])[0]
    objs = []
    for i, a in enumerate(anns):
        x1, y1, x2, y2 = a['bbox']
        objs.append(
            '\t<object>\n'
            f'\t\t<trackid>{i}</trackid>\n'
            f'\t\t<name>{escape(DEMO_CLASSES[a["label"]])}</name>\n'
            '\t\t<bndbox>\n'
            f'\t\t\t<xmax>{int(round(x2))}</xmax>\n'
            f'\t\t\t<xmin>{int(round(x1))}</xmin>\n'
            f'\t\t\t<ymax>{int(round(y2))}</ymax>\n'
            f'\t\t\t<ymin>{int(round(y1))}</ymin>\n'
            '\t\t</bndbox>\n'
            '\t\t<occluded>0</occluded>\n'
            '\t\t<generated>0</generated>\n'
            '\t</object>\n')
    return ('<annotation>\n'
            f'\t<folder>ILSVRC2015_VID_val/{escape(video)}</folder>\n'
            f'\t<filename>{escape(frame)}</filename>\n'
            '\t<source>\n\t\t<database>robustdet demo</database>\n'
            '\t</source>\n'
            f'\t<size>\n\t\t<width>{width}</width>\n'
            f'\t\t<height>{height}</height>\n\t</size>\n' + ''.join(objs) +
            '</annotation>\n')


def generate_video_demo(out_dir: str,
                        seed: int = 0,
                        num_videos: int = 24,
                        num_frames: int = 31,
                        size: Union[Tuple[int, int],
                                    Sequence[Tuple[int, int]]] = (320, 240),
                        k: int = 10) -> Dict[str, str]:
    """Write the synthetic video neighbour-set dataset.

    One anchor per video (at least k frames from both ends), with its
    neighbours at offsets -k..k. Same arguments → byte-identical files;
    a directory holding the same parameters is reused as it is.

    Args:
        out_dir (str): Output directory (missing, empty or a previous
            output with the same parameters).
        seed (int): Seed.
        num_videos (int): Videos.
        num_frames (int): Frames per video (>= 2k + 1).
        size (tuple[int, int] | list[tuple[int, int]]): ``(width,
            height)``, or one per video in turn (video ``v`` gets
            ``size[v % len(size)]``: sets of frames of several sizes).
        k (int): Largest neighbour offset.

    Returns:
        dict[str, str]: Paths: ``root``, ``img_root`` (``Data/VID``),
        ``xml_root`` (``Annotations/VID``), ``ann_file`` (CocoVID json),
        ``sets_file``, ``labels_file``.
    """
    if num_frames < 2 * k + 1:
        raise RobustDetError(
            f'num_frames={num_frames} is too short for k={k}: need at least '
            f'{2 * k + 1}')
    one = isinstance(size[0], int)
    sizes = [tuple(size)] if one else [tuple(s) for s in size]
    params = dict(seed=seed, num_videos=num_videos, num_frames=num_frames,
                  size=list(size) if one else [list(s) for s in sizes],
                  k=k, version=1)
    paths = dict(
        root=out_dir,
        img_root=osp.join(out_dir, 'Data', 'VID'),
        xml_root=osp.join(out_dir, 'Annotations', 'VID'),
        ann_file=osp.join(out_dir, 'annotations', 'vid_val.json'),
        sets_file=osp.join(out_dir, 'metadata', 'pmsets.json'),
        labels_file=osp.join(out_dir, 'metadata', 'labels.json'))
    meta_path = osp.join(out_dir, VIDEO_META)
    if osp.isdir(out_dir) and os.listdir(out_dir):
        try:
            with open(meta_path) as f:
                old = json.load(f)
        except (OSError, ValueError):
            old = None
        if old != params:
            raise RobustDetError(
                f'refusing to write the video demo into {out_dir}: it is not '
                'empty and holds no video demo with these parameters')
        return paths
    images, annotations, videos = [], [], []
    for v in range(num_videos):
        width, height = sizes[v % len(sizes)]
        name = f'demo_video_{v:03d}'
        videos.append(dict(id=v + 1, name=f'val/{name}'))
        rng = np.random.default_rng(derive_seed(seed, 'video-demo', v))
        for t, scene in enumerate(sample_clip(rng, num_frames, width,
                                              height)):
            key = f'val/{name}/{t:06d}.JPEG'
            img = render_frame(scene, derive_seed(seed, 'frame-noise', key))
            write_bytes_atomic(
                encode_image(img, '.jpg'), osp.join(paths['img_root'], key))
            anns = scene_annotations(scene)
            write_text_atomic(
                _vid_xml(key, width, height, anns),
                osp.join(paths['xml_root'], key[:-len('.JPEG')] + '.xml'))
            image_id = len(images) + 1
            images.append(
                dict(id=image_id, file_name=key, width=width, height=height,
                     video_id=v + 1, frame_id=t))
            for i, a in enumerate(anns):
                x1, y1, x2, y2 = a['bbox']
                annotations.append(
                    dict(id=len(annotations) + 1, image_id=image_id,
                         category_id=a['label'] + 1, instance_id=i,
                         bbox=[x1, y1, x2 - x1, y2 - y1],
                         area=(x2 - x1) * (y2 - y1), iscrowd=0))
    categories = [dict(id=i + 1, name=n) for i, n in enumerate(DEMO_CLASSES)]
    dump_json_atomic(
        dict(categories=categories, videos=videos, images=images,
             annotations=annotations), paths['ann_file'])
    annotated = {
        images[a['image_id'] - 1]['file_name'] for a in annotations
    }
    sets = build_neighbor_sets(images, k=k, seed=seed, annotated=annotated)
    dump_json_atomic(sets, paths['sets_file'])
    dump_json_atomic(
        frame_labels(dict(categories=categories, images=images,
                          annotations=annotations), sets),
        paths['labels_file'])
    dump_json_atomic(params, meta_path)
    return paths
