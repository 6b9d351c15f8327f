# Copyright (c) robustdet contributors. All rights reserved.
"""Speed of mmdet's ``CocoMetric`` (pycocotools) against robustdet's
``FastCocoMetric`` (faster-coco-eval), side by side in one run on the same
synthetic COCO-sized predictions, and whether their numbers agree.

Default: 5,000 images of 640x480, 80 classes, about 7 ground truth boxes
per image (1 % crowds, COCO-like spread of small/medium/large), 100
detections per image (jittered copies of the ground truth, mostly the
right class, and random boxes). Both metrics get the same data samples;
timed is ``evaluate()`` (results to json, loading, COCO evaluation,
summary), and inside it the COCO evaluation alone (evaluate + accumulate +
summarize), in wall and CPU seconds (CPU seconds of all threads; on a
shared machine the CPU times are the ones to compare)::

    python tools/benchmarks/bench_coco_eval.py [--images 5000] \\
        [--classes 80] [--dets 100] [--metric bbox segm] [--repeat 1]

Agreement reported: the metric dicts (mmdet rounds to 3 decimals), the
full ``stats`` vectors, and the precision arrays (entries that differ, and
whether all of them are pycocotools' ``1 / (1 + 2**-52)`` against 1.0).
"""
import argparse
import contextlib
import io
import os.path as osp
import sys
import time

REPO = osp.dirname(osp.dirname(osp.dirname(osp.abspath(__file__))))
sys.path.insert(0, REPO)


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--images', type=int, default=5000)
    parser.add_argument('--classes', type=int, default=80)
    parser.add_argument('--dets', type=int, default=100)
    parser.add_argument('--gt-per-image', type=float, default=7.3)
    parser.add_argument(
        '--metric', nargs='+', default=['bbox'], choices=['bbox', 'segm'])
    parser.add_argument('--repeat', type=int, default=1)
    parser.add_argument('--seed', type=int, default=0)
    return parser.parse_args()


