# Copyright (c) robustdet contributors. All rights reserved.
"""pm-k against the real pycocotools ``COCOeval`` on random data, plus
hand-made cases for the worst-frame, classification and offset rules."""
import contextlib
import copy
import io
import json

import numpy as np
import pytest
from pycocotools.coco import COCO
from pycocotools.cocoeval import COCOeval

from robustdet.evaluation.functional.pmk import (PmkData, clopper_pearson,
                                                 error_vs_offset,
                                                 frame_predictions,
                                                 load_pmk_data, per_image_ap,
                                                 pmk_classification, pmk_map)
from robustdet.utils.errors import RobustDetError

SEEDS = list(range(6))
# pm-k against COCOeval: the same precisions tp / (tp + fp + eps), summed
# in another order (pm-k: weighted sums per category, then the mean over
# categories; COCOeval: one mean over the 101 x K values). With K <= 4
# categories that is at most 404 terms in [0, 1], so float64 rounding is
# below 404 * 2**-53 < 5e-14 (measured here: at most 4.4e-16).
AP_ATOL = 1e-12


# ---------------------------------------------------------------------------
# Random data in COCO form


def random_dataset(seed, num_videos=3, num_cats=4):
    """pm sets, COCO ground truth and COCO results with the hard cases:
    integer boxes (IoU and score ties), frames without ground truth or
    detections, crowd boxes, several labels per frame, > 100 detections of
    one category, anchors that are neighbours of other anchors, image ids
    not in frame order."""
    rng = np.random.default_rng(seed)
    images, anns, preds, sets = [], [], [], {}
    frames = []
    for v in range(num_videos):
        video = f'val/ILSVRC2015_val_{seed:04d}{v:04d}'
        offsets = sorted(rng.choice(np.arange(-6, 7), 8, replace=False))
        numbers = [100 + int(o) for o in offsets if o != 0] + [100]
        keys = {n: f'{video}/{n:06d}.JPEG' for n in numbers}
        frames += [keys[n] for n in sorted(numbers)]
        sets[keys[100]] = [keys[n] for n in numbers if n != 100]
        if v == 0:  # a second anchor whose set overlaps the first
            second = min(n for n in numbers if n != 100)
            sets[keys[second]] = [
                keys[n] for n in numbers if n != second and n != 100
            ][:4] + [keys[100]]
    ids = rng.permutation(len(frames)) * 7 + 3
    ann_id = 1
    for i, key in enumerate(frames):
        img_id = int(ids[i])
        images.append(
            dict(id=img_id, file_name=key, width=20, height=20, video_id=1))
        num_gt = int(rng.choice([0, 1, 2, 3, 5], p=[.15, .3, .25, .2, .1]))
        num_gt = {1: 0, 3: 1}.get(i, num_gt)  # no GT; only a crowd box
        gts = []
        for _ in range(num_gt):
            box = [int(rng.integers(0, 10)), int(rng.integers(0, 10))]
            box += [int(rng.integers(2, 8)), int(rng.integers(2, 8))]
            cat = int(rng.integers(1, num_cats + 1))
            crowd = int(rng.random() < 0.15 or i == 3)
            gts.append((box, cat))
            anns.append(
                dict(
                    id=ann_id,
                    image_id=img_id,
                    category_id=cat,
                    bbox=box,
                    area=box[2] * box[3],
                    iscrowd=crowd))
            ann_id += 1
        num_det = int(rng.choice([0, 3, 8, 15]))
        for _ in range(num_det):
            if gts and rng.random() < 0.6:
                box, cat = gts[rng.integers(len(gts))]
                box = [
                    box[0] + int(rng.integers(-1, 2)),
                    box[1] + int(rng.integers(-1, 2)),
                    max(1, box[2] + int(rng.integers(-1, 2))),
                    max(1, box[3] + int(rng.integers(-1, 2)))
                ]
                if rng.random() < 0.2:
                    cat = int(rng.integers(1, num_cats + 1))
            else:
                box = [
                    int(rng.integers(0, 12)),
                    int(rng.integers(0, 12)),
                    int(rng.integers(1, 8)),
                    int(rng.integers(1, 8))
                ]
                cat = int(rng.integers(1, num_cats + 1))
            preds.append(
                dict(
                    image_id=img_id,
                    category_id=cat,
                    bbox=[float(b) for b in box],
                    score=float(rng.choice([.3, .5, .7, .9]))))
        if i % 9 == 4 and gts:  # > 100 detections of one category
            box, cat = gts[0]
            for j in range(130):
                preds.append(
                    dict(
                        image_id=img_id,
                        category_id=cat,
                        bbox=[float(box[0] + j % 3), float(box[1]), 4.0, 5.0],
                        score=float(rng.choice([.2, .4, .6, .95]))))
            # found only beyond the 100 kept detections
            preds.append(
                dict(image_id=img_id, category_id=cat,
                     bbox=[float(b) for b in box], score=.1))
        if i % 7 == 2 and gts:
            # a detection with equal IoU to two boxes takes the later one,
            # which lets the next detection match the earlier one
            x, cat = int(rng.integers(0, 10)), int(rng.integers(1, 3))
            for dx in (0, 2):
                anns.append(
                    dict(id=ann_id, image_id=img_id, category_id=cat,
                         bbox=[x + dx, 12, 4, 4], area=16, iscrowd=0))
                ann_id += 1
            for dx, score in ((1, .99), (0, .98)):
                preds.append(
                    dict(image_id=img_id, category_id=cat,
                         bbox=[x + dx, 12., 4., 4.], score=score))
    rng.shuffle(preds)  # file order is the tie order
    gt = dict(
        images=images,
        annotations=anns,
        categories=[dict(id=c, name=f'c{c}') for c in range(1, num_cats + 1)])
    return sets, gt, preds


