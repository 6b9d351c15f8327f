# Copyright (c) robustdet contributors. All rights reserved.
"""Per-image AP: ``COCOeval``'s AP@0.5 of every frame on its own, all
frames at once (detections of all frames matched to ground truth rank by
rank in lock-step); equal to pycocotools to 1e-12."""
from typing import Tuple

import numpy as np

from .pmk_data import PmkData

__all__ = [
    'AREA_RANGE', 'IOU_THR', 'MAX_DETS', 'REC_THRS', 'TIE_DECIMALS',
    'FrameEvaluation', 'ap_tie_key', 'per_image_ap'
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

#: Decimals to which APs are rounded when looking for the worst frame.
TIE_DECIMALS = 12

_EPS = np.spacing(1)


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


class FrameEvaluation:
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
    return FrameEvaluation(data, class_agnostic, vid_iou).frame_ap


def ap_tie_key(ap: np.ndarray) -> np.ndarray:
    """APs rounded for comparisons, so that summation order cannot break a
    tie between two frames."""
    return np.round(ap, TIE_DECIMALS)
