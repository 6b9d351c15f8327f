# Copyright (c) robustdet contributors. All rights reserved.
"""A small synthetic BDD100k tree for tests and the demo.

:func:`generate_bdd100k_demo` writes::

    OUT_DIR/labels/det_20/det_train.json
    OUT_DIR/labels/det_20/det_val.json
    OUT_DIR/images/100k/{train,val}/<8 hex>-<8 hex>.jpg

in the BDD100k detection label format. Every weather, time of day and
scene value appears in each split (the first frames cycle through them;
the rest follow roughly BDD100k's frequencies), the labels use current,
renamed (``person``, ``bike``, ...) and ignored (``other vehicle``, ...)
categories, some frames have no ``labels`` or only a ``drivable area``
polygon, and the images show it: dark at night, grey in fog and overcast,
streaks in rain, flakes in snow. Load it with
``BDD100kDataset(img_size=(h, w))`` for the demo size ``(w, h)``.

Frame ``i`` of a split is drawn from its own generator seeded by
:func:`robustdet.utils.seeding.derive_seed` from ``(seed, split, i)``, so
the same arguments give byte-identical files.
"""
import os.path as osp
from typing import Dict, List, Optional, Sequence, Tuple

import cv2
import numpy as np

from robustdet.datasets.bdd100k import (BDD100K_ATTRIBUTES, BDD100K_CLASSES,
                                        BDD100K_IGNORED_MAPPING,
                                        BDD100K_NAME_MAPPING, BDD100K_PALETTE)
from robustdet.utils.errors import RobustDetError
from robustdet.utils.io import dump_json_atomic, write_bytes_atomic
from robustdet.utils.seeding import derive_seed

#: Labels file of each split, relative to the output directory.
BDD100K_DEMO_LABELS = {
    'train': 'labels/det_20/det_train.json',
    'val': 'labels/det_20/det_val.json',
}
#: Image directory of each split, relative to the output directory.
BDD100K_DEMO_IMAGES = {
    'train': 'images/100k/train',
    'val': 'images/100k/val',
}
# Rough frequencies of the attribute values in BDD100k (most frames are
# clear, daytime, city street), for the frames after the first cycle.
_WEIGHTS = {
    'weather': (0.45, 0.13, 0.08, 0.12, 0.12, 0.02, 0.08),
    'timeofday': (0.5, 0.35, 0.1, 0.05),
    'scene': (0.55, 0.2, 0.15, 0.04, 0.02, 0.02, 0.02),
}
# Categories written, with weights: current names first, then renamed and
# ignored ones.
_CATEGORIES = (BDD100K_CLASSES + tuple(BDD100K_NAME_MAPPING) +
               tuple(BDD100K_IGNORED_MAPPING))
_CATEGORY_WEIGHTS = np.array([3.0, 1, 6, 2, 1.5, 0.5, 1, 1, 2, 2] +
                             [0.5] * len(BDD100K_NAME_MAPPING) +
                             [0.5] * len(BDD100K_IGNORED_MAPPING))
# Width/height ratio range of each class's boxes (others: their class's).
_ASPECT = {
    'pedestrian': (0.3, 0.5), 'rider': (0.4, 0.6), 'car': (1.2, 2.0),
    'truck': (1.0, 1.6), 'bus': (1.2, 2.2), 'train': (2.0, 3.0),
    'motorcycle': (0.6, 1.0), 'bicycle': (0.7, 1.1),
    'traffic light': (0.35, 0.5), 'traffic sign': (0.8, 1.2)
}
_JPEG_PARAMS = [int(cv2.IMWRITE_JPEG_QUALITY), 90]


def _class_of(category: str) -> str:
    return BDD100K_NAME_MAPPING.get(
        category, BDD100K_IGNORED_MAPPING.get(category, category))


def _attributes(rng: np.random.Generator, index: int) -> Dict[str, str]:
    """Frame attributes: the first frames cover every value."""
    out = {}
    for key, values in BDD100K_ATTRIBUTES.items():
        # Strides prime to each other so that the first cycle mixes values.
        stride = {'weather': 1, 'timeofday': 3, 'scene': 2}[key]
        if index < len(values):
            out[key] = values[(index * stride) % len(values)]
        else:
            out[key] = values[rng.choice(len(values), p=_WEIGHTS[key])]
    return out


def _frame_name(seed: int, split: str, index: int) -> str:
    a = derive_seed(seed, 'bdd100k-demo', split, index, 'video')
    b = derive_seed(seed, 'bdd100k-demo', split, index, 'frame')
    return f'{a:08x}-{b:08x}.jpg'