def agnostic(gt, preds):
    gt = copy.deepcopy(gt)
    for a in gt['annotations']:
        a['category_id'] = 1
    gt['categories'] = [dict(id=1, name='object')]
    preds = [dict(p, category_id=1) for p in preds]
    return gt, preds


def coco_pair(gt, preds):
    """In-memory pycocotools ground truth and results."""
    with contextlib.redirect_stdout(io.StringIO()):
        coco = COCO()
        coco.dataset = copy.deepcopy(gt)
        coco.createIndex()
        return coco, coco.loadRes(copy.deepcopy(preds))


def coco_ap50(gt, preds, img_ids):
    """pycocotools' AP@0.5 on the given images (-1 when undefined);
    ``gt, preds`` may be a :func:`coco_pair` already."""
    coco, dt = (gt, preds) if isinstance(gt, COCO) else coco_pair(gt, preds)
    with contextlib.redirect_stdout(io.StringIO()):
        ev = COCOeval(coco, dt, 'bbox')
        ev.params.imgIds = sorted(img_ids)
        ev.evaluate()
        ev.accumulate()
        ev.summarize()
    return ev.stats[1]


@pytest.fixture(scope='module', params=SEEDS)
def case(request):
    sets, gt, preds = random_dataset(request.param)
    return sets, gt, preds, load_pmk_data(sets, gt, preds)


@pytest.mark.parametrize('class_agnostic', [False, True])
def test_per_image_ap_equals_cocoeval(case, class_agnostic):
    sets, gt, preds, data = case
    if class_agnostic:
        gt, preds = agnostic(gt, preds)
    ap = per_image_ap(data, class_agnostic=class_agnostic)
    coco, dt = coco_pair(gt, preds)
    for f, img_id in enumerate(data.image_ids):
        want = coco_ap50(coco, dt, [int(img_id)])
        if want == -1:
            assert np.isnan(ap[f]), data.frame_keys[f]
        else:
            assert abs(ap[f] - want) < AP_ATOL, (data.frame_keys[f], ap[f],
                                                 want)
    # the data has what the test is meant to cover: no AP, AP below 1 by
    # more than rounding (a perfect frame's AP is 1 / (1 + eps) when it has
    # one true positive) and AP above 0 (no true positive gives exactly 0)
    assert np.isnan(ap).any() and (ap[~np.isnan(ap)] < 1 - AP_ATOL).any()
    assert (ap[~np.isnan(ap)] > 0).any()


