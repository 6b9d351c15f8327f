# Copyright (c) robustdet contributors. All rights reserved.
"""``PMKMetric``: mmengine adapter of the pm-k core
(:mod:`robustdet.evaluation.functional.pmk`)."""
from typing import Any, Dict, List, Optional, Sequence

import numpy as np
from mmdet.registry import METRICS
from mmengine.evaluator import BaseMetric
from mmengine.logging import print_log

from ...utils.errors import RobustDetError
from ..functional.classification import JUDGE_MODES
from ..functional.pmk_data import PmkData
from ..functional.pmk_report import pmk_report

_META = ('frame_key', 'anchor_key', 'anchor_id', 'offset', 'frame_labels')


def _xywh(boxes: np.ndarray) -> np.ndarray:
    boxes = np.asarray(boxes, np.float64).reshape(-1, 4)
    return np.concatenate([boxes[:, :2], boxes[:, 2:] - boxes[:, :2]], 1)


def _numpy(x) -> np.ndarray:
    x = getattr(x, 'tensor', x)  # mmdet box types
    return x.detach().cpu().numpy() if hasattr(x, 'detach') else np.asarray(x)


@METRICS.register_module()
class PMKMetric(BaseMetric):
    """pm-k for detectors on a :class:`~robustdet.datasets.NeighborSetDataset`.

    For each k, the worst frame of every neighbour set (lowest per-image
    AP@0.5 among the anchor and its neighbours with |offset| <= k) is
    scored; pm-k mAP is COCO's AP@0.5 over those frames. Also computed: the
    localization variant (classes merged), the detector's top box used as a
    classifier (anchor-level pm-k accuracy with Clopper-Pearson intervals)
    and the error rate per offset. Ground truth is taken from the data
    samples, so ``LoadAnnotations`` must come after ``Resize`` in the test
    pipeline (boxes in original image coordinates, as mmdet's VOC metric
    assumes), and ``PackDetInputs`` must keep the neighbour-set meta keys
    ``frame_key``, ``anchor_key``, ``anchor_id``, ``offset``,
    ``frame_labels``.

    Args:
        ks (Sequence[int]): The ks to report (0 is always included).
        judge (str): Classification judging: ``'frame'`` (each frame
            against its own labels, ImageNet-Vid-Robust) or ``'anchor'``
            (against the anchor's labels, YTBB-Robust).
        vid_iou (bool): ImageNet VID's lower IoU threshold for small
            objects (off by default; then per-image AP equals COCOeval's).
        out_dir (str, optional): Write the full report (JSON, Markdown,
            plot) there.
        collect_device (str): ``'cpu'`` or ``'gpu'``.
        prefix (str, optional): Metric name prefix (default ``'pmk'``).
    """

    default_prefix: Optional[str] = 'pmk'

    def __init__(self,
                 ks: Sequence[int] = tuple(range(11)),
                 judge: str = 'frame',
                 vid_iou: bool = False,
                 out_dir: Optional[str] = None,
                 collect_device: str = 'cpu',
                 prefix: Optional[str] = None) -> None:
        super().__init__(collect_device=collect_device, prefix=prefix)
        if judge not in JUDGE_MODES:
            raise RobustDetError(f'unknown judge {judge!r}; valid: '
                                 f'{", ".join(JUDGE_MODES)}')
        self.ks = sorted(set(int(k) for k in ks) | {0})
        self.judge = judge
        self.vid_iou = vid_iou
        self.out_dir = out_dir

    def process(self, data_batch: Any, data_samples: Sequence[dict]) -> None:
        """Keep each frame's predictions, ground truth and set position."""
        for sample in data_samples:
            missing = [k for k in _META if k not in sample]
            if missing:
                raise RobustDetError(
                    f'PMKMetric needs the meta keys {", ".join(_META)} in the '
                    f'data samples (missing {", ".join(missing)}); use a '
                    'NeighborSetDataset and list them in PackDetInputs '
                    'meta_keys')
            pred = sample['pred_instances']
            gt = sample.get('gt_instances', {})
            ignored = sample.get('ignored_instances', {})
            self.results.append(
                dict(
                    {k: sample[k]
                     for k in _META},
                    pred_bboxes=_numpy(pred['bboxes']),
                    pred_scores=_numpy(pred['scores']),
                    pred_labels=_numpy(pred['labels']),
                    gt_bboxes=_numpy(gt.get('bboxes', np.zeros((0, 4)))),
                    gt_labels=_numpy(gt.get('labels', np.zeros(0))),
                    ign_bboxes=_numpy(ignored.get('bboxes', np.zeros(
                        (0, 4)))),
                    ign_labels=_numpy(ignored.get('labels', np.zeros(0)))))

    def pmk_data(self, results: List[dict]) -> PmkData:
        """Assemble the pm-k inputs; a frame in several sets is used once
        (the model's predictions for one image are the same)."""
        frames: Dict[str, dict] = {}
        sets: Dict[str, Dict[str, int]] = {}
        for r in sorted(results, key=lambda r: (r['anchor_id'], r['offset'])):
            frames.setdefault(r['frame_key'], r)
            sets.setdefault(r['anchor_key'], {})[r['frame_key']] = int(
                r['offset'])
        keys = list(frames)
        index = {k: i for i, k in enumerate(keys)}
        num_classes = len(self.dataset_meta['classes'])

        def gather(field_boxes, field_labels, crowd):
            fr, bx, lb, cw = [], [], [], []
            for key in keys:
                r = frames[key]
                n = len(r[field_labels])
                fr.append(np.full(n, index[key]))
                bx.append(_xywh(r[field_boxes]))
                lb.append(np.asarray(r[field_labels], np.int64))
                cw.append(np.full(n, crowd))
            return [np.concatenate(x) if x else np.zeros(0) for x in
                    (fr, bx, lb, cw)]

        gf, gb, gl, gc = gather('gt_bboxes', 'gt_labels', 0)
        jf, jb, jl, jc = gather('ign_bboxes', 'ign_labels', 1)
        det_f, det_b, det_s, det_l = [], [], [], []
        for key in keys:
            r = frames[key]
            det_f.append(np.full(len(r['pred_scores']), index[key]))
            det_b.append(_xywh(r['pred_bboxes']))
            det_s.append(np.asarray(r['pred_scores'], np.float64))
            det_l.append(np.asarray(r['pred_labels'], np.int64))
        anchors, neighbours = [], []
        for anchor, members in sets.items():
            if members.get(anchor) != 0:
                raise RobustDetError(
                    f'the anchor frame {anchor!r} of a neighbour set was not '
                    'evaluated (a subset of the dataset?)')
            anchors.append(index[anchor])
            neighbours.append([(index[k], o) for k, o in members.items()
                               if o != 0])
        return PmkData(
            frame_keys=keys,
            categories=list(range(num_classes)),
            gt_frames=np.concatenate([gf, jf]).astype(np.int64),
            gt_bboxes=np.concatenate([gb.reshape(-1, 4),
                                      jb.reshape(-1, 4)]),
            gt_labels=np.concatenate([gl, jl]).astype(np.int64),
            gt_crowd=np.concatenate([gc, jc]).astype(np.int64),
            det_frames=np.concatenate(det_f).astype(np.int64),
            det_bboxes=np.concatenate(det_b).reshape(-1, 4),
            det_scores=np.concatenate(det_s),
            det_labels=np.concatenate(det_l).astype(np.int64),
            anchors=anchors,
            neighbours=neighbours)

    def compute_metrics(self, results: List[dict]) -> Dict[str, float]:
        """pm-k mAP, localization mAP and accuracy per k."""
        data = self.pmk_data(results)
        labels = {r['frame_key']: list(r['frame_labels']) for r in results}
        report = pmk_report(
            data, ks=self.ks, judge=self.judge, labels=labels,
            vid_iou=self.vid_iou)
        if self.out_dir:
            # Deferred: reports/ stands above evaluation/ (it imports it);
            # only writing the files reaches up to it.
            from ...reports.pmk import write_pmk_reports
            paths = write_pmk_reports(report, self.out_dir)
            print_log(f'pm-k report: {paths[0]}', logger='current')
        metrics = {}
        for k in self.ks:
            metrics[f'mAP_k{k}'] = report['map'][str(k)]
        for k in self.ks:
            metrics[f'loc_mAP_k{k}'] = report['localization']['map'][str(k)]
        for k in self.ks:
            metrics[f'acc_k{k}'] = report['classification']['accuracy'][str(
                k)]['acc']
        kmax = max(self.ks)
        metrics[f'delta_k{kmax}'] = report['delta'][str(kmax)]
        return metrics
