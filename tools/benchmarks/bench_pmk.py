# Copyright (c) robustdet contributors. All rights reserved.
"""Speed of pm-k scoring on synthetic ImageNet-Vid-Robust-sized data.

1,050 anchors x 21 frames (22,050 frames), 100 detections per frame, 1-5
ground truth boxes per frame, 30 classes; then half of it, to show that the
cost is linear. Times everything the offline tool computes for k = 0..10:
per-image AP + pm-k mAP (per class), the same class-agnostic, pm-k
classification accuracy and error vs offset. One core: BLAS / OpenMP
threads are set to 1 before numpy is imported and the process is pinned to
one CPU::

    python tools/benchmarks/bench_pmk.py [--anchors 1050] [--repeat 3]
"""
import argparse
import os
import os.path as osp
import sys
import time

# One core: thread counts must be set before numpy is first imported (numpy
# and robustdet are imported inside the functions below).
for _var in ('OMP_NUM_THREADS', 'OPENBLAS_NUM_THREADS', 'MKL_NUM_THREADS',
             'NUMEXPR_NUM_THREADS', 'VECLIB_MAXIMUM_THREADS'):
    os.environ[_var] = '1'

REPO = osp.dirname(osp.dirname(osp.dirname(osp.abspath(__file__))))
sys.path.insert(0, REPO)


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--anchors', type=int, default=1050)
    parser.add_argument('--frames-per-anchor', type=int, default=21)
    parser.add_argument('--dets', type=int, default=100)
    parser.add_argument('--classes', type=int, default=30)
    parser.add_argument('--repeat', type=int, default=3)
    parser.add_argument('--seed', type=int, default=0)
    parser.add_argument(
        '--cpu', type=int, help='CPU to pin to (default: the last allowed)')
    return parser.parse_args()


def synthetic(num_anchors, per_anchor, num_dets, num_classes, seed):
    """One video per anchor; objects drift a little from frame to frame;
    detections: 5 jittered boxes per object (mostly the right class), the
    rest random; uniform scores."""
    import numpy as np

    from robustdet.evaluation.functional.pmk import PmkData
    rng = np.random.default_rng(seed)
    half = per_anchor // 2
    frames = num_anchors * per_anchor
    # ground truth: per video 1-5 objects, per frame a jittered copy
    objs = rng.integers(1, 6, num_anchors)
    obj_video = np.repeat(np.arange(num_anchors), objs)
    obj_xy = rng.uniform(0, 500, (len(obj_video), 2))
    obj_wh = rng.uniform(8, 200, (len(obj_video), 2))
    obj_cls = rng.integers(1, num_classes + 1, len(obj_video))
    obj_crowd = rng.random(len(obj_video)) < 0.02
    frame_video = np.repeat(np.arange(num_anchors), per_anchor)
    # ground truth rows: every object in every frame of its video
    first_obj = np.concatenate([[0], np.cumsum(objs)[:-1]])
    g_frame = np.repeat(np.arange(frames), objs[frame_video])
    g_obj = first_obj[frame_video[g_frame]] + (
        np.arange(len(g_frame)) -
        np.repeat(np.cumsum(objs[frame_video]) - objs[frame_video],
                  objs[frame_video]))
    jitter = rng.normal(0, 3, (len(g_frame), 4))
    g_box = np.concatenate([obj_xy[g_obj], obj_wh[g_obj]], 1) + jitter
    g_box[:, 2:] = np.maximum(g_box[:, 2:], 2)
    # detections: 5 per ground truth box, rest random
    near = np.minimum(5 * objs[frame_video], num_dets)
    d_frame = np.repeat(np.arange(frames), num_dets)
    d_rank = np.tile(np.arange(num_dets), frames)
    is_near = d_rank < near[d_frame]
    d_box = np.concatenate([
        rng.uniform(0, 560, (len(d_frame), 2)),
        rng.uniform(4, 220, (len(d_frame), 2))
    ], 1)
    d_cls = rng.integers(1, num_classes + 1, len(d_frame))
    # near detections: the (rank // 5)-th object of the frame
    gt_start = np.concatenate([[0], np.cumsum(objs[frame_video])[:-1]])
    src = gt_start[d_frame[is_near]] + d_rank[is_near] // 5
    wh = np.tile(g_box[src, 2:], 2)
    d_box[is_near] = g_box[src] + wh * rng.normal(0, 0.08, (len(src), 4))
    right = rng.random(len(src)) < 0.8
    d_cls[is_near] = np.where(right, obj_cls[g_obj[src]], d_cls[is_near])
    d_score = rng.random(len(d_frame))
    d_score[is_near] = np.minimum(d_score[is_near] + 0.3, 1)

    anchors = np.arange(num_anchors) * per_anchor + half
    offsets = [o for o in range(-half, per_anchor - half) if o != 0]
    neighbours = [[(int(a + o), o) for o in offsets] for a in anchors]
    keys = [
        f'val/video_{v:05d}/{i:06d}.JPEG' for v in range(num_anchors)
        for i in range(per_anchor)
    ]
    return PmkData(
        frame_keys=keys,
        categories=np.arange(1, num_classes + 1),
        gt_frames=g_frame,
        gt_bboxes=g_box,
        gt_labels=obj_cls[g_obj],
        gt_crowd=obj_crowd[g_obj],
        det_frames=d_frame,
        det_bboxes=d_box,
        det_scores=d_score,
        det_labels=d_cls,
        anchors=anchors,
        neighbours=neighbours)