@pytest.mark.parametrize('class_agnostic', [False, True])
def test_pmk_map_equals_cocoeval_on_worst_frames(case, class_agnostic):
    sets, gt, preds, data = case
    res = pmk_map(data, range(8), class_agnostic=class_agnostic)
    if class_agnostic:
        gt, preds = agnostic(gt, preds)
    coco, dt = coco_pair(gt, preds)
    distinct = set()
    for k in range(8):
        worst = res['worst_frames'][k]
        frames = worst[worst >= 0]
        distinct.add(tuple(frames))
        want = coco_ap50(coco, dt, [int(data.image_ids[f]) for f in frames])
        assert abs(res['map'][k] - want) < AP_ATOL, (k, res['map'][k], want)
        assert res['delta'][k] == res['map'][0] - res['map'][k]
    assert len(distinct) > 1  # k changes the chosen frames
    # pm-0 is AP over the evaluated anchors
    anchors = [
        int(data.image_ids[f]) for a, f in enumerate(data.anchors)
        if a not in res['skipped_anchors']
    ]
    assert abs(res['map'][0] - coco_ap50(coco, dt, anchors)) < AP_ATOL


def test_worst_frames_follow_the_rules_on_random_data(case):
    """Brute force: lowest AP, then anchor, |offset|, negative offset."""
    _, _, _, data = case
    res = pmk_map(data, range(11))
    ap = np.round(res['frame_ap'], 12)
    for a, anchor in enumerate(data.anchors):
        if np.isnan(ap[anchor]):
            assert a in res['skipped_anchors']
            assert all(res['worst_frames'][k][a] == -1 for k in range(11))
            continue
        cands = [(anchor, 0)] + [(f, o) for f, o, x in zip(
            data.nb_frames, data.nb_offsets, data.nb_anchor) if x == a]
        for k in range(11):
            pool = [(ap[f], abs(o), o, f) for f, o in cands
                    if abs(o) <= k and not np.isnan(ap[f])]
            assert res['worst_frames'][k][a] == min(pool)[3]


def test_cocoeval_tie_orders_matter():
    """Score ties are ordered by image id across images and by file order
    within one; detections on a crowd box are ignored."""
    gt = dict(
        images=[
            dict(id=2, file_name='v/000001.jpg'),
            dict(id=1, file_name='v/000002.jpg')
        ],
        annotations=[
            dict(id=1, image_id=2, category_id=1, bbox=[0, 0, 10, 10],
                 area=100, iscrowd=0),
            dict(id=2, image_id=1, category_id=1, bbox=[0, 0, 10, 10],
                 area=100, iscrowd=0),
            dict(id=3, image_id=1, category_id=1, bbox=[20, 20, 30, 30],
                 area=900, iscrowd=1),
        ],
        categories=[dict(id=1)])
    fp, tp = [50, 50, 5, 5], [0, 0, 10, 10]
    preds = [
        dict(image_id=2, category_id=1, bbox=fp, score=.5),
        dict(image_id=2, category_id=1, bbox=tp, score=.5),
        dict(image_id=1, category_id=1, bbox=tp, score=.5),
        dict(image_id=1, category_id=1, bbox=fp, score=.5),
        dict(image_id=1, category_id=1, bbox=[22, 22, 5, 5], score=.9),
        dict(image_id=1, category_id=1, bbox=[30, 30, 5, 5], score=.9),
    ]
    # two anchors without neighbours: pm-0 is AP over both images
    sets = {'v/000001.jpg': [], 'v/000002.jpg': []}
    data = load_pmk_data(sets, gt, preds)
    ap = per_image_ap(data)
    # hand-computed and COCOeval values, up to float64 rounding (AP_ATOL)
    assert abs(ap[0] - 0.5) < AP_ATOL and abs(ap[1] - 1) < AP_ATOL
    for f, img in enumerate(data.image_ids):
        assert abs(ap[f] - coco_ap50(gt, preds, [int(img)])) < AP_ATOL
    # image 1 first: TP FP FP TP (76 / 101); frame order would give 2/3
    both = pmk_map(data, [0])['map'][0]
    assert abs(both - 76 / 101) < AP_ATOL
    assert abs(both - coco_ap50(gt, preds, [1, 2])) < AP_ATOL


# ---------------------------------------------------------------------------
# Hand-made frames


