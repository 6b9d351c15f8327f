# Copyright (c) robustdet contributors. All rights reserved.
"""mmcv's CPU RoIAlign against robustdet's FastRoIAlign, side by side in
one run, on the same features and RoIs (by default the shapes of one
batch of the demo detector: 8 images, 64-channel FPN level at stride 4 of
320x240, 8000 proposals, 7x7 output, adaptive sampling, aligned); checks
that the outputs are identical and prints the times and their ratio::

    python tools/benchmarks/bench_roi_align.py [--rois 8000] [--repeats 5]
"""
import argparse
import os.path as osp
import sys
import time

REPO = osp.dirname(osp.dirname(osp.dirname(osp.abspath(__file__))))
sys.path.insert(0, REPO)


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--images', type=int, default=8)
    parser.add_argument('--channels', type=int, default=64)
    parser.add_argument('--size', type=int, nargs=2, default=[320, 240],
                        metavar=('W', 'H'), help='image size')
    parser.add_argument('--stride', type=int, default=4)
    parser.add_argument('--rois', type=int, default=8000)
    parser.add_argument('--repeats', type=int, default=5)
    parser.add_argument('--threads', type=int, default=1,
                        help='torch threads (mmcv and the kernel use one)')
    return parser.parse_args()


def best_time(fn, repeats):
    best = float('inf')
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def main():
    args = parse_args()
    import torch
    from mmcv.ops import RoIAlign

    from robustdet.models.roi_align import FastRoIAlign
    torch.set_num_threads(args.threads)
    gen = torch.Generator().manual_seed(0)
    w, h = args.size
    feat = torch.randn(args.images, args.channels, h // args.stride,
                       w // args.stride, generator=gen)
    n = args.rois
    x1 = torch.rand(n, generator=gen) * w * 0.9
    y1 = torch.rand(n, generator=gen) * h * 0.9
    bw = torch.rand(n, generator=gen) * w / 3 + 4
    bh = torch.rand(n, generator=gen) * h / 3 + 4
    batch = torch.randint(0, args.images, (n, ), generator=gen).float()
    rois = torch.stack([batch, x1, y1, x1 + bw, y1 + bh], 1)
    mmcv_layer = RoIAlign(7, 1 / args.stride, 0, aligned=True)
    fast = FastRoIAlign.from_mmcv(mmcv_layer)
    with torch.no_grad():
        same = torch.equal(mmcv_layer(feat, rois), fast(feat, rois))
        t_mmcv = best_time(lambda: mmcv_layer(feat, rois), args.repeats)
        t_fast = best_time(lambda: fast(feat, rois), args.repeats)
    print(f'features {tuple(feat.shape)}, {n} RoIs, 7x7, best of '
          f'{args.repeats}')
    print(f'mmcv RoIAlign      {1000 * t_mmcv:8.1f} ms')
    print(f'FastRoIAlign       {1000 * t_fast:8.1f} ms')
    print(f'speed-up           {t_mmcv / t_fast:8.2f}x')
    print(f'outputs identical: {same}')
    if not same:
        sys.exit(1)


if __name__ == '__main__':
    main()
