# Copyright (c) robustdet contributors. All rights reserved.
"""PMKMetric (the mmengine adapter) gives the same numbers as the pure core
fed the equivalent COCO json files."""
import numpy as np
import pytest
import torch

from robustdet.evaluation import PMKMetric
from robustdet.evaluation.functional.pmk import load_pmk_data, pmk_map
from robustdet.utils import RobustDetError

CLASSES = ('a', 'b', 'c')


def _synthetic(seed):
    rng = np.random.default_rng(seed)
    sets = {}
    samples = []
    images, anns, preds = [], [], []
    for v in range(4):
        anchor = f'val/v{v}/{10:06d}.JPEG'
        members = [(anchor, 0)] + [(f'val/v{v}/{10 + o:06d}.JPEG', o)
                                   for o in (-2, -1, 1, 2)]
        sets[anchor] = [k for k, o in members if o]
        for key, offset in members:
            img_id = len(images) + 1
            images.append(dict(id=img_id, file_name=key, width=100,
                               height=80))
            n_gt = int(rng.integers(1, 4))
            xy = rng.uniform(0, 60, (n_gt, 2))
            wh = rng.uniform(8, 30, (n_gt, 2))
            gt = np.concatenate([xy, xy + wh], 1)
            gl = rng.integers(0, 3, n_gt)
            for b, lab in zip(gt, gl):
                anns.append(dict(id=len(anns) + 1, image_id=img_id,
                                 category_id=int(lab) + 1,
                                 bbox=[b[0], b[1], b[2] - b[0], b[3] - b[1]],
                                 area=float((b[2] - b[0]) * (b[3] - b[1])),
                                 iscrowd=0))
            n_det = int(rng.integers(0, 6))
            jitter = rng.normal(0, 3, (n_det, 4))
            pick = rng.integers(0, n_gt, n_det)
            det = np.clip(gt[pick] + jitter, 0, 100)
            det[:, 2:] = np.maximum(det[:, 2:], det[:, :2] + 1)
            scores = rng.uniform(0.05, 1, n_det)
            dl = np.where(rng.uniform(size=n_det) < 0.8, gl[pick],
                          rng.integers(0, 3, n_det))
            for b, s, lab in zip(det, scores, dl):
                preds.append(dict(image_id=img_id, category_id=int(lab) + 1,
                                  bbox=[b[0], b[1], b[2] - b[0],
                                        b[3] - b[1]], score=float(s)))
            samples.append(dict(
                frame_key=key, anchor_key=anchor, anchor_id=v,
                offset=offset, frame_labels=sorted(set(gl.tolist())),
                pred_instances=dict(
                    bboxes=torch.tensor(det), scores=torch.tensor(scores),
                    labels=torch.tensor(dl)),
                gt_instances=dict(bboxes=torch.tensor(gt),
                                  labels=torch.tensor(gl))))
    categories = [dict(id=i + 1, name=n) for i, n in enumerate(CLASSES)]
    ann = dict(images=images, annotations=anns, categories=categories)
    return sets, ann, preds, samples


@pytest.mark.parametrize('seed', [0, 1, 2])
def test_metric_equals_offline_core(seed, tmp_path):
    sets, ann, preds, samples = _synthetic(seed)
    metric = PMKMetric(ks=range(3), out_dir=str(tmp_path))
    metric.dataset_meta = dict(classes=CLASSES)
    metric.process({}, samples[::2])
    metric.process({}, samples[1::2])
    results = metric.evaluate(len(samples))
    offline = pmk_map(load_pmk_data(sets, ann, preds), range(3))
    loc = pmk_map(load_pmk_data(sets, ann, preds), range(3),
                  class_agnostic=True)
    # Exact: both run the same pm-k code on the same float64 boxes (xyxy to
    # xywh by the same subtraction) and scores (continuous: no ties, so
    # frame order cannot change a ranking), summing in the same order.
    for k in range(3):
        assert results[f'pmk/mAP_k{k}'] == offline['map'][k]
        assert results[f'pmk/loc_mAP_k{k}'] == loc['map'][k]
    assert results['pmk/delta_k2'] == offline['map'][0] - offline['map'][2]
    assert (tmp_path / 'pmk.json').exists()
    assert (tmp_path / 'pmk.md').exists()


def test_metric_needs_neighbour_set_meta():
    metric = PMKMetric()
    metric.dataset_meta = dict(classes=CLASSES)
    with pytest.raises(RobustDetError, match='anchor_key'):
        metric.process({}, [dict(frame_key='x', pred_instances={})])
    with pytest.raises(RobustDetError, match="judge 'video'"):
        PMKMetric(judge='video')
