# Copyright (c) robustdet contributors. All rights reserved.
"""The inputs of pm-k (:class:`PmkData`) and their loading from a pm-sets
file, COCO annotations and COCO results, with one-line errors for
malformed entries. Boxes are ``[x, y, w, h]`` (COCO)."""
import json
from typing import Any, Dict, Iterable, List, Optional, Sequence, Tuple

import numpy as np

from ...utils.errors import RobustDetError
from ...utils.pmsets import parse_pmsets, read_json

__all__ = [
    'PmkData', 'check_ks', 'load_labels', 'load_pmk_data', 'short_list'
]


class PmkData:
    """Inputs of pm-k: frames, their ground truth and detections, and the
    neighbour sets.

    Frames are referred to by their index in ``frame_keys``. Boxes are
    ``[x, y, w, h]``; labels are category ids (any integers listed in
    ``categories``). The order of the detections is the order of the
    predictions file: it breaks score ties as in pycocotools. The arrays
    are validated, copied and made read-only.

    Args:
        frame_keys (Sequence[str]): Unique name of every frame (F).
        categories (Sequence[int]): Category ids (C); every label must be
            one of them.
        gt_frames (array-like): (NG,) frame index of each ground truth box.
        gt_bboxes (array-like): (NG, 4) ground truth boxes, xywh.
        gt_labels (array-like): (NG,) category ids.
        det_frames (array-like): (ND,) frame index of each detection.
        det_bboxes (array-like): (ND, 4) detected boxes, xywh.
        det_scores (array-like): (ND,) scores.
        det_labels (array-like): (ND,) category ids.
        anchors (Sequence[int]): (A,) frame index of each anchor, unique.
        neighbours (Sequence[Sequence[Tuple[int, int]]]): For each anchor,
            its neighbours as ``(frame index, offset)`` pairs; offsets are
            non-zero and unique per anchor, frames unique and not the
            anchor.
        gt_crowd (array-like, optional): (NG,) iscrowd flags (default 0).
        gt_areas (array-like, optional): (NG,) the annotations' ``area``,
            used for ``COCOeval``'s area range (default ``w * h``).
        image_ids (Sequence[int], optional): (F,) unique image ids; across
            images, equal scores are ordered by ascending image id as in
            ``COCOeval`` (default: the frame index).
        info (dict, optional): Free-form facts about the source (the
            loader records e.g. ``num_predictions``).
    """

    def __init__(self,
                 frame_keys: Sequence[str],
                 categories: Sequence[int],
                 gt_frames,
                 gt_bboxes,
                 gt_labels,
                 det_frames,
                 det_bboxes,
                 det_scores,
                 det_labels,
                 anchors: Sequence[int],
                 neighbours: Sequence[Sequence[Tuple[int, int]]],
                 gt_crowd=None,
                 gt_areas=None,
                 image_ids: Optional[Sequence[int]] = None,
                 info: Optional[dict] = None):
        self.frame_keys = [str(k) for k in frame_keys]
        num_frames = len(self.frame_keys)
        if len(set(self.frame_keys)) != num_frames:
            dup = _first_duplicate(self.frame_keys)
            raise RobustDetError(f'frame key {dup!r} is listed twice')
        self.categories = np.unique(_int_array(categories, 'categories'))
        if len(self.categories) != len(categories):
            raise RobustDetError('categories contains duplicate ids')
        if image_ids is None:
            image_ids = np.arange(num_frames)
        self.image_ids = _int_array(image_ids, 'image_ids')
        if self.image_ids.shape != (num_frames, ):
            raise RobustDetError(
                f'image_ids has {len(self.image_ids)} entries for '
                f'{num_frames} frames')
        if len(np.unique(self.image_ids)) != num_frames:
            raise RobustDetError('image_ids contains duplicate ids')

        self.gt_frames = _frame_index(gt_frames, num_frames, 'gt_frames')
        num_gt = len(self.gt_frames)
        self.gt_bboxes = _boxes(gt_bboxes, num_gt, 'gt_bboxes')
        self.gt_labels = self._labels(gt_labels, num_gt, 'gt_labels')
        self.gt_crowd = (
            np.zeros(num_gt, bool) if gt_crowd is None else np.asarray(
                gt_crowd).astype(bool).reshape(-1))
        if self.gt_crowd.shape != (num_gt, ):
            raise RobustDetError(f'gt_crowd must have {num_gt} entries')
        if gt_areas is None:
            gt_areas = self.gt_bboxes[:, 2] * self.gt_bboxes[:, 3]
        self.gt_areas = np.asarray(gt_areas, dtype=np.float64).reshape(-1)
        if self.gt_areas.shape != (num_gt, ) or not np.all(
                np.isfinite(self.gt_areas)):
            raise RobustDetError(
                f'gt_areas must be {num_gt} finite numbers')

        self.det_frames = _frame_index(det_frames, num_frames, 'det_frames')
        num_det = len(self.det_frames)
        self.det_bboxes = _boxes(det_bboxes, num_det, 'det_bboxes')
        self.det_scores = np.asarray(det_scores, dtype=np.float64).reshape(-1)
        if self.det_scores.shape != (num_det, ) or not np.all(
                np.isfinite(self.det_scores)):
            raise RobustDetError(
                f'det_scores must be {num_det} finite numbers')
        self.det_labels = self._labels(det_labels, num_det, 'det_labels')

        self.anchors = _frame_index(anchors, num_frames, 'anchors')
        if len(np.unique(self.anchors)) != len(self.anchors):
            dup = _first_duplicate(self.anchors.tolist())
            raise RobustDetError(
                f'anchor {self.frame_keys[dup]!r} is listed twice')
        if len(neighbours) != len(self.anchors):
            raise RobustDetError(
                f'neighbours has {len(neighbours)} entries for '
                f'{len(self.anchors)} anchors')
        nb_anchor, nb_frames, nb_offsets = [], [], []
        for a, pairs in enumerate(neighbours):
            anchor_key = self.frame_keys[self.anchors[a]]
            seen_frames, seen_offsets = set(), set()
            for pair in pairs:
                try:
                    frame, offset = (int(pair[0]), int(pair[1]))
                except (TypeError, ValueError, IndexError):
                    raise RobustDetError(
                        f'neighbour {pair!r} of anchor {anchor_key!r} is not '
                        'a (frame index, offset) pair') from None
                if not 0 <= frame < num_frames:
                    raise RobustDetError(
                        f'neighbour frame index {frame} of anchor '
                        f'{anchor_key!r} is out of range [0, {num_frames})')
                key = self.frame_keys[frame]
                if frame == self.anchors[a] or offset == 0:
                    raise RobustDetError(
                        f'anchor {anchor_key!r} lists itself (or offset 0, '
                        f'{key!r}) as a neighbour')
                if frame in seen_frames:
                    raise RobustDetError(
                        f'anchor {anchor_key!r} lists neighbour {key!r} '
                        'twice')
                if offset in seen_offsets:
                    raise RobustDetError(
                        f'anchor {anchor_key!r} has two neighbours at offset '
                        f'{offset} (one is {key!r})')
                seen_frames.add(frame)
                seen_offsets.add(offset)
                nb_anchor.append(a)
                nb_frames.append(frame)
                nb_offsets.append(offset)
        self.nb_anchor = np.asarray(nb_anchor, dtype=np.int64)
        self.nb_frames = np.asarray(nb_frames, dtype=np.int64)
        self.nb_offsets = np.asarray(nb_offsets, dtype=np.int64)
        self.info = dict(info or {})
        # Own, read-only copies: results cached on this object stay valid.
        for name, value in list(vars(self).items()):
            if isinstance(value, np.ndarray):
                value = value.copy()
                value.flags.writeable = False
                setattr(self, name, value)
        self._score_orders = None

    def _labels(self, labels, n: int, name: str) -> np.ndarray:
        labels = _int_array(labels, name)
        if labels.shape != (n, ):
            raise RobustDetError(f'{name} must have {n} entries')
        unknown = ~np.isin(labels, self.categories)
        if unknown.any():
            raise RobustDetError(
                f'{name} has category id {labels[unknown][0]} that is not '
                f'in categories ({short_list(self.categories)})')
        return labels

    def score_orders(self) -> Tuple[np.ndarray, np.ndarray]:
        """The detections sorted as ``COCOeval`` ranks them.

        Returns:
            tuple[np.ndarray]: Indices by score descending, equal scores in
            file order (the stable sort of ``evaluateImg``); and by score
            descending, then ascending image id, then file order (the order
            of ``accumulate`` over several images). Computed once (the
            arrays are read-only).
        """
        if self._score_orders is None:
            by_score = np.argsort(-self.det_scores, kind='stable')
            scores = self.det_scores[by_score]
            new = np.ones(len(by_score), bool)
            new[1:] = scores[1:] != scores[:-1]
            img_rank = np.empty(self.num_frames, np.int64)
            img_rank[np.argsort(self.image_ids, kind='stable')] = np.arange(
                self.num_frames)
            # nearly sorted already: only runs of equal scores move
            key = (np.cumsum(new) - 1) * self.num_frames + img_rank[
                self.det_frames[by_score]]
            by_image = by_score[np.argsort(key, kind='stable')]
            self._score_orders = (by_score, by_image)
        return self._score_orders

    @property
    def num_frames(self) -> int:
        """Number of frames (anchors and neighbours)."""
        return len(self.frame_keys)

    @property
    def num_anchors(self) -> int:
        """Number of anchors."""
        return len(self.anchors)

    @property
    def anchor_keys(self) -> List[str]:
        """Frame keys of the anchors, in anchor order."""
        return [self.frame_keys[f] for f in self.anchors]

    def edges(self) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Every (anchor, frame, offset) triple, the anchors themselves
        first (offset 0), then the neighbours.

        Returns:
            tuple[np.ndarray]: ``(anchor position, frame index, offset)``,
            each of shape (A + E,).
        """
        num = self.num_anchors
        return (np.concatenate([np.arange(num), self.nb_anchor]),
                np.concatenate([self.anchors, self.nb_frames]),
                np.concatenate([np.zeros(num, np.int64), self.nb_offsets]))


# ---------------------------------------------------------------------------
# Validation helpers


def _first_duplicate(items):
    seen = set()
    for item in items:
        if item in seen:
            return item
        seen.add(item)
    return None


def short_list(values, limit: int = 8) -> str:
    """The first ``limit`` values, comma-separated, for messages."""
    values = list(values)
    text = ', '.join(str(v) for v in values[:limit])
    return text + (', ...' if len(values) > limit else '')


def _int_array(values, name: str) -> np.ndarray:
    arr = np.asarray(values)
    if arr.size == 0:
        return arr.astype(np.int64).reshape(-1)
    if arr.dtype.kind not in 'iu':
        if arr.dtype.kind != 'f' or not np.all(
                np.isfinite(arr)) or np.any(arr != np.round(arr)):
            raise RobustDetError(f'{name} must be integers')
    return arr.astype(np.int64).reshape(-1)


def _frame_index(values, num_frames: int, name: str) -> np.ndarray:
    arr = _int_array(values, name)
    bad = (arr < 0) | (arr >= num_frames)
    if bad.any():
        raise RobustDetError(
            f'{name} has frame index {arr[bad][0]} out of range '
            f'[0, {num_frames})')
    return arr


def _boxes(values, n: int, name: str) -> np.ndarray:
    arr = np.asarray(values, dtype=np.float64)
    if arr.size == 0 and n == 0:
        return arr.reshape(0, 4)
    if arr.shape != (n, 4):
        raise RobustDetError(
            f'{name} must have shape ({n}, 4), got {arr.shape}')
    if not np.all(np.isfinite(arr)):
        raise RobustDetError(f'{name} must be finite')
    return arr


def check_ks(ks: Iterable[int]) -> List[int]:
    """The ks to evaluate: integers >= 0, sorted, always with 0."""
    if isinstance(ks, (int, np.integer)):
        ks = [ks]
    out = {0}
    for k in ks:
        if isinstance(k, bool) or not isinstance(k, (int, np.integer)):
            raise RobustDetError(f'k must be an integer >= 0, got {k!r}')
        if k < 0:
            raise RobustDetError(f'k must be >= 0, got {k}')
        out.add(int(k))
    return sorted(out)


# ---------------------------------------------------------------------------
# Loading COCO annotations / COCO results


def _check_entries(entries, what: str, check) -> None:
    """Find and report the first malformed entry (slow path)."""
    for i, entry in enumerate(entries):
        message = check(entry)
        if message:
            raise RobustDetError(
                f'{what} #{i} {_clip(entry)}: {message}')


def _clip(obj, limit: int = 100) -> str:
    text = json.dumps(obj) if _jsonable(obj) else repr(obj)
    return text if len(text) <= limit else text[:limit - 3] + '...'


def _jsonable(obj) -> bool:
    try:
        json.dumps(obj)
    except (TypeError, ValueError):
        return False
    return True


def _is_number(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(
        v, bool) and np.isfinite(v)


def _is_int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _check_box(entry) -> Optional[str]:
    box = entry.get('bbox')
    if not isinstance(box, (list, tuple)) or len(box) != 4 or not all(
            _is_number(v) for v in box):
        return 'bbox must be 4 finite numbers [x, y, w, h]'
    return None


def _check_prediction(entry) -> Optional[str]:
    if not isinstance(entry, dict):
        return 'not an object'
    for key in ('image_id', 'category_id', 'bbox', 'score'):
        if key not in entry:
            return f'missing {key!r}'
    if not _is_int(entry['image_id']):
        return 'image_id must be an integer'
    if not _is_int(entry['category_id']):
        return 'category_id must be an integer'
    if not _is_number(entry['score']):
        return 'score must be a finite number'
    return _check_box(entry)


def _check_annotation(entry) -> Optional[str]:
    if not isinstance(entry, dict):
        return 'not an object'
    for key in ('image_id', 'category_id', 'bbox'):
        if key not in entry:
            return f'missing {key!r}'
    if not _is_int(entry['image_id']) or not _is_int(entry['category_id']):
        return 'image_id and category_id must be integers'
    if 'area' in entry and not _is_number(entry['area']):
        return 'area must be a finite number'
    if not _is_number(entry.get('iscrowd', 0)) and not isinstance(
            entry.get('iscrowd'), bool):
        return 'iscrowd must be 0 or 1'
    return _check_box(entry)


def _prediction_arrays(preds: list):
    """Columns of a COCO results list; any malformed entry is reported
    with its index."""
    try:
        img = np.array([p['image_id'] for p in preds])
        cat = np.array([p['category_id'] for p in preds])
        score = np.array([p['score'] for p in preds], dtype=np.float64)
        box = np.array([p['bbox'] for p in preds], dtype=np.float64)
        ok = (img.dtype.kind in 'iu' and cat.dtype.kind in 'iu'
              and box.shape == (len(preds), 4) and np.all(np.isfinite(box))
              and np.all(np.isfinite(score)))
    except (TypeError, KeyError, ValueError, IndexError):
        ok = False
    if not ok:
        _check_entries(preds, 'prediction', _check_prediction)
        raise RobustDetError('predictions are malformed')  # pragma: no cover
    return img.astype(np.int64), cat.astype(np.int64), score, box


def load_pmk_data(sets: Any, ann: Any, pred: Any) -> PmkData:
    """Build :class:`PmkData` from the usual files.

    Args:
        sets: pm sets ``{anchor_key: [neighbour_key, ...]}`` (a path or the
            loaded object), keys like
            ``val/ILSVRC2015_val_00000000/000442.JPEG``.
        ann: COCO-style ground truth (CocoVID works: extra fields are
            ignored) whose ``images[].file_name`` are the frame keys.
            ``iscrowd`` defaults to 0, ``area`` to ``w * h``; as in
            ``COCOeval``, only ``iscrowd`` makes a box ignored (an
            ``ignore`` field is not read).
        pred: COCO results, a list of ``{image_id, category_id, bbox:
            [x, y, w, h], score}``. Predictions for images of the
            annotations that are not in the pm sets are not used (counted in
            ``info['predictions_outside_sets']``). An empty list is valid:
            every frame then has AP 0 (``info['num_predictions'] == 0``).

    Returns:
        PmkData: Frames in the order of first appearance in the pm sets
        (anchor, its neighbours, next anchor...).
    """
    parsed = parse_pmsets(read_json(sets, 'pm sets'))
    ann = read_json(ann, 'annotations')
    preds = read_json(pred, 'predictions')
    if not isinstance(ann, dict) or not isinstance(
            ann.get('images'), list) or not isinstance(
                ann.get('annotations'), list) or not isinstance(
                    ann.get('categories'), list):
        raise RobustDetError(
            'annotations must be a COCO JSON object with images, '
            'annotations and categories lists')
    if not isinstance(preds, list):
        raise RobustDetError(
            'predictions must be a JSON list of {image_id, category_id, '
            'bbox, score} objects, got ' + type(preds).__name__)

    # images and categories
    by_name, all_ids = {}, set()
    for i, img in enumerate(ann['images']):
        if not isinstance(img, dict) or not _is_int(
                img.get('id')) or not isinstance(img.get('file_name'), str):
            raise RobustDetError(
                f'annotations image #{i} {_clip(img)} needs an integer id '
                'and a file_name')
        if img['id'] in all_ids:
            raise RobustDetError(
                f'annotations list image id {img["id"]} twice')
        if img['file_name'] in by_name:
            raise RobustDetError(
                f'annotations list file_name {img["file_name"]!r} twice')
        all_ids.add(img['id'])
        by_name[img['file_name']] = img['id']
    categories = []
    for i, cat in enumerate(ann['categories']):
        if not isinstance(cat, dict) or not _is_int(cat.get('id')):
            raise RobustDetError(
                f'annotations category #{i} {_clip(cat)} needs an integer id')
        categories.append(cat['id'])
    if not categories:
        raise RobustDetError('annotations have no categories')
    cat_set = set(categories)

    # frames
    keys, index = [], {}
    for anchor, pairs in parsed:
        for key in [anchor] + [nb for nb, _ in pairs]:
            if key not in index:
                if key not in by_name:
                    example = next(iter(by_name), None)
                    raise RobustDetError(
                        f'frame {key!r} of the pm sets is not an image '
                        'file_name of the annotations' +
                        (f' (they look like {example!r})' if example else ''))
                index[key] = len(keys)
                keys.append(key)
    image_ids = np.array([by_name[k] for k in keys], np.int64)
    frame_of_id = {int(i): f for f, i in enumerate(image_ids)}

    # ground truth
    g_frame, g_box, g_cat, g_crowd, g_area = [], [], [], [], []
    for i, a in enumerate(ann['annotations']):
        msg = _check_annotation(a)
        if msg:
            raise RobustDetError(f'annotation #{i} {_clip(a)}: {msg}')
        if a['image_id'] not in all_ids:
            raise RobustDetError(
                f'annotation #{i} refers to unknown image_id {a["image_id"]}')
        if a['category_id'] not in cat_set:
            raise RobustDetError(
                f'annotation #{i} has category_id {a["category_id"]} that '
                'is not in categories')
        f = frame_of_id.get(a['image_id'])
        if f is None:
            continue
        box = a['bbox']
        g_frame.append(f)
        g_box.append(box)
        g_cat.append(a['category_id'])
        g_crowd.append(bool(a.get('iscrowd', 0)))
        g_area.append(
            float(a['area']) if 'area' in a else float(box[2]) *
            float(box[3]))

    # predictions
    num_preds = len(preds)
    if num_preds:
        img, cat, score, box = _prediction_arrays(preds)
        unknown = ~np.isin(img, np.fromiter(all_ids, np.int64))
        if unknown.any():
            i = int(np.flatnonzero(unknown)[0])
            raise RobustDetError(
                f'prediction #{i} is for image_id {img[i]}, which is not in '
                'the annotations')
        bad = ~np.isin(cat, np.asarray(categories, np.int64))
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise RobustDetError(
                f'prediction #{i} has category_id {cat[i]}, which is not in '
                f"the annotations' categories ({short_list(categories)})")
        ids_sorted = np.argsort(image_ids)
        pos = np.searchsorted(image_ids[ids_sorted], img)
        pos = np.minimum(pos, len(image_ids) - 1)
        frame = ids_sorted[pos]
        used = image_ids[frame] == img
        d_frame, d_box = frame[used], box[used]
        d_score, d_cat = score[used], cat[used]
    else:
        used = np.zeros(0, bool)
        d_frame, d_box = np.zeros(0, np.int64), np.zeros((0, 4))
        d_score, d_cat = np.zeros(0), np.zeros(0, np.int64)

    neighbours = [[(index[nb], off) for nb, off in pairs]
                  for _, pairs in parsed]
    return PmkData(
        frame_keys=keys,
        categories=categories,
        gt_frames=np.asarray(g_frame, np.int64),
        gt_bboxes=np.asarray(g_box, np.float64).reshape(-1, 4),
        gt_labels=np.asarray(g_cat, np.int64),
        gt_crowd=np.asarray(g_crowd, bool),
        gt_areas=np.asarray(g_area, np.float64),
        det_frames=d_frame,
        det_bboxes=d_box,
        det_scores=d_score,
        det_labels=d_cat,
        anchors=[index[a] for a, _ in parsed],
        neighbours=neighbours,
        image_ids=image_ids,
        info=dict(
            num_predictions=num_preds,
            predictions_outside_sets=int(num_preds - used.sum())))


def load_labels(source: Any,
                categories: Sequence[int]) -> Dict[str, List[int]]:
    """Frame labels from ImageNet-Vid-Robust's ``labels.json`` form
    ``{frame_key: [class_idx, ...]}``, as category ids.

    A class index is the position of the category among ``categories``
    sorted by id (ImageNet VID: 0-29 = the 30 classes in alphabetical
    order, which is their id order in CocoVID conversions).

    Args:
        source: A path or the loaded object.
        categories (Sequence[int]): The annotation's category ids.

    Returns:
        dict[str, list[int]]: ``{frame_key: [category id, ...]}``.
    """
    labels = read_json(source, 'labels')
    if not isinstance(labels, dict):
        raise RobustDetError(
            'labels must be a JSON object {frame_key: [class_idx, ...]}')
    ids = sorted(int(c) for c in categories)
    out = {}
    for key, idx in labels.items():
        if not isinstance(idx, list) or not all(_is_int(i) for i in idx):
            raise RobustDetError(
                f'labels of frame {key!r} must be a list of class indices')
        bad = [i for i in idx if not 0 <= i < len(ids)]
        if bad:
            raise RobustDetError(
                f'labels of frame {key!r}: class index {bad[0]} is out of '
                f'range for {len(ids)} categories (indices 0-{len(ids) - 1})')
        out[key] = [ids[i] for i in idx]
    return out