def hand_data(frames, anchors, neighbours):
    """frames: list of (key, kind[, label]); kind is 'ap1' (one box found),
    'ap.5' (a false positive ranked first, then the box), 'ap0' (box
    missed), 'nogt' (a detection, no ground truth), 'nodet' (box, no
    detection)."""
    gt_f, gt_b, gt_l, d_f, d_b, d_s, d_l = [], [], [], [], [], [], []
    good, bad = [0, 0, 10, 10], [50, 50, 10, 10]
    for i, (_, kind, *rest) in enumerate(frames):
        label = rest[0] if rest else 1
        pred = rest[1] if len(rest) > 1 else label
        if kind != 'nogt':
            gt_f.append(i)
            gt_b.append(good)
            gt_l.append(label)
        dets = dict(
            ap1=[(good, .9)],
            ap0=[(bad, .9)],
            nogt=[(bad, .9)],
            nodet=[])[kind] if kind != 'ap.5' else [(bad, .9), (good, .5)]
        for box, score in dets:
            d_f.append(i)
            d_b.append(box)
            d_s.append(score)
            d_l.append(pred)
    return PmkData(
        frame_keys=[f[0] for f in frames],
        categories=[1, 2, 3],
        gt_frames=gt_f,
        gt_bboxes=np.array(gt_b, float).reshape(-1, 4),
        gt_labels=gt_l,
        det_frames=d_f,
        det_bboxes=np.array(d_b, float).reshape(-1, 4),
        det_scores=d_s,
        det_labels=d_l,
        anchors=anchors,
        neighbours=neighbours)


def test_worst_frame_ties():
    frames = [
        ('a/0', 'ap0'), ('a/-1', 'ap0'), ('a/1', 'ap0'),  # all equal
        ('b/0', 'ap1'), ('b/1', 'ap1'), ('b/2', 'ap.5'), ('b/-2', 'ap.5'),
        ('c/0', 'ap1'), ('c/1', 'ap.5'), ('c/-3', 'ap.5'), ('c/-1', 'nogt'),
        ('d/0', 'nogt'), ('d/1', 'ap0'),
    ]
    data = hand_data(frames, [0, 3, 7, 11], [
        [(1, -1), (2, 1)],
        [(4, 1), (5, 2), (6, -2)],
        [(8, 1), (9, -3), (10, -1)],
        [(12, 1)],
    ])
    res = pmk_map(data, range(4))
    ap = res['frame_ap']
    # AP 1 is 1 / (1 + eps) with one true positive; both up to float64
    # rounding (AP_ATOL); AP 0 (no true positive) is exact
    assert ap[0] == 0 and ap[3] == pytest.approx(1, abs=AP_ATOL)
    assert ap[5] == pytest.approx(.5, abs=AP_ATOL)
    assert np.isnan(ap[10]) and np.isnan(ap[11])
    key = {k: [data.frame_keys[f] if f >= 0 else None for f in w]
           for k, w in res['worst_frames'].items()}
    assert key[0] == ['a/0', 'b/0', 'c/0', None]
    assert key[1] == ['a/0', 'b/0', 'c/1', None]  # b: tie with +1 -> anchor
    assert key[2] == ['a/0', 'b/-2', 'c/1', None]  # b: -2 before +2
    assert key[3] == ['a/0', 'b/-2', 'c/1', None]  # c: |+1| < |-3|
    assert res['skipped_anchors'] == [3]
    assert res['num_worst_frames'][2] == 3


def test_empty_predictions_give_zero(case):
    sets, gt, _, _ = case
    data = load_pmk_data(sets, gt, [])
    assert data.info['num_predictions'] == 0
    ap = per_image_ap(data)
    assert np.all(ap[~np.isnan(ap)] == 0)
    res = pmk_map(data, range(3))
    assert all(v == 0 for v in res['map'].values())
    # ties everywhere: the anchor is its own worst frame
    ok = res['worst_frames'][0] >= 0
    assert np.array_equal(res['worst_frames'][2][ok], data.anchors[ok])
    cls = pmk_classification(data, range(3))
    assert cls['accuracy'][2]['correct'] == 0


