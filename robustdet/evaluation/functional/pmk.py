# Copyright (c) robustdet contributors. All rights reserved.
"""pm-k for detectors: the worst frame among nearly identical video frames.

Shankar et al., *Do Image Classifiers Generalize Across Time?* (2019,
ImageNet-Vid-Robust / YTBB-Robust): every anchor frame has up to 20
"neighbour" frames of the same video at offsets -10..+10. pm-k scores a
model on the **worst** frame among the anchor and its neighbours with
``|offset| <= k``. This module computes it for detectors, with plain numpy
(and scipy for the Clopper-Pearson intervals):

* **Per-image AP** (:func:`per_image_ap`): pycocotools' bbox AP at IoU 0.5
  (101 recall points, at most 100 detections per category and image, area
  range ``all``, crowd boxes ignored) of ``COCOeval`` run on that frame
  alone: the mean over the categories with non-crowd ground truth in the
  frame. Frames without non-crowd ground truth have no AP (NaN) and are not
  **candidates**: they cannot be a worst frame, and an anchor that is not a
  candidate is left out of pm-k for every k (reported in
  ``skipped_anchors``). All frames are scored at once: detections of all
  frames are matched to ground truth rank by rank in lock-step.
* **pm-k mAP** (:func:`pmk_map`): for every anchor the worst candidate frame
  for k (lowest per-image AP; ties go to the anchor, then to the smallest
  ``|offset|``, then to the negative offset; APs are compared rounded to
  12 decimals so that summation order cannot break a tie), then ``COCOeval``
  AP@0.5 over the **set** of worst frames (a frame chosen by two anchors
  counts once, as an image id list does in ``COCOeval``). pm-0 is the
  ordinary AP@0.5 over the anchors; ``delta[k] = map[0] - map[k]``. The
  worst frames get worse as k grows, but a set's mAP is not a function of
  its frames' APs, so pm-k mAP need not decrease monotonically. With no
  detections at all every frame has AP 0.
* **Localization** (``class_agnostic=True``): the same with every ground
  truth box and detection relabelled to one category (so the 100-detection
  cap is per image).
* **Classification** (:func:`pmk_classification`): a frame's prediction is
  the label of its top-scoring box (ties: the first in the predictions
  file; no box: wrong). An anchor is correct for k when it and every judged
  neighbour with ``|offset| <= k`` are correct; Clopper-Pearson 95 %
  intervals.
* **Error vs offset** (:func:`error_vs_offset`): the paper's figure 5 as
  table data.

Equality with pycocotools (to 1e-12, tested against ``COCOeval``) rests on
the same IoU arithmetic, the same greedy matching and the same tie orders:
detections of an image are sorted by score with a stable sort, so ties keep
the order of the predictions file; across images (pm-k sets) ties are
broken by ascending image id, then that order, as ``COCOeval`` does.

Boxes are ``[x, y, w, h]`` (COCO) everywhere in this module.
"""
import json
import os
import re
from typing import (Any, Dict, Iterable, List, Mapping, Optional, Sequence,
                    Tuple, Union)

import numpy as np

from ...utils.errors import RobustDetError

__all__ = [
    'JUDGE_MODES', 'MAX_DETS', 'PmkData', 'clopper_pearson',
    'error_vs_offset', 'frame_number', 'frame_predictions', 'load_labels',
    'load_pmk_data', 'parse_pmsets', 'per_image_ap', 'pmk_classification',
    'pmk_map', 'read_json'
]

#: Detections kept per category and image (``COCOeval`` maxDets[-1]).
MAX_DETS = 100
#: IoU threshold of AP50.
IOU_THR = 0.5
#: pycocotools' 101 recall thresholds (the same expression, the same
#: floats).
REC_THRS = np.linspace(
    .0, 1.00, int(np.round((1.00 - .0) / .01)) + 1, endpoint=True)
#: ``COCOeval`` area range ``all``: ground truth and unmatched detections
#: outside it are ignored.
AREA_RANGE = (0**2, 1e5**2)
#: Decimals to which APs are rounded when looking for the worst frame.
TIE_DECIMALS = 12
#: Classification judging modes: each frame against its own labels
#: (ImageNet-Vid-Robust) or against the anchor's labels (YTBB-Robust).
JUDGE_MODES = ('frame', 'anchor')

_EPS = np.spacing(1)
_FRAME_NUMBER = re.compile(r'(\d+)(?!.*\d)')


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
                f'in categories ({_short_list(self.categories)})')
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


