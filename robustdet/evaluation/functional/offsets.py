# Copyright (c) robustdet contributors. All rights reserved.
"""Error against the offset from the anchor: figure 5 of Shankar et al.
(2019) as table data."""
from typing import Any, Dict, List, Mapping, Optional, Sequence

import numpy as np

from ...utils.errors import RobustDetError
from .classification import judge_frames
from .per_image_ap import ap_tie_key, per_image_ap
from .pmk_data import PmkData

__all__ = ['error_vs_offset']


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
        a_ap = ap_tie_key(frame_ap[data.anchors[data.nb_anchor]])
        n_ap = ap_tie_key(frame_ap[data.nb_frames])
        counted = ~np.isnan(a_ap) & ~np.isnan(n_ap)
        worse = counted & (n_ap < a_ap)
        offsets = data.nb_offsets
    elif kind == 'classification':
        (ea, _, eo), judged, correct, anchor_ok = judge_frames(
            data, judge, labels)
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