def test_vid_iou_lowers_threshold_for_small_boxes():
    # 4x4 box: threshold 16 / 196 = 0.08 > IoU 9 / 23 = 0.39; 40x40 box:
    # threshold 0.5 > IoU 625 / 2575 = 0.24
    data = PmkData(['v/1', 'v/2'], [1], [0, 1], [[0, 0, 4, 4], [0, 0, 40, 40]],
                   [1, 1], [0, 1], [[1, 1, 4, 4], [15, 15, 40, 40]],
                   [.9, .9], [1, 1], anchors=[0], neighbours=[[(1, 1)]])
    assert per_image_ap(data).tolist() == [0, 0]
    vid = per_image_ap(data, vid_iou=True)
    # 1 / (1 + eps) up to float64 rounding; no true positive: exactly 0
    assert vid[0] == pytest.approx(1, abs=AP_ATOL) and vid[1] == 0


# ---------------------------------------------------------------------------
# Classification


def test_classification_frame_vs_anchor_judging():
    # (key, kind, GT label, predicted label)
    frames = [
        ('a/0', 'ap1', 1, 1), ('a/1', 'ap1', 2, 2), ('a/-2', 'ap1', 1, 1),
        ('b/0', 'ap1', 1, 1), ('b/1', 'nodet', 1), ('b/-1', 'ap1', 1, 1),
        ('c/0', 'nodet', 1), ('c/1', 'ap1', 1, 1),
    ]
    data = hand_data(frames, [0, 3, 6],
                     [[(1, 1), (2, -2)], [(4, 1), (5, -1)], [(7, 1)]])
    assert frame_predictions(data).tolist() == [1, 2, 1, 1, -1, 1, -1, 1]
    fr = pmk_classification(data, range(3), judge='frame')
    assert [fr['accuracy'][k]['correct'] for k in range(3)] == [2, 1, 1]
    an = pmk_classification(data, range(3), judge='anchor')
    # a/1 predicts 2, right for its own label, wrong for the anchor's
    assert [an['accuracy'][k]['correct'] for k in range(3)] == [2, 0, 0]
    assert fr['accuracy'][0]['n'] == 3 and fr['skipped_anchors'] == []
    # 2 / 3 - 1 / 3 in float64: rounding only
    assert fr['delta'][2] == pytest.approx(1 / 3, rel=1e-12)
    # explicit labels: a/1 labelled 1 makes it wrong in frame mode too
    labels = {k: [1] for k, *_ in frames}
    ex = pmk_classification(data, range(3), labels=labels)
    assert [ex['accuracy'][k]['correct'] for k in range(3)] == [2, 0, 0]
    with pytest.raises(RobustDetError, match="no entry for frame 'a/1'"):
        pmk_classification(data, labels={'a/0': [1]})
    # anchor judging needs anchor labels only
    pmk_classification(data, judge='anchor',
                       labels={'a/0': [1], 'b/0': [1], 'c/0': [2]})
    with pytest.raises(RobustDetError, match='label 0 of frame'):
        pmk_classification(data, labels=dict(labels, **{'b/1': [0]}))
    with pytest.raises(RobustDetError, match='judge must be one of'):
        pmk_classification(data, judge='video')


def test_classification_top_box_ties_and_skips():
    data = PmkData(['v/1', 'v/2', 'v/3'], [1, 2, 3], [0, 1], [[0, 0, 5, 5]] *
                   2, [2, 3], [0, 0, 0, 1, 2], [[0, 0, 5, 5]] * 5,
                   [.5, .8, .8, .3, .9], [1, 2, 3, 3, 1],
                   anchors=[0, 2], neighbours=[[(1, 1)], [(1, -1)]])
    assert frame_predictions(data).tolist() == [2, 3, 1]  # first of .8s
    res = pmk_classification(data, range(2))
    assert res['skipped_anchors'] == [1]  # v/3 has no ground truth
    assert res['accuracy'][1]['correct'] == 1