def synthetic(num_images, num_classes, num_dets, gt_per_image, seed,
              masks=False):
    """A COCO ground-truth dict and mmdet data samples (one per image)."""
    import numpy as np
    import pycocotools.mask as mask_util
    import torch
    rng = np.random.default_rng(seed)
    h, w = 480, 640
    n_gt = rng.poisson(gt_per_image, num_images)
    gt_img = np.repeat(np.arange(num_images), n_gt)
    # sqrt(area) log-uniform in [8, 400]: ~40 % small, ~35 % medium
    side = np.exp(rng.uniform(np.log(8), np.log(400), len(gt_img)))
    aspect = np.exp(rng.normal(0, 0.5, len(gt_img)))
    gw = np.minimum(side * np.sqrt(aspect), w - 1)
    gh = np.minimum(side / np.sqrt(aspect), h - 1)
    gx = rng.uniform(0, w - gw)
    gy = rng.uniform(0, h - gh)
    g_box = np.stack([gx, gy, gx + gw, gy + gh], 1)
    g_cls = rng.integers(0, num_classes, len(gt_img))
    g_crowd = rng.random(len(gt_img)) < 0.01

    # detections: up to 3 jittered copies of each object, the rest random
    first = np.concatenate([[0], np.cumsum(n_gt)[:-1]])
    d_img = np.repeat(np.arange(num_images), num_dets)
    rank = np.tile(np.arange(num_dets), num_images)
    near = rank < np.minimum(3 * n_gt, num_dets)[d_img]
    src = first[d_img[near]] + rank[near] % np.maximum(n_gt[d_img[near]], 1)
    d_box = np.empty((len(d_img), 4))
    dw = np.tile(g_box[src, 2:] - g_box[src, :2], 2)
    d_box[near] = g_box[src] + dw * rng.normal(0, 0.1, (len(src), 4))
    far = ~near
    rs = np.exp(rng.uniform(np.log(8), np.log(400), far.sum()))
    rx, ry = rng.uniform(0, w - 1, far.sum()), rng.uniform(0, h - 1, far.sum())
    d_box[far] = np.stack([rx, ry, rx + rs, ry + rs], 1)
    d_box = np.clip(d_box, 0, [w, h, w, h])
    d_box[:, 2:] = np.maximum(d_box[:, 2:], d_box[:, :2] + 1)
    d_cls = rng.integers(0, num_classes, len(d_img))
    right = rng.random(len(src)) < 0.8
    d_cls[near] = np.where(right, g_cls[src], d_cls[near])
    d_score = rng.random(len(d_img)) * np.where(near, 1.0, 0.6)

    def rle(box):
        x0, y0, x1, y1 = box
        r = mask_util.frPyObjects([[x0, y0, x1, y0, x1, y1, x0, y1]], h, w)
        r = mask_util.merge(r)
        r['counts'] = r['counts'].decode()
        return r

    images = [dict(id=i + 1, width=w, height=h, file_name=f'{i:012d}.jpg')
              for i in range(num_images)]
    anns = []
    for k in range(len(gt_img)):
        x0, y0, x1, y1 = g_box[k].tolist()
        ann = dict(id=k + 1, image_id=int(gt_img[k]) + 1,
                   category_id=int(g_cls[k]) + 1,
                   bbox=[x0, y0, x1 - x0, y1 - y0],
                   area=(x1 - x0) * (y1 - y0), iscrowd=int(g_crowd[k]))
        if masks:
            ann['segmentation'] = [[x0, y0, x1, y0, x1, y1, x0, y1]]
        anns.append(ann)
    categories = [dict(id=c + 1, name=f'class{c}') for c in range(num_classes)]
    samples = []
    for i in range(num_images):
        sl = slice(i * num_dets, (i + 1) * num_dets)
        pred = dict(
            bboxes=torch.from_numpy(d_box[sl].astype(np.float32)),
            scores=torch.from_numpy(d_score[sl].astype(np.float32)),
            labels=torch.from_numpy(d_cls[sl]))
        if masks:  # RLEs, as CocoMetric.process keeps them
            pred['masks'] = [rle(b) for b in d_box[sl].tolist()]
        samples.append(dict(img_id=i + 1, ori_shape=(h, w),
                            pred_instances=pred))
    coco = dict(images=images, annotations=anns, categories=categories)
    return coco, samples


class Clock:
    """Wall and CPU seconds spent in COCO evaluation (evaluate,
    accumulate, summarize) per evaluator class, and the evaluator objects,
    in call order."""

    def __init__(self, classes):
        self.seconds = {cls: [0.0, 0.0] for cls in classes}
        self.evals = {cls: [] for cls in classes}
        for cls in classes:
            for name in ('evaluate', 'accumulate', 'summarize'):
                setattr(cls, name, self._timed(cls, getattr(cls, name)))

    def reset(self, cls):
        self.seconds[cls] = [0.0, 0.0]
        self.evals[cls].clear()

    def _timed(self, cls, method):
        def timed(evaluator, *args, **kwargs):
            wall, cpu = time.perf_counter(), time.process_time()
            try:
                return method(evaluator, *args, **kwargs)
            finally:
                self.seconds[cls][0] += time.perf_counter() - wall
                self.seconds[cls][1] += time.process_time() - cpu
                if method.__name__ == 'summarize':
                    self.evals[cls].append(evaluator)

        timed.__name__ = method.__name__
        return timed


def run(metric_cls, samples, ann_file, classes, metrics):
    """The metric's result and the wall and CPU seconds its
    ``evaluate()`` took."""
    with contextlib.redirect_stdout(io.StringIO()):  # pycocotools prints
        metric = metric_cls(ann_file=ann_file, metric=metrics)
        metric.dataset_meta = dict(classes=classes)
        metric.process({}, samples)
        wall, cpu = time.perf_counter(), time.process_time()
        result = metric.evaluate(len(samples))
    return result, [time.perf_counter() - wall, time.process_time() - cpu]