def _short_list(values, limit: int = 8) -> str:
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


def _check_ks(ks: Iterable[int]) -> List[int]:
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
# Per-image evaluation (COCOeval.evaluateImg for every frame at once)


def _run_starts(sorted_keys: np.ndarray) -> np.ndarray:
    """For a sorted key array, the index of the first element of each
    element's run of equal keys."""
    n = len(sorted_keys)
    if n == 0:
        return np.zeros(0, np.int64)
    new = np.ones(n, bool)
    new[1:] = sorted_keys[1:] != sorted_keys[:-1]
    starts = np.flatnonzero(new)
    return starts[np.cumsum(new) - 1]


def _segment_cumsum(flags: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """Inclusive cumulative sum of ``flags`` restarting at each run start."""
    csum = np.cumsum(flags, dtype=np.int64)
    base = np.where(starts > 0, csum[np.maximum(starts - 1, 0)], 0)
    return csum - base


def _radix_argsort(keys: np.ndarray, order: np.ndarray) -> np.ndarray:
    """Stable sort of the index sequence ``order`` by ``keys[order]``
    (non-negative integers): least significant 15-bit digit first, as
    int16, which numpy sorts with a linear-time radix sort."""
    if len(order) == 0:
        return order
    top = int(keys.max())
    shift = 0
    while True:
        digit = ((keys[order] >> shift) & 0x7FFF).astype(np.int16)
        order = order[np.argsort(digit, kind='stable')]
        shift += 15
        if top >> shift == 0:
            return order


def _last_argmax(values: np.ndarray) -> np.ndarray:
    """Column of the last maximum of each row (``COCOeval`` keeps the later
    of equally good ground truth boxes)."""
    cols = values.shape[1]
    return cols - 1 - np.argmax(values[:, ::-1], axis=1)


def _match_bucket(result, det_boxes, dstart, dcount, gstart, gcount,
                  gt_boxes, gt_ign, gt_crowd, gt_thr) -> None:
    """Greedy matching of ``COCOeval.evaluateImg`` for groups (frame and
    category) with detections and ground truth, rank by rank in lock-step.

    Groups are sorted by decreasing number of detections, so the groups
    still matching at rank r are a prefix. Writes into ``result`` (per
    detection): -1 unmatched, 0 matched to a regular box, 1 matched to an
    ignored (crowd) box.
    """
    order = np.argsort(-dcount, kind='stable')
    dstart, dcount = dstart[order], dcount[order]
    gstart, gcount = gstart[order], gcount[order]
    num_cols = int(gcount.max())
    cols = np.arange(num_cols)
    valid = cols[None, :] < gcount[:, None]
    gidx = np.where(valid, gstart[:, None] + cols[None, :], 0)
    gx, gy = gt_boxes[gidx, 0], gt_boxes[gidx, 1]
    gw, gh = gt_boxes[gidx, 2], gt_boxes[gidx, 3]
    # The arithmetic of pycocotools' bbIou (maskApi.c), operation by
    # operation, so that IoUs equal to the threshold compare the same.
    garea = gw * gh
    gx2 = gw + gx
    gy2 = gh + gy
    ign = gt_ign[gidx] & valid
    crowd = gt_crowd[gidx] & valid
    thr = gt_thr[gidx]
    # Padding columns count as matched non-crowd boxes: never eligible.
    matched = ~valid
    neg_dcount = -dcount
    for rank in range(int(dcount[0])):
        n = int(np.searchsorted(neg_dcount, -rank, side='left'))
        di = dstart[:n] + rank
        box = det_boxes[di]
        dx, dy = box[:, 0:1], box[:, 1:2]
        dw, dh = box[:, 2:3], box[:, 3:4]
        darea = dw * dh
        w = np.minimum(dw + dx, gx2[:n]) - np.maximum(dx, gx[:n])
        h = np.minimum(dh + dy, gy2[:n]) - np.maximum(dy, gy[:n])
        inter = w * h
        crowd_n = crowd[:n]
        union = np.where(crowd_n, darea, (darea + garea[:n]) - inter)
        with np.errstate(divide='ignore', invalid='ignore'):
            iou = np.where((w > 0) & (h > 0), inter / union, 0.0)
        eligible = (~matched[:n] | crowd_n) & (iou >= thr[:n])
        value = np.where(eligible, iou, -1.0)
        ign_n = ign[:n]
        # Regular boxes come first; an ignored box is considered only when
        # no regular box matches (COCOeval's ``break``).
        regular = np.where(ign_n, -1.0, value)
        ignored = np.where(ign_n, value, -1.0)
        rows = np.arange(n)
        j_reg = _last_argmax(regular)
        j_ign = _last_argmax(ignored)
        has_reg = regular[rows, j_reg] >= 0
        has_ign = ignored[rows, j_ign] >= 0
        col = np.where(has_reg, j_reg, j_ign)
        hit = has_reg | has_ign
        rows, col = rows[hit], col[hit]
        matched[rows, col] = True
        result[di[hit]] = ign_n[rows, col]


def _match(det_group, det_boxes, gt_group, gt_boxes, gt_ign, gt_crowd,
           gt_thr) -> np.ndarray:
    """Match detections (sorted by group, then rank) to ground truth
    (sorted by group, then ignore flag, then file order).

    Returns:
        np.ndarray: int8 per detection: -1 unmatched, 0 matched to a
        regular box, 1 matched to an ignored box.
    """
    result = np.full(len(det_group), -1, np.int8)
    if len(det_group) == 0 or len(gt_group) == 0:
        return result
    d_ids, d_start, d_count = np.unique(
        det_group, return_index=True, return_counts=True)
    g_ids, g_start, g_count = np.unique(
        gt_group, return_index=True, return_counts=True)
    _, di, gi = np.intersect1d(
        d_ids, g_ids, assume_unique=True, return_indices=True)
    if len(di) == 0:
        return result
    d_start, d_count = d_start[di], d_count[di]
    g_start, g_count = g_start[gi], g_count[gi]
    # Buckets of similar ground truth counts keep the padding small.
    bucket = np.ceil(np.log2(g_count)).astype(np.int64)
    for b in np.unique(bucket):
        sel = bucket == b
        _match_bucket(result, det_boxes, d_start[sel], d_count[sel],
                      g_start[sel], g_count[sel], gt_boxes, gt_ign, gt_crowd,
                      gt_thr)
    return result


def _recall_weights(npig: np.ndarray,
                    num_cols: int) -> Tuple[np.ndarray, np.ndarray]:
    """How many of the 101 recall thresholds read each column of the
    suffix-maximum precision matrix, per distinct number of ground truth.

    With ``npig`` regular boxes, pycocotools reads the interpolated
    precision at ``searchsorted(tp / npig, t, 'left')``: the position of
    the m-th true positive, m the smallest integer with ``m / npig >= t``
    (computed in the same floats). Column ``m - 1`` (column 0 for m = 0),
    or the all-zero last column when fewer true positives exist.

    Returns:
        tuple[np.ndarray]: weights (U, num_cols + 1) and, per entry of
        ``npig``, its row.
    """
    uniq, inv = np.unique(npig, return_inverse=True)
    n = uniq[:, None].astype(np.float64)
    t = REC_THRS[None, :]
    m = np.minimum(np.ceil(t * n), n).astype(np.int64)
    for _ in range(4):
        m = np.where((m > 0) & ((m - 1) / n >= t), m - 1, m)
        m = np.where(m / n < t, m + 1, m)
    assert np.all(m / n >= t) and np.all((m == 0) | ((m - 1) / n < t))
    col = np.minimum(np.maximum(m - 1, 0), num_cols)
    weights = np.zeros((len(uniq), num_cols + 1))
    rows = np.repeat(np.arange(len(uniq)), len(REC_THRS))
    np.add.at(weights, (rows, col.ravel()), 1.0)
    return weights, inv.reshape(-1)


def _group_ap(num_groups: int, tp_group: np.ndarray, tp_ordinal: np.ndarray,
              tp_fp: np.ndarray, npig: np.ndarray) -> np.ndarray:
    """AP@0.5 of groups from their true positives.

    ``COCOeval.accumulate``: precision after each detection, running
    maximum from the right, read at 101 recall thresholds. Only the
    positions of true positives matter: the running maximum at any position
    is the largest precision at a later (or the same) true positive.

    Args:
        num_groups (int): G.
        tp_group (np.ndarray): (T,) group of each true positive.
        tp_ordinal (np.ndarray): (T,) 1-based ordinal of the true positive
            in its group's ranking.
        tp_fp (np.ndarray): (T,) false positives ranked before it.
        npig (np.ndarray): (G,) regular ground truth count, > 0.

    Returns:
        np.ndarray: (G,) AP.
    """
    num_cols = int(tp_ordinal.max()) if len(tp_ordinal) else 0
    prec = np.zeros((num_groups, num_cols + 1))
    tp = tp_ordinal.astype(np.float64)
    prec[tp_group, tp_ordinal - 1] = tp / (
        (tp_fp.astype(np.float64) + tp) + _EPS)
    prec = np.maximum.accumulate(prec[:, ::-1], axis=1)[:, ::-1]
    weights, row = _recall_weights(npig, num_cols)
    return (prec * weights[row]).sum(axis=1) / len(REC_THRS)


class _Evaluation:
    """Detections matched to ground truth, for one labelling mode.

    Everything pm-k needs: the per-image AP of every frame and, for set
    evaluation, the kept detections in ``COCOeval.accumulate``'s order
    (category, score descending, image id, file order) with their true /
    false positive flags.
    """

    def __init__(self, data: PmkData, class_agnostic: bool, vid_iou: bool):
        self.data = data
        num_frames = data.num_frames
        if class_agnostic:
            num_cats = 1
            det_cat = np.zeros(len(data.det_labels), np.int64)
            gt_cat = np.zeros(len(data.gt_labels), np.int64)
        else:
            num_cats = len(data.categories)
            det_cat = np.searchsorted(data.categories, data.det_labels)
            gt_cat = np.searchsorted(data.categories, data.gt_labels)
        self.num_cats = num_cats

        # Detections: sorted by (frame, category), score descending, file
        # order (stable sorts), at most MAX_DETS per group.
        by_score, by_image = data.score_orders()
        det_group = data.det_frames * num_cats + det_cat
        order = _radix_argsort(det_group, by_score)
        sorted_group = det_group[order]
        starts = _run_starts(sorted_group)
        keep = np.arange(len(order)) - starts < MAX_DETS
        kept = order[keep]
        det_group = sorted_group[keep]
        det_boxes = data.det_bboxes[kept]
        det_area = det_boxes[:, 2] * det_boxes[:, 3]
        det_out = (det_area < AREA_RANGE[0]) | (det_area > AREA_RANGE[1])

        # Ground truth: ignored (crowd or outside the area range) last,
        # else file order.
        gt_ign = data.gt_crowd | (data.gt_areas < AREA_RANGE[0]) | (
            data.gt_areas > AREA_RANGE[1])
        gt_group = data.gt_frames * num_cats + gt_cat
        gorder = np.lexsort((gt_ign, gt_group))
        gt_group_s = gt_group[gorder]
        gt_boxes = data.gt_bboxes[gorder]
        if vid_iou:
            gw, gh = gt_boxes[:, 2], gt_boxes[:, 3]
            with np.errstate(divide='ignore', invalid='ignore'):
                thr = np.minimum(IOU_THR, (gw * gh) / ((gw + 10) * (gh + 10)))
        else:
            thr = np.full(len(gt_boxes), IOU_THR)

        res = _match(det_group, det_boxes, gt_group_s, gt_boxes,
                     gt_ign[gorder], data.gt_crowd[gorder], thr)
        tp = res == 0
        fp = (res == -1) & ~det_out

        # Per-image AP: groups with regular ground truth.
        regular = ~gt_ign
        pos_groups, npig = np.unique(gt_group[regular], return_counts=True)
        dstarts = _run_starts(det_group)
        ordinal = _segment_cumsum(tp, dstarts)[tp]
        fp_before = _segment_cumsum(fp, dstarts)[tp]
        tp_group = np.searchsorted(pos_groups, det_group[tp])
        group_ap = _group_ap(
            len(pos_groups), tp_group, ordinal, fp_before, npig)
        group_frame = pos_groups // num_cats
        counts = np.bincount(group_frame, minlength=num_frames)
        sums = np.bincount(group_frame, group_ap, minlength=num_frames)
        with np.errstate(invalid='ignore', divide='ignore'):
            self.frame_ap = np.where(counts > 0, sums / counts, np.nan)

        # Set evaluation order: category, score descending, image id, rank.
        # (all kept detections in accumulate's order, then by category)
        kept_mask = np.zeros(len(data.det_scores), bool)
        kept_mask[kept] = True
        seq = _radix_argsort(det_cat, by_image[kept_mask[by_image]])
        position = np.empty(len(data.det_scores), np.int64)
        position[kept] = np.arange(len(kept))
        sorder = position[seq]
        frames = det_group // num_cats
        cats = det_group % num_cats
        self.set_frame = frames[sorder]
        self.set_cat = cats[sorder]
        self.set_tp = tp[sorder]
        self.set_fp = fp[sorder]
        self.gt_frame = data.gt_frames[regular]
        self.gt_cat = gt_cat[regular]

    def set_map(self, frames: np.ndarray) -> float:
        """``COCOeval`` AP@0.5 over a set of frames (mean over categories
        with regular ground truth in the set); NaN when there is none."""
        in_set = np.zeros(self.data.num_frames, bool)
        in_set[frames] = True
        npig = np.bincount(
            self.gt_cat[in_set[self.gt_frame]], minlength=self.num_cats)
        cats = np.flatnonzero(npig)
        if len(cats) == 0:
            return float('nan')
        sel = in_set[self.set_frame]
        cat, tp, fp = self.set_cat[sel], self.set_tp[sel], self.set_fp[sel]
        starts = _run_starts(cat)
        ordinal = _segment_cumsum(tp, starts)[tp]
        fp_before = _segment_cumsum(fp, starts)[tp]
        group = np.searchsorted(cats, cat[tp])
        ap = _group_ap(len(cats), group, ordinal, fp_before, npig[cats])
        return float(np.mean(ap))


def per_image_ap(data: PmkData,
                 class_agnostic: bool = False,
                 vid_iou: bool = False) -> np.ndarray:
    """AP@0.5 of every frame on its own, as ``COCOeval`` on that image.

    Args:
        data (PmkData): The inputs.
        class_agnostic (bool): Merge all classes into one (localization).
        vid_iou (bool): ImageNet VID's IoU threshold for small boxes,
            ``min(0.5, w*h / ((w+10)*(h+10)))`` per ground truth box (the
            best eligible box still wins); not ``COCOeval`` then.

    Returns:
        np.ndarray: (F,) AP; NaN for frames that are not candidates (no
        non-crowd ground truth).
    """
    return _Evaluation(data, class_agnostic, vid_iou).frame_ap


def _ap_key(ap: np.ndarray) -> np.ndarray:
    return np.round(ap, TIE_DECIMALS)


def _worst_frames(data: PmkData, frame_ap: np.ndarray,
                  ks: Sequence[int]) -> Tuple[Dict[int, np.ndarray],
                                              np.ndarray]:
    """Worst candidate frame of every anchor for every k (-1: skipped)."""
    ea, ef, eo = data.edges()
    cand = ~np.isnan(frame_ap[ef])
    anchor_ok = ~np.isnan(frame_ap[data.anchors])
    key = np.where(cand, _ap_key(frame_ap[ef]), np.inf)
    # lowest AP, then the anchor (offset 0), smallest |offset|, negative
    order = np.lexsort((eo, np.abs(eo), key, ea))
    ea, ef, eo, cand = ea[order], ef[order], eo[order], cand[order]
    usable = cand & anchor_ok[ea]
    worst = {}
    for k in ks:
        sel = usable & (np.abs(eo) <= k)
        a, f = ea[sel], ef[sel]
        first = np.ones(len(a), bool)
        first[1:] = a[1:] != a[:-1]
        out = np.full(data.num_anchors, -1, np.int64)
        out[a[first]] = f[first]
        worst[k] = out
    return worst, anchor_ok


def pmk_map(data: PmkData,
            ks: Iterable[int] = range(11),
            class_agnostic: bool = False,
            vid_iou: bool = False) -> Dict[str, Any]:
    """pm-k mAP@0.5 of a detector.

    Args:
        data (PmkData): The inputs.
        ks (Iterable[int]): The ks (>= 0); 0 is always evaluated.
        class_agnostic (bool): The localization variant (one class).
        vid_iou (bool): See :func:`per_image_ap`.

    Returns:
        dict: ``ks`` (list), ``map`` and ``delta`` (``{k: float}``,
        ``delta[k] = map[0] - map[k]``), ``worst_frames`` (``{k: (A,)
        frame index, -1 for skipped anchors}``), ``num_worst_frames``
        (``{k: distinct frames}``), ``skipped_anchors`` (anchor positions
        that are not candidates), ``frame_ap`` ((F,) per-image AP).
    """
    ks = _check_ks(ks)
    ev = _Evaluation(data, class_agnostic, vid_iou)
    worst, anchor_ok = _worst_frames(data, ev.frame_ap, ks)
    if not anchor_ok.any():
        raise RobustDetError(
            'no anchor has non-crowd ground truth; pm-k is undefined')
    maps, nums = {}, {}
    for k in ks:
        frames = np.unique(worst[k][anchor_ok])
        maps[k] = ev.set_map(frames)
        nums[k] = len(frames)
    return dict(
        ks=ks,
        map=maps,
        delta={k: maps[0] - maps[k]
               for k in ks},
        worst_frames=worst,
        num_worst_frames=nums,
        skipped_anchors=np.flatnonzero(~anchor_ok).tolist(),
        frame_ap=ev.frame_ap)


# ---------------------------------------------------------------------------
# Classification from a detector


def frame_predictions(data: PmkData) -> np.ndarray:
    """The class a detector predicts for each frame: the label of its
    top-scoring box (equal scores: the first in the predictions file).

    Returns:
        np.ndarray: (F,) category id, -1 for frames without detections.
    """
    pred = np.full(data.num_frames, -1, np.int64)
    if len(data.det_scores) == 0:
        return pred
    best = np.full(data.num_frames, -np.inf)
    np.maximum.at(best, data.det_frames, data.det_scores)
    top = np.flatnonzero(data.det_scores == best[data.det_frames])
    frames, first = np.unique(data.det_frames[top], return_index=True)
    pred[frames] = data.det_labels[top[first]]
    return pred


def clopper_pearson(correct, total, alpha: float = 0.05):
    """Clopper-Pearson (exact binomial) interval.

    Args:
        correct (int or array-like): Successes x.
        total (int or array-like): Trials n (> 0).
        alpha (float): 1 - confidence level.

    Returns:
        tuple: ``(low, high)``; low is 0 when x = 0, high is 1 when x = n.
    """
    from scipy.stats import beta
    x = np.asarray(correct, dtype=np.float64)
    n = np.asarray(total, dtype=np.float64)
    with np.errstate(invalid='ignore', divide='ignore'):
        low = np.where(x > 0, beta.ppf(alpha / 2, x, n - x + 1), 0.0)
        high = np.where(x < n, beta.ppf(1 - alpha / 2, x + 1, n - x), 1.0)
    if low.ndim == 0:
        return float(low), float(high)
    return low, high


def _label_table(data: PmkData, labels: Optional[Mapping[str, Sequence[int]]],
                 needed: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
    """Sorted ``frame * C + category index`` keys of the frames' label sets
    and which frames have a non-empty set.

    Derived labels: the categories of all ground truth boxes of the frame
    (crowd boxes included). Explicit labels: ``{frame_key: [category id,
    ...]}``, required for every frame in ``needed``.
    """
    num_cats = len(data.categories)
    if labels is None:
        frames = data.gt_frames
        cats = np.searchsorted(data.categories, data.gt_labels)
    else:
        if not isinstance(labels, Mapping):
            raise RobustDetError(
                'labels must be a mapping {frame_key: [category id, ...]}')
        frames, cats = [], []
        for f in np.flatnonzero(needed):
            key = data.frame_keys[f]
            if key not in labels:
                raise RobustDetError(f'labels have no entry for frame {key!r}')
            values = labels[key]
            if not isinstance(values, (list, tuple)) or not all(
                    isinstance(v, (int, np.integer))
                    and not isinstance(v, bool) for v in values):
                raise RobustDetError(
                    f'labels of frame {key!r} must be a list of category '
                    f'ids, got {values!r}')
            for v in values:
                if v not in data.categories:
                    raise RobustDetError(
                        f'label {v} of frame {key!r} is not a category id of '
                        f'the annotations ({_short_list(data.categories)})')
                frames.append(f)
                cats.append(int(np.searchsorted(data.categories, v)))
        frames = np.asarray(frames, np.int64)
        cats = np.asarray(cats, np.int64)
    keys = np.unique(frames * num_cats + cats)
    has = np.zeros(data.num_frames, bool)
    has[frames] = True
    return keys, has


def _judge(data: PmkData, judge: str,
           labels: Optional[Mapping[str, Sequence[int]]]):
    """Correctness of every (anchor, frame) edge.

    Returns:
        tuple: edges ``(ea, ef, eo)``, ``judged`` and ``correct`` per edge,
        ``anchor_ok`` per anchor (has labels, else skipped).
    """
    if judge not in JUDGE_MODES:
        raise RobustDetError(
            f'judge must be one of {", ".join(JUDGE_MODES)}, got {judge!r}')
    ea, ef, eo = data.edges()
    needed = np.zeros(data.num_frames, bool)
    needed[data.anchors] = True
    if judge == 'frame':
        needed[ef] = True
    keys, has = _label_table(data, labels, needed)
    has_pred = np.bincount(
        data.det_frames, minlength=data.num_frames)[ef] > 0
    pred_idx = np.searchsorted(data.categories, frame_predictions(data)[ef])
    ref = ef if judge == 'frame' else data.anchors[ea]
    correct = has_pred & np.isin(ref * len(data.categories) + pred_idx, keys)
    judged = has[ef] if judge == 'frame' else np.ones(len(ea), bool)
    anchor_ok = has[data.anchors]
    return (ea, ef, eo), judged, correct, anchor_ok


def pmk_classification(data: PmkData,
                       ks: Iterable[int] = range(11),
                       judge: str = 'frame',
                       labels: Optional[Mapping[str, Sequence[int]]] = None,
                       alpha: float = 0.05) -> Dict[str, Any]:
    """pm-k accuracy of the detector used as a classifier.

    A frame's prediction is the label of its top-scoring box
    (:func:`frame_predictions`); no box is wrong. An anchor is correct for
    k when it and every judged neighbour with ``|offset| <= k`` are
    correct.

    Args:
        data (PmkData): The inputs.
        ks (Iterable[int]): The ks (>= 0); 0 is always evaluated.
        judge (str): ``'frame'``: each frame against its own label set
            (ImageNet-Vid-Robust); frames with an empty set are not judged,
            anchors with one are skipped. ``'anchor'``: every frame against
            the anchor's labels (YTBB-Robust); anchors with an empty set
            are skipped.
        labels (Mapping[str, Sequence[int]], optional): Explicit label sets
            ``{frame_key: [category id, ...]}`` (e.g. ImageNet-Vid-Robust's
            labels.json, mapped to category ids); default: the categories
            of each frame's ground truth boxes, crowd boxes included.
        alpha (float): 1 - confidence level of the intervals.

    Returns:
        dict: ``judge``, ``ks``, ``accuracy`` (``{k: {'acc', 'low',
        'high', 'correct', 'n'}}``), ``delta`` (``{k: acc[0] - acc[k]}``),
        ``skipped_anchors`` (anchor positions), ``predictions`` ((F,)
        predicted category id, -1 for none).
    """
    ks = _check_ks(ks)
    (ea, ef, eo), judged, correct, anchor_ok = _judge(data, judge, labels)
    n = int(anchor_ok.sum())
    if n == 0:
        raise RobustDetError(
            'no anchor has a label; pm-k accuracy is undefined')
    wrong = judged & ~correct
    acc = {}
    for k in ks:
        bad = np.bincount(
            ea[wrong & (np.abs(eo) <= k)], minlength=data.num_anchors)
        num = int(np.sum(anchor_ok & (bad == 0)))
        low, high = clopper_pearson(num, n, alpha)
        acc[k] = dict(acc=num / n, low=low, high=high, correct=num, n=n)
    return dict(
        judge=judge,
        ks=ks,
        accuracy=acc,
        delta={k: acc[0]['acc'] - acc[k]['acc']
               for k in ks},
        skipped_anchors=np.flatnonzero(~anchor_ok).tolist(),
        predictions=frame_predictions(data))


# ---------------------------------------------------------------------------
# Error vs offset (figure 5 of the paper)


def error_vs_offset(data: PmkData,
                    kind: str = 'detection',
                    frame_ap: Optional[np.ndarray] = None,
                    judge: str = 'frame',
                    labels: Optional[Mapping[str, Sequence[int]]] = None,
                    class_agnostic: bool = False,
                    vid_iou: bool = False) -> List[Dict[str, Any]]:
    """How often a neighbour at offset d is worse than its anchor.

    ``'detection'``: among candidate neighbours of candidate anchors, the
    fraction with a strictly lower per-image AP than the anchor (compared
    rounded like the worst frame). ``'classification'``: among judged
    neighbours of anchors that are correct, the fraction that are wrong.

    Args:
        data (PmkData): The inputs.
        kind (str): ``'detection'`` or ``'classification'``.
        frame_ap (np.ndarray, optional): Per-image AP (detection), e.g.
            ``pmk_map(...)['frame_ap']``; computed when not given.
        judge (str): Judging mode (classification).
        labels (Mapping, optional): Explicit labels (classification).
        class_agnostic (bool): For computing ``frame_ap``.
        vid_iou (bool): For computing ``frame_ap``.

    Returns:
        list[dict]: One row per offset present (d != 0), ascending:
        ``offset``, ``n``, ``worse``, ``fraction`` (NaN when n = 0).
    """
    if kind == 'detection':
        if frame_ap is None:
            frame_ap = per_image_ap(data, class_agnostic, vid_iou)
        frame_ap = np.asarray(frame_ap, dtype=np.float64)
        a_ap = _ap_key(frame_ap[data.anchors[data.nb_anchor]])
        n_ap = _ap_key(frame_ap[data.nb_frames])
        counted = ~np.isnan(a_ap) & ~np.isnan(n_ap)
        worse = counted & (n_ap < a_ap)
        offsets = data.nb_offsets
    elif kind == 'classification':
        (ea, _, eo), judged, correct, anchor_ok = _judge(data, judge, labels)
        num = data.num_anchors
        anchor_right = anchor_ok & correct[:num]
        nb = slice(num, None)
        counted = judged[nb] & anchor_right[ea[nb]]
        worse = counted & ~correct[nb]
        offsets = eo[nb]
    else:
        raise RobustDetError(
            f'kind must be detection or classification, got {kind!r}')
    rows = []
    for d in np.unique(offsets):
        at = offsets == d
        n = int(np.sum(counted & at))
        w = int(np.sum(worse & at))
        rows.append(
            dict(
                offset=int(d),
                n=n,
                worse=w,
                fraction=w / n if n else float('nan')))
    return rows


# ---------------------------------------------------------------------------
# Loading pmsets / COCO annotations / COCO results


def read_json(source: Union[str, os.PathLike, Any], what: str) -> Any:
    """A JSON document from a path, or ``source`` itself if already
    loaded.

    Args:
        source: A path (str or PathLike) or a loaded object.
        what (str): What the file is, for messages.

    Returns:
        The parsed JSON.
    """
    if not isinstance(source, (str, os.PathLike)):
        return source
    path = os.fspath(source)
    if not os.path.isfile(path):
        raise RobustDetError(f'{what} file not found: {path}')
    try:
        with open(path, encoding='utf-8') as f:
            return json.load(f)
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise RobustDetError(
            f'{what} file {path} is not valid JSON: {e}') from None


def frame_number(key: str) -> int:
    """The frame number of a frame key: the last run of digits of its file
    name without extension (``val/ILSVRC2015_val_00000000/000442.JPEG`` ->
    442)."""
    stem = os.path.splitext(os.path.basename(key))[0]
    match = _FRAME_NUMBER.search(stem)
    if match is None:
        raise RobustDetError(
            f'cannot read a frame number from the file name of {key!r}')
    return int(match.group(1))


def parse_pmsets(sets: Any) -> List[Tuple[str, List[Tuple[str, int]]]]:
    """Validate pm sets ``{anchor_key: [neighbour_key, ...]}``.

    A neighbour's offset is the difference of the frame numbers
    (:func:`frame_number`); it must be in the anchor's video directory.

    Returns:
        list: ``[(anchor_key, [(neighbour_key, offset), ...]), ...]`` in
        file order.
    """
    if not isinstance(sets, dict) or not sets:
        raise RobustDetError(
            'pm sets must be a non-empty JSON object '
            '{anchor_key: [neighbour_key, ...]}')
    out = []
    for anchor, nbs in sets.items():
        if not isinstance(nbs, list) or not all(
                isinstance(n, str) for n in nbs):
            raise RobustDetError(
                f'pm set of anchor {anchor!r} must be a list of frame keys')
        video = os.path.dirname(anchor)
        number = frame_number(anchor)
        pairs, seen = [], set()
        for nb in nbs:
            if nb == anchor:
                raise RobustDetError(
                    f'anchor {anchor!r} lists itself as a neighbour')
            if nb in seen:
                raise RobustDetError(
                    f'anchor {anchor!r} lists neighbour {nb!r} twice')
            seen.add(nb)
            if os.path.dirname(nb) != video:
                raise RobustDetError(
                    f'neighbour {nb!r} of anchor {anchor!r} is from another '
                    'video (directory)')
            offset = frame_number(nb) - number
            if offset == 0:
                raise RobustDetError(
                    f'neighbour {nb!r} of anchor {anchor!r} has the same '
                    'frame number')
            pairs.append((nb, offset))
        out.append((anchor, pairs))
    return out


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
                f"the annotations' categories ({_short_list(categories)})")
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