def test_clopper_pearson_known_values():
    # scipy's beta.ppf (Boost's ibeta_inv, a double precision root finder)
    # against closed forms and 40-digit mpmath roots: rel=1e-12 leaves
    # ~4500 ulps for the root finder (measured here: within 1 ulp).
    assert clopper_pearson(0, 10) == (
        0.0, pytest.approx(1 - .025**.1, rel=1e-12))
    assert clopper_pearson(10, 10) == (
        pytest.approx(.025**.1, rel=1e-12), 1.0)
    low, high = clopper_pearson(5, 10)
    # the p with P(Bin(10, p) >= 5) = 0.025 and the p with
    # P(Bin(10, p) <= 5) = 0.025 (mpmath, 40 digits)
    assert low == pytest.approx(0.18708602844739853, rel=1e-12)
    assert high == pytest.approx(0.81291397155260147, rel=1e-12)
    low, high = clopper_pearson(np.array([0, 3]), np.array([4, 4]))
    assert low[0] == 0 and high[0] == pytest.approx(
        1 - .025**.25, rel=1e-12)


# ---------------------------------------------------------------------------
# Error vs offset


def test_error_vs_offset():
    frames = [
        ('a/0', 'ap1'), ('a/-1', 'ap.5'), ('a/1', 'ap1'), ('a/-2', 'ap0'),
        ('a/2', 'nogt'),
        ('b/0', 'ap.5'), ('b/-1', 'ap1'), ('b/1', 'ap.5'),
    ]
    data = hand_data(frames, [0, 5], [[(1, -1), (2, 1), (3, -2), (4, 2)],
                                      [(6, -1), (7, 1)]])
    rows = {r['offset']: r for r in error_vs_offset(data)}
    assert sorted(rows) == [-2, -1, 1, 2]
    assert (rows[-2]['n'], rows[-2]['worse']) == (1, 1)
    assert (rows[-1]['n'], rows[-1]['worse']) == (2, 1)
    assert (rows[1]['n'], rows[1]['worse']) == (2, 0)  # b/1 ties
    assert rows[2]['n'] == 0 and np.isnan(rows[2]['fraction'])
    # classification: ap0 / nogt frames predict nothing useful
    cls = {r['offset']: r for r in error_vs_offset(data, 'classification')}
    # a/0 is right; a/-2 has a box of class 1 at a wrong place: still right
    assert (cls[-2]['n'], cls[-2]['worse']) == (1, 0)
    assert cls[2]['n'] == 0  # a/2 has no labels: not judged
    assert (cls[-1]['n'], cls[-1]['worse']) == (2, 0)


# ---------------------------------------------------------------------------
# Bad input


def small_files():
    sets = {'val/v1/000010.JPEG': ['val/v1/000009.JPEG', 'val/v1/000012.JPEG']}
    gt = dict(
        images=[
            dict(id=i + 1, file_name=f'val/v1/{n:06d}.JPEG')
            for i, n in enumerate([9, 10, 12])
        ] + [dict(id=4, file_name='val/v2/000011.JPEG')],
        annotations=[
            dict(id=i + 1, image_id=i + 1, category_id=1,
                 bbox=[0, 0, 10, 10], area=100, iscrowd=0)
            for i in range(4)
        ],
        categories=[dict(id=1), dict(id=2)])
    preds = [dict(image_id=i + 1, category_id=1, bbox=[0, 0, 10, 10],
                  score=.9) for i in range(4)]
    return sets, gt, preds


def test_loader_builds_frames_and_offsets():
    sets, gt, preds = small_files()
    data = load_pmk_data(sets, gt, preds)
    assert data.frame_keys == [
        'val/v1/000010.JPEG', 'val/v1/000009.JPEG', 'val/v1/000012.JPEG'
    ]
    assert data.nb_offsets.tolist() == [-1, 2]
    assert data.info == dict(num_predictions=4, predictions_outside_sets=1)
    # one true positive each: 1 / (1 + eps), float64 rounding (AP_ATOL)
    assert per_image_ap(data) == pytest.approx([1, 1, 1], abs=AP_ATOL)


