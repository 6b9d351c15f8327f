# Copyright (c) robustdet contributors. All rights reserved.
"""Clip-corruption throughput: frames per second on the CPU for every
corruption of the video table at one severity, on a synthetic 640x360 clip
(moving shapes on a texture), in one run, one process::

    python tools/benchmarks/bench_video.py [--frames 16] [--severity 3]

Each corruption processes the whole clip at once (codecs encode it once
per clip, not once per frame); the figure is frames / seconds of the best
of ``--repeats`` runs.
"""
import argparse
import os.path as osp
import sys
import time

import numpy as np

REPO = osp.dirname(osp.dirname(osp.dirname(osp.abspath(__file__))))
sys.path.insert(0, REPO)


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--frames', type=int, default=16)
    parser.add_argument('--size', type=int, nargs=2, default=[640, 360],
                        metavar=('W', 'H'))
    parser.add_argument('--severity', type=int, default=3)
    parser.add_argument('--repeats', type=int, default=2)
    return parser.parse_args()


def synthetic_clip(frames, width, height, seed=0):
    """Moving bright rectangles on a smooth random texture."""
    import cv2
    rng = np.random.default_rng(seed)
    base = cv2.resize(
        rng.integers(0, 255, (height // 8, width // 8, 3), dtype=np.uint8),
        (width, height), interpolation=cv2.INTER_CUBIC)
    clip = np.repeat(base[None], frames, 0)
    for t in range(frames):
        for k in range(4):
            x = int((0.1 + 0.2 * k) * width + 4 * t * (k + 1)) % width
            y = int((0.2 + 0.15 * k) * height + 2 * t) % height
            cv2.rectangle(clip[t], (x, y), (x + width // 10, y + height // 8),
                          (255 - 40 * k, 60 * k, 200), -1)
    return clip


def main():
    args = parse_args()
    from robustdet.video.table import CLIP_CORRUPTIONS, corrupt_clip
    clip = synthetic_clip(args.frames, *args.size)
    print(f'{args.frames} frames of {args.size[0]}x{args.size[1]}, severity '
          f'{args.severity}, best of {args.repeats}')
    print('| corruption | family | frames/s |')
    print('|---|---|---|')
    for c in CLIP_CORRUPTIONS:
        best = float('inf')
        for r in range(args.repeats):
            start = time.perf_counter()
            corrupt_clip(clip, c.name, args.severity, seed=r)
            best = min(best, time.perf_counter() - start)
        print(f'| {c.name} | {c.family} | {args.frames / best:.1f} |',
              flush=True)


if __name__ == '__main__':
    main()