def agreement(ref, fast):
    """(identical stats, max |stats diff|, precision entries differing,
    all of them pycocotools' 1 / (1 + 2**-52) against 1.0)."""
    import numpy as np
    lone_tp = 1 / (1 + np.spacing(1))
    stats_ref, stats_fast = np.asarray(ref.stats), np.asarray(fast.stats)
    p_ref = ref.eval['precision']
    p_fast = np.asarray(fast.eval['precision'])
    differ = p_ref != p_fast
    known = bool(
        np.all(p_ref[differ] == lone_tp) and np.all(p_fast[differ] == 1.0))
    same_rest = (np.array_equal(ref.eval['recall'], fast.eval['recall'])
                 and np.array_equal(ref.eval['scores'], fast.eval['scores']))
    return (np.array_equal(stats_ref, stats_fast),
            float(np.abs(stats_ref - stats_fast).max()), int(differ.sum()),
            known and same_rest)


def main():
    args = parse_args()
    import json
    import tempfile

    from mmdet.evaluation.metrics import CocoMetric
    from mmengine.logging import MMLogger
    from pycocotools.cocoeval import COCOeval

    from robustdet.evaluation import FastCocoMetric
    from robustdet.evaluation.metrics._faster_coco import FasterCOCOeval
    from robustdet.utils import register_all_modules
    register_all_modules()
    MMLogger.get_instance('bench_coco_eval', log_level='WARNING')

    t = time.perf_counter()
    coco, samples = synthetic(args.images, args.classes, args.dets,
                              args.gt_per_image, args.seed,
                              masks='segm' in args.metric)
    print(f'{args.images} images, {len(coco["annotations"])} ground truth, '
          f'{args.images * args.dets} detections, {args.classes} classes, '
          f'metric {"+".join(args.metric)} '
          f'(built in {time.perf_counter() - t:.1f} s)')
    classes = tuple(c['name'] for c in coco['categories'])
    clock = Clock((COCOeval, FasterCOCOeval))
    with tempfile.TemporaryDirectory() as tmp:
        ann_file = osp.join(tmp, 'gt.json')
        with open(ann_file, 'w') as f:
            json.dump(coco, f)
        best = {}
        for _ in range(args.repeat):
            for cls, ev in ((CocoMetric, COCOeval),
                            (FastCocoMetric, FasterCOCOeval)):
                clock.reset(ev)
                result, seconds = run(cls, samples, ann_file, classes,
                                      args.metric)
                if cls not in best or seconds[0] < best[cls][1][0]:
                    best[cls] = (result, seconds, clock.seconds[ev])
    ref, fast = best[CocoMetric][0], best[FastCocoMetric][0]
    for cls, name in ((CocoMetric, 'CocoMetric (pycocotools)'),
                      (FastCocoMetric, 'FastCocoMetric (faster-coco-eval)')):
        _, (wall, cpu), (e_wall, e_cpu) = best[cls]
        print(f'{name:34s} evaluate() {wall:6.2f} s (CPU {cpu:6.2f} s), '
              f'of which COCO evaluation {e_wall:6.2f} s (CPU {e_cpu:6.2f} s)')
    (_, t_ref, e_ref), (_, t_fast, e_fast) = (best[CocoMetric],
                                              best[FastCocoMetric])
    print(f'speed-up (best of {args.repeat}): evaluate() '
          f'{t_ref[0] / t_fast[0]:.2f}x wall, {t_ref[1] / t_fast[1]:.2f}x '
          f'CPU; COCO evaluation {e_ref[0] / e_fast[0]:.2f}x wall, '
          f'{e_ref[1] / e_fast[1]:.2f}x CPU')
    print(f'reported metrics identical: {ref == fast}  ' +
          ' '.join(f'{k.split("/")[-1]}={v}' for k, v in ref.items()))
    for r, f in zip(clock.evals[COCOeval], clock.evals[FasterCOCOeval]):
        same, diff, n, known = agreement(r, f)
        print(f'{r.params.iouType}: full stats identical: {same} '
              f'(max |diff| {diff:.3g}); precision entries differing: {n} '
              f'of {r.eval["precision"].size}, all pycocotools '
              f'1/(1+2**-52) vs 1.0 and recall/scores identical: {known}')


if __name__ == '__main__':
    main()
