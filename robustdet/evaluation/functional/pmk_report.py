# Copyright (c) robustdet contributors. All rights reserved.
"""Everything pm-k says about a detector, as JSON-able data: pm-k mAP,
its localization variant, the top box as a classifier, error vs offset
and the worst frame of every anchor. :mod:`robustdet.reports.pmk` writes
it and derives the Markdown and the plot from it."""
import math

import numpy as np

from .pmk import error_vs_offset, pmk_classification, pmk_map


def _num(value):
    """A float for JSON: None for NaN."""
    value = float(value)
    return None if math.isnan(value) else value


def _by_k(values):
    return {str(k): _num(v) for k, v in values.items()}


def pmk_report(data,
               ks=range(11),
               judge='frame',
               labels=None,
               vid_iou=False,
               class_agnostic=False,
               sources=None):
    """Compute everything and return the report as JSON-able data (the
    Markdown and the plot derive from it alone).

    Args:
        data (PmkData): The inputs.
        ks (Iterable[int]): The ks (0 is always included).
        judge (str): Classification judging, ``'frame'`` or ``'anchor'``.
        labels (Mapping, optional): Explicit frame labels
            ``{frame_key: [category id, ...]}``; default: the ground truth
            categories.
        vid_iou (bool): ImageNet VID's IoU threshold for small boxes.
        class_agnostic (bool): Headline ``map`` without classes (the
            ``localization`` entry is always there).
        sources (dict, optional): Input paths to record.

    Returns:
        dict: The report (k keys are strings, NaN is None).
    """
    main = pmk_map(data, ks, class_agnostic=class_agnostic, vid_iou=vid_iou)
    loc = main if class_agnostic else pmk_map(
        data, ks, class_agnostic=True, vid_iou=vid_iou)
    cls = pmk_classification(data, ks, judge=judge, labels=labels)
    err_det = error_vs_offset(data, 'detection', frame_ap=main['frame_ap'])
    err_cls = error_vs_offset(
        data, 'classification', judge=judge, labels=labels)

    keys = data.frame_keys
    anchor_keys = data.anchor_keys

    def worst(result):
        return {
            str(k): {
                anchor_keys[a]: keys[f]
                for a, f in enumerate(frames) if f >= 0
            }
            for k, frames in result['worst_frames'].items()
        }

    det_rows = {r['offset']: r for r in err_det}
    cls_rows = {r['offset']: r for r in err_cls}
    offsets = sorted(set(det_rows) | set(cls_rows))

    def row(rows, d):
        r = rows.get(d, dict(n=0, worse=0, fraction=float('nan')))
        return dict(n=r['n'], worse=r['worse'], fraction=_num(r['fraction']))

    skipped = [anchor_keys[a] for a in main['skipped_anchors']]
    num_preds = data.info.get('num_predictions', len(data.det_scores))
    return dict(
        sources=dict(sources or {}),
        k=max(main['ks']),
        class_agnostic=bool(class_agnostic),
        vid_iou=bool(vid_iou),
        iou_thr=0.5,
        counts=dict(
            anchors=data.num_anchors,
            evaluated_anchors=data.num_anchors - len(skipped),
            skipped_anchors=len(skipped),
            frames=data.num_frames,
            neighbours=len(data.nb_frames),
            candidate_frames=int((~np.isnan(main['frame_ap'])).sum()),
            predictions=num_preds,
            predictions_outside_sets=data.info.get(
                'predictions_outside_sets', 0)),
        empty_predictions=num_preds == 0,
        skipped_anchors=skipped,
        map=_by_k(main['map']),
        delta=_by_k(main['delta']),
        num_worst_frames={str(k): v
                          for k, v in main['num_worst_frames'].items()},
        worst_frames=worst(main),
        localization=dict(
            map=_by_k(loc['map']),
            delta=_by_k(loc['delta']),
            worst_frames=worst(loc)),
        classification=dict(
            judge=cls['judge'],
            labels='explicit' if labels is not None else 'ground truth',
            skipped_anchors=[anchor_keys[a] for a in cls['skipped_anchors']],
            accuracy={
                str(k): {n: _num(v)
                         for n, v in r.items()}
                for k, r in cls['accuracy'].items()
            },
            delta=_by_k(cls['delta'])),
        error_vs_offset=[
            dict(
                offset=d,
                detection=row(det_rows, d),
                classification=row(cls_rows, d)) for d in offsets
        ])