@pytest.mark.parametrize('change, match', [
    (lambda s, g, p: s.update({'val/v1/000010.JPEG': ['val/v1/000099.JPEG']}),
     "frame 'val/v1/000099.JPEG' of the pm sets is not an image"),
    (lambda s, g, p: s.update({'val/v1/000010.JPEG': ['val/v2/000011.JPEG']}),
     "neighbour 'val/v2/000011.JPEG' of anchor 'val/v1/000010.JPEG' is from "
     'another video'),
    (lambda s, g, p: s.update({'val/v1/000010.JPEG': ['val/v1/000010.JPEG']}),
     'lists itself'),
    (lambda s, g, p: s.update({'val/v1/000010.JPEG': ['val/v1/000009.JPEG'] *
                               2}), 'twice'),
    (lambda s, g, p: s.update({'val/v1/000010.JPEG': 'val/v1/000009.JPEG'}),
     'must be a list of frame keys'),
    (lambda s, g, p: p.append(
        dict(image_id=99, category_id=1, bbox=[0, 0, 1, 1], score=.5)),
     'prediction #4 is for image_id 99'),
    (lambda s, g, p: p.append(
        dict(image_id=1, category_id=7, bbox=[0, 0, 1, 1], score=.5)),
     'prediction #4 has category_id 7'),
    (lambda s, g, p: p[2].pop('score'), "prediction #2 .*missing 'score'"),
    (lambda s, g, p: p[1].update(bbox=[0, 0, 1]), 'prediction #1 .*bbox'),
    (lambda s, g, p: p[3].update(score='high'), 'prediction #3 .*score'),
    (lambda s, g, p: p[0].update(image_id='1'), 'prediction #0 .*image_id'),
    (lambda s, g, p: p.append(7), 'prediction #4 7: not an object'),
    (lambda s, g, p: g['annotations'][0].pop('bbox'),
     "annotation #0 .*missing 'bbox'"),
    (lambda s, g, p: g['annotations'][0].update(category_id=5),
     'annotation #0 has category_id 5'),
    (lambda s, g, p: g['images'].append(dict(id=1, file_name='x')),
     'image id 1 twice'),
])
def test_bad_input(change, match):
    sets, gt, preds = small_files()
    change(sets, gt, preds)
    with pytest.raises(RobustDetError, match=match):
        load_pmk_data(sets, gt, preds)


def test_bad_files_and_ks(tmp_path):
    sets, gt, preds = small_files()
    paths = {}
    for name, obj in dict(sets=sets, gt=gt, preds=preds).items():
        paths[name] = tmp_path / f'{name}.json'
        paths[name].write_text(json.dumps(obj))
    data = load_pmk_data(paths['sets'], paths['gt'], paths['preds'])
    with pytest.raises(RobustDetError, match='k must be >= 0, got -1'):
        pmk_map(data, [-1])
    with pytest.raises(RobustDetError, match='k must be an integer'):
        pmk_map(data, [1.5])
    (tmp_path / 'dict.json').write_text('{"image_id": 1}')
    with pytest.raises(RobustDetError, match='must be a JSON list'):
        load_pmk_data(paths['sets'], paths['gt'], tmp_path / 'dict.json')
    (tmp_path / 'broken.json').write_text('[{"image_id": 1,')
    with pytest.raises(RobustDetError, match='broken.json is not valid JSON'):
        load_pmk_data(paths['sets'], paths['gt'], tmp_path / 'broken.json')
    with pytest.raises(RobustDetError, match='not found'):
        load_pmk_data(tmp_path / 'nope.json', paths['gt'], paths['preds'])
    with pytest.raises(RobustDetError, match='frame number'):
        load_pmk_data({'val/v1/first.JPEG': []}, gt, preds)
    with pytest.raises(RobustDetError, match='non-empty JSON object'):
        load_pmk_data([], gt, preds)


def test_all_anchors_skipped_is_an_error():
    data = hand_data([('a/0', 'nogt'), ('a/1', 'ap1')], [0], [[(1, 1)]])
    with pytest.raises(RobustDetError, match='no anchor has non-crowd'):
        pmk_map(data)


def test_load_labels_maps_class_indices_to_category_ids():
    from robustdet.evaluation.functional.pmk import load_labels
    labels = {'v/000001.JPEG': [0, 2], 'v/000002.JPEG': []}
    assert load_labels(labels, [30, 10, 20]) == {
        'v/000001.JPEG': [10, 30],
        'v/000002.JPEG': []
    }
    with pytest.raises(RobustDetError, match='class index 3 is out of'):
        load_labels({'v/000001.JPEG': [3]}, [10, 20, 30])
    with pytest.raises(RobustDetError, match='list of class indices'):
        load_labels({'v/000001.JPEG': 'car'}, [10, 20, 30])
