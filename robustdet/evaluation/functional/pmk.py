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

Boxes are ``[x, y, w, h]`` (COCO) everywhere.

This module computes pm-k (:func:`pmk_map`, :func:`pmk_classification`);
the other pieces live in a module each and are re-exported here:
per-image AP (:mod:`.per_image_ap`), frames judged as a classifier
(:mod:`.classification`), error vs offset (:mod:`.offsets`),
Clopper-Pearson intervals (:mod:`.intervals`), the inputs and their
loading (:mod:`.pmk_data`) and the pm-sets file format
(:mod:`robustdet.utils.pmsets`).
"""
from typing import Any, Dict, Iterable, Mapping, Optional, Sequence, Tuple

import numpy as np

from ...utils.errors import RobustDetError
from ...utils.pmsets import frame_number, parse_pmsets, read_json
from .classification import JUDGE_MODES, frame_predictions, judge_frames
from .intervals import clopper_pearson
from .offsets import error_vs_offset
# AREA_RANGE, IOU_THR, REC_THRS and TIE_DECIMALS: attributes of this module
# before the pieces moved out; kept for code that reads them here.
from .per_image_ap import (AREA_RANGE, IOU_THR, MAX_DETS,  # noqa: F401
                           REC_THRS, TIE_DECIMALS, FrameEvaluation, ap_tie_key,
                           per_image_ap)
from .pmk_data import PmkData, check_ks, load_labels, load_pmk_data

__all__ = [
    'JUDGE_MODES', 'MAX_DETS', 'PmkData', 'clopper_pearson',
    'error_vs_offset', 'frame_number', 'frame_predictions', 'load_labels',
    'load_pmk_data', 'parse_pmsets', 'per_image_ap', 'pmk_classification',
    'pmk_map', 'read_json'
]


def _worst_frames(data: PmkData, frame_ap: np.ndarray,
                  ks: Sequence[int]) -> Tuple[Dict[int, np.ndarray],
                                              np.ndarray]:
    """Worst candidate frame of every anchor for every k (-1: skipped)."""
    ea, ef, eo = data.edges()
    cand = ~np.isnan(frame_ap[ef])
    anchor_ok = ~np.isnan(frame_ap[data.anchors])
    key = np.where(cand, ap_tie_key(frame_ap[ef]), np.inf)
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
    ks = check_ks(ks)
    ev = FrameEvaluation(data, class_agnostic, vid_iou)
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
# pm-k of a detector judged as a classifier


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
    ks = check_ks(ks)
    (ea, ef, eo), judged, correct, anchor_ok = judge_frames(
        data, judge, labels)
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
