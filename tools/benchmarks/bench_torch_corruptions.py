# Copyright (c) robustdet contributors. All rights reserved.
"""Milliseconds per image of the torch backend on a device, and how far
its pixels are from the fast backend's.

For every selected corruption, ``corrupt_batch`` on a batch of ``--batch``
copies of one photo (scikit-image's astronaut, resized) at each size, on
``--device`` (default ``cuda``), severities 1, 3 and 5: the best of
``--repeat`` timed calls after a warm-up, synchronised, divided by the
batch size; the ratio to gaussian_noise's time on the same device and
size; and the largest difference to the fast (CPU) backend's pixels of
the same image and seed, with the share of values more than one grey
level apart (the noises match the fast backend in distribution only, so
theirs are large by design)::

    python tools/benchmarks/bench_torch_corruptions.py \\
        [--sizes 480x640 1024x2048] [--batch 8] [--device cuda] \\
        [--corruptions all cbar 3dcc]

It imports the corruption modules without robustdet's ``__init__`` (which
imports mmdet to register modules), so it runs where only torch, numpy,
scipy, OpenCV, Pillow, numba and scikit-image are installed, as on a GPU
machine without mmdet.
"""
import argparse
import json
import os
import os.path as osp
import sys
import time
import types

REPO = osp.dirname(osp.dirname(osp.dirname(osp.abspath(__file__))))
SEVERITIES = (1, 3, 5)


def _light_import():
    """robustdet.corruptions without the package ``__init__``."""
    for name in ('robustdet', 'robustdet.utils'):
        if name not in sys.modules:
            module = types.ModuleType(name)
            module.__path__ = [osp.join(REPO, *name.split('.'))]
            sys.modules[name] = module
    from robustdet import corruptions
    from robustdet.corruptions import torch_backend
    return corruptions, torch_backend


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--sizes', nargs='+',
                        default=['480x640', '1024x2048'])
    parser.add_argument('--batch', type=int, default=8)
    parser.add_argument('--repeat', type=int, default=3)
    parser.add_argument('--device', default='cuda')
    parser.add_argument(
        '--corruptions', nargs='+', default=['all', 'cbar', '3dcc'],
        help='names or selection words (default: all cbar 3dcc)')
    parser.add_argument('--json', help='also write the results here')
    return parser.parse_args()


def main():
    args = parse_args()
    import cv2
    import numpy as np
    import torch
    from skimage import data
    corruptions, torch_backend = _light_import()
    names = corruptions.resolve_corruptions(args.corruptions)
    if 'gaussian_noise' not in names:
        names.insert(0, 'gaussian_noise')
    device = torch_backend.resolve_device(args.device)
    name = (torch.cuda.get_device_name(device) if device.type == 'cuda'
            else 'cpu')
    print(f'device {device} ({name}), torch {torch.__version__}, batch '
          f'{args.batch}, best of {args.repeat}, severities {SEVERITIES}')

    def sync():
        if device.type == 'cuda':
            torch.cuda.synchronize(device)

    out = dict(device=name, torch=torch.__version__, batch=args.batch,
               sizes={})
    for size in args.sizes:
        h, w = (int(v) for v in size.lower().split('x'))
        img = cv2.resize(data.astronaut(), (w, h),
                         interpolation=cv2.INTER_AREA)
        depth = np.linspace(60.0, 2.0, h)[:, None].repeat(w, axis=1)
        batch = torch.from_numpy(img).permute(2, 0, 1)[None].repeat(
            args.batch, 1, 1, 1).contiguous().to(device)
        depths = torch.from_numpy(depth).float()[None].repeat(
            args.batch, 1, 1).to(device)
        print(f'\n## {h}×{w}: ms per image on {device.type}, ratio to '
              'gaussian_noise, |torch - fast| (max, share > 1)')
        rows = {}
        for cname in names:
            needs = corruptions.get_corruption(cname).needs_depth
            kwargs = dict(depth=depths) if needs else {}
            seeds = list(range(args.batch))
            times, diffs = [], []
            for sev in SEVERITIES:
                torch_backend.corrupt_batch(batch, cname, sev, seeds,
                                            **kwargs)  # warm-up
                best = float('inf')
                for _ in range(args.repeat):
                    sync()
                    start = time.perf_counter()
                    result = torch_backend.corrupt_batch(
                        batch, cname, sev, seeds, **kwargs)
                    sync()
                    best = min(best, time.perf_counter() - start)
                times.append(1000 * best / args.batch)
                got = result[0].permute(1, 2, 0).cpu().numpy().astype(int)
                fast = corruptions.corrupt(
                    img, cname, sev, seed=0, backend='fast',
                    depth=depth if needs else None)
                diff = np.abs(got - fast)
                diffs.append((int(diff.max()), float(np.mean(diff > 1))))
            rows[cname] = dict(ms=times, diff=diffs)
        base = np.mean(rows['gaussian_noise']['ms'])
        for cname, row in rows.items():
            mean = float(np.mean(row['ms']))
            row['ratio'] = mean / base
            worst = max(row['diff'])
            share = max(d[1] for d in row['diff'])
            print(f'{cname:27s} ' + ' '.join(f'{t:8.2f}' for t in row['ms'])
                  + f'  mean {mean:8.2f}  {row["ratio"]:5.2f}×  diff '
                  f'{worst[0]:3d} {share:.1e}', flush=True)
        out['sizes'][size] = rows
    if args.json:
        os.makedirs(osp.dirname(osp.abspath(args.json)), exist_ok=True)
        with open(args.json, 'w') as f:
            json.dump(out, f, indent=1)


if __name__ == '__main__':
    main()
