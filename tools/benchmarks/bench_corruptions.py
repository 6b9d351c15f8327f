# Copyright (c) robustdet contributors. All rights reserved.
"""Seconds per image of every corruption: reference vs fast backend.

Both backends run in this one process, on one core (BLAS / OpenMP / numba
/ OpenCV threads set to 1, the process pinned to one CPU), on the same
photo (scikit-image's astronaut, resized) at 480×640 and 1024×2048. Each
cell is the best of ``--repeat`` calls with different seeds, after one
warm-up call (so the reference's per-process numba compile of glass_blur
is not counted there; it is reported separately as the cold start of a
fresh process). Prints a table per size with the ratio, the total for the
75 benchmark variants (15 corruptions × 5 severities) and the targets::

    python tools/benchmarks/bench_corruptions.py [--sizes 480x640 1024x2048]
"""
import argparse
import json
import os
import os.path as osp
import subprocess
import sys
import time

for _var in ('OMP_NUM_THREADS', 'OPENBLAS_NUM_THREADS', 'MKL_NUM_THREADS',
             'NUMEXPR_NUM_THREADS', 'VECLIB_MAXIMUM_THREADS',
             'NUMBA_NUM_THREADS'):
    os.environ[_var] = '1'

REPO = osp.dirname(osp.dirname(osp.dirname(osp.abspath(__file__))))
sys.path.insert(0, REPO)

BACKENDS = ('reference', 'fast')
COLD_START = ('import time; t = time.perf_counter(); import numpy as np; '
              'from robustdet.corruptions import corrupt; '
              'corrupt(np.full((480, 640, 3), 128, np.uint8), "glass_blur", '
              '1, backend="{}"); print(time.perf_counter() - t)')


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument(
        '--sizes',
        nargs='+',
        default=['480x640', '1024x2048'],
        help='H×W sizes (default: 480x640 1024x2048)')
    parser.add_argument('--repeat', type=int, default=3)
    parser.add_argument(
        '--corruptions',
        nargs='+',
        default=['all'],
        help='names or selection words (default: all)')
    parser.add_argument(
        '--cpu', type=int, help='CPU to pin to (default: the last allowed)')
    parser.add_argument('--json', help='also write the timings here')
    return parser.parse_args()


def pin(cpu):
    allowed = sorted(os.sched_getaffinity(0))
    cpu = allowed[-1] if cpu is None else cpu
    os.sched_setaffinity(0, {cpu})
    return cpu


def time_cell(corrupt, img, name, severity, backend, repeat, before=None):
    corrupt(img, name, severity, seed=0, backend=backend)  # warm-up
    best = float('inf')
    for seed in range(1, repeat + 1):
        if before is not None:
            before()
        start = time.perf_counter()
        corrupt(img, name, severity, seed=seed, backend=backend)
        best = min(best, time.perf_counter() - start)
    return best


def bench_size(size, names, repeat):
    import cv2
    from skimage import data

    from robustdet.corruptions import (BENCHMARK_CORRUPTIONS, SEVERITIES,
                                       corrupt)
    h, w = size
    img = cv2.resize(data.astronaut(), (w, h), interpolation=cv2.INTER_AREA)
    rows = {}
    print(f'\n## {h}×{w}: seconds per image (fast), ratio reference/fast')
    print(f'{"corruption":18s} ' + ' '.join(f'{"s" + str(s):>16s}'
                                            for s in SEVERITIES))
    for name in names:
        cells = []
        for s in SEVERITIES:
            cell = {b: time_cell(corrupt, img, name, s, b, repeat)
                    for b in BACKENDS}
            cells.append(cell)
        rows[name] = cells
        print(f'{name:18s} ' + ' '.join(
            f'{c["fast"]:7.4f} ({c["reference"] / c["fast"]:5.1f}×)'
            for c in cells), flush=True)
    bench = [n for n in names if n in BENCHMARK_CORRUPTIONS]
    totals = {
        b: sum(c[b] for n in bench for c in rows[n])
        for b in BACKENDS
    }
    slowest = min((c['reference'] / c['fast'], n, s)
                  for n in names for s, c in zip(SEVERITIES, rows[n]))
    print(f'\n{len(bench) * 5} benchmark variants: reference '
          f'{totals["reference"]:.3f} s, fast {totals["fast"]:.3f} s, '
          f'ratio {totals["reference"] / totals["fast"]:.1f}× '
          '(target ≥ 10×)')
    if 'zoom_blur' in rows:
        zoom = {
            b: sum(c[b] for c in rows['zoom_blur'])
            for b in BACKENDS
        }
        print(f'zoom_blur: ratio {zoom["reference"] / zoom["fast"]:.1f}× '
              '(target ≥ 20×)')
    print(f'smallest ratio: {slowest[0]:.2f}× ({slowest[1]} severity '
          f'{slowest[2]}; target: none below 1×)')
    out = dict(cells=rows, totals=totals)
    if 'frost' in rows:
        # The fast backend keeps frost's enlarged textures per image size;
        # a dataset of many sizes (COCO) misses that cache on most images.
        from robustdet.corruptions import common
        cold = [{
            b: time_cell(corrupt, img, 'frost', s, b, repeat,
                         common.frost_rescaled.cache_clear)
            for b in BACKENDS
        } for s in SEVERITIES]
        total = {b: sum(c[b] for c in cold) for b in BACKENDS}
        print(f'frost, texture enlarged anew each call (a new image size): '
              f'reference {total["reference"]:.3f} s, fast '
              f'{total["fast"]:.3f} s over 5 severities, ratio '
              f'{total["reference"] / total["fast"]:.1f}×')
        out['frost_new_size'] = cold
    return out


def cold_start():
    print('\n## cold start: fresh process, import + first glass_blur')
    out = {}
    for backend in BACKENDS:
        res = subprocess.run([
            sys.executable, '-c',
            COLD_START.format(backend)
        ],
                             capture_output=True,
                             text=True,
                             check=True,
                             cwd=REPO)
        out[backend] = float(res.stdout.strip().splitlines()[-1])
        print(f'{backend:10s} {out[backend]:.2f} s')
    return out


def main():
    args = parse_args()
    cpu = pin(args.cpu)
    import cv2
    cv2.setNumThreads(1)

    from robustdet.corruptions import resolve_corruptions
    names = resolve_corruptions(args.corruptions)
    print(f'one thread, pinned to CPU {cpu}; best of {args.repeat}')
    results = dict(sizes={})
    for size in args.sizes:
        h, w = (int(v) for v in size.lower().split('x'))
        results['sizes'][size] = bench_size((h, w), names, args.repeat)
    results['cold_start'] = cold_start()
    if args.json:
        with open(args.json, 'w') as f:
            json.dump(results, f, indent=1)


if __name__ == '__main__':
    main()
