# Copyright (c) robustdet contributors. All rights reserved.
"""Seconds per image of every corruption: reference vs fast backend, and
the newer families against gaussian_noise.

Both backends run in this one process, on one core (BLAS / OpenMP / numba
/ OpenCV threads set to 1, the process pinned to one CPU), on the same
photo (scikit-image's astronaut, resized) at 480×640 and 1024×2048. Each
cell is the best of ``--repeat`` calls with different seeds, after one
warm-up call (so the reference's per-process numba compile of glass_blur
is not counted there; it is reported separately as the cold start of a
fresh process, at the first size). Prints a table per size with the
ratio, the total for the 75 benchmark variants (15 corruptions × 5
severities) and the targets.

The newer families (C-bar, 3DCC; one definition, which both CPU
backends run) get their own table: the fast backend's seconds per
severity, their mean, and its ratio to gaussian_noise's mean at the same
size (target: none above 3×). The depth-aware corruptions get a depth
ramp (1 m at the bottom row to 15 m at the top), and the same depths
shuffled (``name*``: the focus blurs then cannot blur bands of rows
only). Each size also times ``--region objects`` (mask, soft edge and
blend) for 30 boxes::

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
              'corrupt(np.full(({}, {}, 3), 128, np.uint8), "glass_blur", '
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
        default=['all', 'cbar', '3dcc'],
        help='names or selection words (default: all cbar 3dcc)')
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


def bench_newer(img, names, repeat):
    """The newer families (fast backend) against gaussian_noise."""
    import functools

    import numpy as np

    from robustdet.corruptions import NEEDS_DEPTH, SEVERITIES, corrupt
    h, w = img.shape[:2]
    # Within 3DCC's metric scale (15.625 m is normalised depth 1), so that
    # the default calibration keeps nine distinct depth layers.
    depth = np.linspace(15.0, 1.0, h)[:, None].repeat(w, axis=1)
    # The same depths at random places: no depth layer is a band of rows.
    shuffled = np.random.default_rng(0).permutation(depth.ravel()).reshape(
        h, w)
    print(f'\n## {h}×{w}, newer families: seconds per image (fast), mean '
          'over severities, ratio to gaussian_noise; * = the depth ramp '
          'shuffled')
    rows = {}
    for name in ['gaussian_noise'] + names:
        runs = [(name, corrupt)]
        if name in NEEDS_DEPTH:
            runs = [(name, functools.partial(corrupt, depth=depth)),
                    (name + '*', functools.partial(corrupt,
                                                   depth=shuffled))]
        for label, fn in runs:
            rows[label] = [
                time_cell(fn, img, name, s, 'fast', repeat)
                for s in SEVERITIES
            ]
    base = sum(rows['gaussian_noise']) / len(SEVERITIES)
    ratios = {}
    for name, cells in rows.items():
        mean = sum(cells) / len(cells)
        ratios[name] = mean / base
        print(f'{name:27s} ' + ' '.join(f'{c:7.4f}' for c in cells) +
              f'   mean {mean:7.4f}  {ratios[name]:5.2f}×', flush=True)
    worst = max((r, n) for n, r in ratios.items() if n != 'gaussian_noise')
    print(f'largest ratio to gaussian_noise: {worst[0]:.2f}× ({worst[1]}; '
          'target: none above 3×)')
    return dict(cells=rows, ratio_to_gaussian_noise=ratios)


def bench_region(img, repeat):
    """``--region objects``: object mask with soft edge, and the blend, for
    30 boxes over a third of the image."""
    import numpy as np

    from robustdet.corruptions import corrupt
    from robustdet.corruptions.region import blend_region, region_weight
    h, w = img.shape[:2]
    rng = np.random.default_rng(0)
    boxes = []
    for _ in range(30):
        bw, bh = rng.uniform(0.05, 0.2) * w, rng.uniform(0.05, 0.2) * h
        x, y = rng.uniform(0, w - bw), rng.uniform(0, h - bh)
        boxes.append(dict(bbox=[x, y, x + bw, y + bh], ignore_flag=0))
    corrupted = corrupt(img, 'gaussian_noise', 3)

    def region(*_, **__):
        weight = region_weight(h, w, boxes)
        return blend_region(img, corrupted, weight, 'objects')

    seconds = time_cell(region, img, None, 3, None, repeat)
    print(f'\n--region objects on {h}×{w}, 30 boxes: {seconds:.4f} s per '
          'image on top of the corruption')
    return seconds


def bench_size(size, names, repeat):
    import cv2
    from skimage import data

    from robustdet.corruptions import IMAGENET_C_CORRUPTIONS
    h, w = size
    img = cv2.resize(data.astronaut(), (w, h), interpolation=cv2.INTER_AREA)
    newer = [n for n in names if n not in IMAGENET_C_CORRUPTIONS]
    names = [n for n in names if n in IMAGENET_C_CORRUPTIONS]
    out = bench_imagenet_c(img, names, repeat) if names else {}
    if newer:
        out['newer'] = bench_newer(img, newer, repeat)
    out['region_objects'] = bench_region(img, repeat)
    return out


def bench_imagenet_c(img, names, repeat):
    """The 19 of imagecorruptions: reference against fast."""
    from robustdet.corruptions import (BENCHMARK_CORRUPTIONS, SEVERITIES,
                                       corrupt)
    h, w = img.shape[:2]
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


def cold_start(size):
    """Import and the first glass_blur at ``size`` (H, W) in a fresh
    process, per backend."""
    print(f'\n## cold start: fresh process, import + first glass_blur at '
          f'{size[0]}×{size[1]}')
    out = {}
    for backend in BACKENDS:
        res = subprocess.run([
            sys.executable, '-c',
            COLD_START.format(*size, backend)
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
    sizes = [tuple(int(v) for v in s.lower().split('x')) for s in args.sizes]
    for size, (h, w) in zip(args.sizes, sizes):
        results['sizes'][size] = bench_size((h, w), names, args.repeat)
    results['cold_start'] = cold_start(sizes[0])
    if args.json:
        with open(args.json, 'w') as f:
            json.dump(results, f, indent=1)


if __name__ == '__main__':
    main()