def _labels(rng: np.random.Generator, width: int, height: int,
            label_ids: List[int], first: Optional[str]) -> List[dict]:
    """Random boxes (inclusive ``x2``/``y2``, as BDD100k) in the lower
    two thirds of the image (the first of category ``first`` if given),
    plus sometimes a drivable area polygon."""
    labels = []
    horizon = int(height * 0.4)
    probs = _CATEGORY_WEIGHTS / _CATEGORY_WEIGHTS.sum()
    for k in range(int(rng.integers(1, 7))):
        category = _CATEGORIES[rng.choice(len(_CATEGORIES), p=probs)]
        if k == 0 and first is not None:
            category = first
        lo, hi = _ASPECT[_class_of(category)]
        h = int(rng.integers(max(4, height // 12), max(5, height // 2)))
        w = max(3, int(round(h * rng.uniform(lo, hi))))
        w = min(w, width - 2)
        x1 = int(rng.integers(0, width - w))
        y_lo = 0 if category in ('traffic light', 'traffic sign') else (
            horizon - h // 2)
        y1 = int(rng.integers(max(0, y_lo), max(1, height - h)))
        attributes = dict(
            occluded=bool(rng.random() < 0.3),
            truncated=bool(x1 == 0 or x1 + w >= width - 1),
            trafficLightColor=(str(rng.choice(['green', 'red', 'yellow']))
                               if category == 'traffic light' else 'none'))
        label_ids[0] += 1
        labels.append(
            dict(
                id=str(label_ids[0]),
                category=category,
                attributes=attributes,
                box2d=dict(
                    x1=float(x1),
                    y1=float(y1),
                    x2=float(x1 + w - 1),
                    y2=float(y1 + h - 1))))
    if rng.random() < 0.3:
        label_ids[0] += 1
        labels.append(
            dict(
                id=str(label_ids[0]),
                category='drivable area',
                attributes=dict(areaType='direct'),
                poly2d=[
                    dict(
                        vertices=[[width * 0.3, height - 1.0],
                                  [width * 0.45, horizon],
                                  [width * 0.55, horizon],
                                  [width * 0.7, height - 1.0]],
                        types='LLLL',
                        closed=True)
                ]))
    return labels


def render_bdd100k_frame(frame: dict, width: int, height: int,
                         seed: int) -> np.ndarray:
    """Draw a frame: sky, road and one filled box per label (BGR).

    Args:
        frame (dict): A frame of the demo labels.
        width (int): Image width.
        height (int): Image height.
        seed (int): Seed of the weather texture.

    Returns:
        np.ndarray: ``(height, width, 3)`` uint8 BGR image.
    """
    rng = np.random.default_rng(seed)
    attributes = frame['attributes']
    horizon = int(height * 0.4)
    img = np.empty((height, width, 3), np.float32)
    sky = (235, 190, 140)  # BGR light blue
    if attributes['weather'] in ('overcast', 'foggy', 'rainy', 'snowy'):
        sky = (190, 185, 180)
    elif attributes['weather'] == 'partly cloudy':
        sky = (220, 200, 170)
    img[:horizon] = np.linspace(0.8, 1.0, horizon)[:, None, None] * sky
    img[horizon:] = (95, 95, 100)
    img[horizon:, :, :] += rng.normal(0, 4, (height - horizon, width, 1))
    # Buildings on the horizon.
    for x in range(0, width, max(4, width // 10)):
        top = int(horizon - rng.integers(height // 20 + 1, height // 4 + 2))
        grey = float(rng.integers(100, 160))
        img[max(0, top):horizon, x:x + width // 12] = (grey, grey, grey + 10)
    for label, color in _boxes(frame):
        x1, y1, x2, y2 = label
        img[y1:y2 + 1, x1:x2 + 1] = color[::-1]
        img[y1:y2 + 1, x1:x2 + 1] *= rng.uniform(0.85, 1.0)
    weather = attributes['weather']
    if weather == 'foggy':
        img = 0.45 * img + 0.55 * 200
    elif weather == 'rainy':
        for _ in range(width // 3):
            x, y = int(rng.integers(0, width)), int(rng.integers(0, height))
            cv2.line(img, (x, y), (x - 2, y + height // 12),
                     (200, 200, 200), 1)
    elif weather == 'snowy':
        img[horizon:] = 0.5 * img[horizon:] + 0.5 * 235
        for _ in range(width // 2):
            x, y = int(rng.integers(0, width)), int(rng.integers(0, height))
            cv2.circle(img, (x, y), 1, (250, 250, 250), -1)
    time = attributes['timeofday']
    if time == 'night':
        img *= 0.25
    elif time == 'dawn/dusk':
        img = img * 0.6 + np.array([40, 70, 110], np.float32) * 0.4
    return np.clip(img, 0, 255).astype(np.uint8)


def _boxes(frame: dict):
    for label in frame.get('labels') or ():
        box = label.get('box2d')
        if box is None:
            continue
        name = _class_of(label['category'])
        color = BDD100K_PALETTE[BDD100K_CLASSES.index(name)]
        yield (int(box['x1']), int(box['y1']), int(box['x2']),
               int(box['y2'])), color


def make_bdd100k_frames(seed: int, split: str, num_frames: int,
                        size: Tuple[int, int]) -> List[dict]:
    """The demo labels of one split.

    Frame ``i % 8 == 3`` has no ``labels`` key and ``i % 8 == 6`` an empty
    list; the first box of the other frames goes through every category
    (current, renamed, ignored) before they are drawn at random.

    Args:
        seed (int): Dataset seed.
        split (str): ``'train'`` or ``'val'``.
        num_frames (int): Number of frames.
        size (tuple[int, int]): ``(width, height)`` of the images.

    Returns:
        list[dict]: BDD100k frames.
    """
    width, height = size
    frames, labelled = [], 0
    for i in range(num_frames):
        rng = np.random.default_rng(
            derive_seed(seed, 'bdd100k-demo', split, i))
        frame = dict(
            name=_frame_name(seed, split, i),
            attributes=_attributes(rng, i),
            timestamp=10000)
        label_ids = [i * 100]
        if i % 8 == 6:
            frame['labels'] = []
        elif i % 8 != 3:
            first = (_CATEGORIES[labelled]
                     if labelled < len(_CATEGORIES) else None)
            frame['labels'] = _labels(rng, width, height, label_ids, first)
            labelled += 1
        frames.append(frame)
    if len({f['name'] for f in frames}) != len(frames):
        raise RuntimeError('demo frame names collide; use another seed')
    return frames


def generate_bdd100k_demo(out_dir: str,
                          seed: int = 0,
                          num_val: int = 24,
                          num_train: int = 16,
                          size: Sequence[int] = (128, 72)) -> dict:
    """Write a small synthetic BDD100k detection tree.

    Args:
        out_dir (str): Output root (the dataset's ``data_root``).
        seed (int): Seed; the same arguments give the same files.
        num_val (int): Number of val frames (at least 7, so every
            attribute value appears).
        num_train (int): Number of train frames (0 or at least 7).
        size (Sequence[int]): ``(width, height)`` of the images.

    Returns:
        dict: ``root``, ``labels`` (split -> labels path), ``images``
        (split -> image directory) and ``img_size`` (``(height, width)``
        for ``BDD100kDataset``).
    """
    width, height = (int(v) for v in size)
    if width < 32 or height < 24:
        raise RobustDetError(
            f'demo image size must be at least 32x24, got {width}x{height}')
    need = max(len(v) for v in BDD100K_ATTRIBUTES.values())
    if num_val < need or (num_train and num_train < need):
        raise RobustDetError(
            f'num_val (and a non-zero num_train) must be at least {need} so '
            f'that every attribute value appears; got num_val={num_val}, '
            f'num_train={num_train}')
    if seed < 0:
        raise RobustDetError(f'seed must be >= 0, got {seed}')
    out = dict(root=out_dir, labels={}, images={}, img_size=(height, width))
    for split, count in (('train', num_train), ('val', num_val)):
        if not count:
            continue
        frames = make_bdd100k_frames(seed, split, count, (width, height))
        img_dir = osp.join(out_dir, BDD100K_DEMO_IMAGES[split])
        for i, frame in enumerate(frames):
            img = render_bdd100k_frame(
                frame, width, height,
                derive_seed(seed, 'bdd100k-demo', split, i, 'render'))
            ok, data = cv2.imencode('.jpg', img, _JPEG_PARAMS)
            if not ok:  # pragma: no cover
                raise RuntimeError('JPEG encoding failed')
            write_bytes_atomic(data.tobytes(),
                               osp.join(img_dir, frame['name']))
        labels = osp.join(out_dir, BDD100K_DEMO_LABELS[split])
        dump_json_atomic(frames, labels, indent=None)
        out['labels'][split] = labels
        out['images'][split] = img_dir
    return out