def score(data, ks):
    """Everything tools/eval_pmk.py computes; seconds per part."""
    from robustdet.evaluation.functional.pmk import (error_vs_offset,
                                                     pmk_classification,
                                                     pmk_map)
    times = {}
    t0 = time.perf_counter()
    det = pmk_map(data, ks)
    t1 = time.perf_counter()
    loc = pmk_map(data, ks, class_agnostic=True)
    t2 = time.perf_counter()
    cls = pmk_classification(data, ks)
    t3 = time.perf_counter()
    error_vs_offset(data, 'detection', frame_ap=det['frame_ap'])
    error_vs_offset(data, 'classification')
    t4 = time.perf_counter()
    times.update(
        map=t1 - t0, localization=t2 - t1, classification=t3 - t2,
        offsets=t4 - t3, total=t4 - t0)
    return times, det, loc, cls


def main():
    args = parse_args()
    if hasattr(os, 'sched_setaffinity'):
        cpu = args.cpu if args.cpu is not None else max(
            os.sched_getaffinity(0))
        os.sched_setaffinity(0, {cpu})
        print(f'pinned to CPU {cpu}')
    ks = range(11)
    # warm-up: first calls import scipy.stats and fill caches
    score(
        synthetic(20, args.frames_per_anchor, args.dets, args.classes,
                  args.seed), ks)
    results = {}
    for anchors in (args.anchors, args.anchors // 2):
        t = time.perf_counter()
        data = synthetic(anchors, args.frames_per_anchor, args.dets,
                         args.classes, args.seed)
        built = time.perf_counter() - t
        best = None
        for _ in range(args.repeat):
            data._score_orders = None  # no cached sort across repeats
            times, det, loc, cls = score(data, ks)
            if best is None or times['total'] < best['total']:
                best = times
        results[anchors] = best
        print(f'{data.num_frames} frames, {len(data.det_scores)} detections, '
              f'{len(data.gt_frames)} gt (built in {built:.1f} s): '
              f'{best["total"]:.2f} s (best of {args.repeat}) = ' +
              ', '.join(f'{k} {v:.2f}' for k, v in best.items()
                        if k != 'total'))
        print('  pm-k mAP50 k=0..10: ' +
              ' '.join(f'{det["map"][k]:.3f}' for k in ks))
        print('  loc mAP50 k=0..10:  ' +
              ' '.join(f'{loc["map"][k]:.3f}' for k in ks))
        print('  accuracy k=0..10:   ' +
              ' '.join(f'{cls["accuracy"][k]["acc"]:.3f}' for k in ks))
    big, small = results[args.anchors], results[args.anchors // 2]
    print(f'ratio {args.anchors} / {args.anchors // 2} anchors: '
          f'{big["total"] / small["total"]:.2f} (2.00 = linear)')


if __name__ == '__main__':
    main()
