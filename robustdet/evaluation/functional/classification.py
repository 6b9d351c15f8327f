# Copyright (c) robustdet contributors. All rights reserved.
"""A detector as a classifier on video frames: each frame's predicted
class (its top-scoring box) and each frame judged against its own or its
anchor's labels (ImageNet-Vid-Robust, YTBB-Robust)."""
from typing import Mapping, Optional, Sequence, Tuple

import numpy as np

from ...utils.errors import RobustDetError
from .pmk_data import PmkData, short_list

__all__ = ['JUDGE_MODES', 'frame_predictions', 'judge_frames', 'label_table']

#: Classification judging modes: each frame against its own labels
#: (ImageNet-Vid-Robust) or against the anchor's labels (YTBB-Robust).
JUDGE_MODES = ('frame', 'anchor')


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


def label_table(data: PmkData, labels: Optional[Mapping[str, Sequence[int]]],
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
                        f'the annotations ({short_list(data.categories)})')
                frames.append(f)
                cats.append(int(np.searchsorted(data.categories, v)))
        frames = np.asarray(frames, np.int64)
        cats = np.asarray(cats, np.int64)
    keys = np.unique(frames * num_cats + cats)
    has = np.zeros(data.num_frames, bool)
    has[frames] = True
    return keys, has


def judge_frames(data: PmkData, judge: str,
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
    keys, has = label_table(data, labels, needed)
    has_pred = np.bincount(
        data.det_frames, minlength=data.num_frames)[ef] > 0
    pred_idx = np.searchsorted(data.categories, frame_predictions(data)[ef])
    ref = ef if judge == 'frame' else data.anchors[ea]
    correct = has_pred & np.isin(ref * len(data.categories) + pred_idx, keys)
    judged = has[ef] if judge == 'frame' else np.ones(len(ea), bool)
    anchor_ok = has[data.anchors]
    return (ea, ef, eo), judged, correct, anchor_ok
