# Copyright (c) robustdet contributors. All rights reserved.
"""Stylization speed and memory, side by side in one run.

1. AdaIN throughput (images per second, style statistics cached as in
   ``tools/stylize_dataset.py``) for 320x240 content (``--size``) at
   batch 1 and
   batch 8 on the CPU and, when CUDA is available, for COCO-sized
   640x480 content at batch 1 and 8 on the GPU. The networks have the
   release's architecture; the speed does not depend on the weights, so
   generated ones are used.
2. Memory against dataset size: peak RSS of a whole ``run_stylize`` job on
   generated COCO-style datasets of N and 4N images (each in a fresh
   process); the ratio should stay near 1::

    python tools/benchmarks/bench_stylize.py [--threads 2] [--images 16] \\
        [--size 320x240]
"""
import argparse
import json
import os
import os.path as osp
import resource
import subprocess
import sys
import tempfile
import time

REPO = osp.dirname(osp.dirname(osp.dirname(osp.abspath(__file__))))
sys.path.insert(0, REPO)
# The demo's data generators (demo/demo_data).
sys.path.insert(0, osp.join(REPO, 'demo'))


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--threads', type=int, default=0,
                        help='torch CPU threads (0: torch default)')
    parser.add_argument('--images', type=int, default=16,
                        help='N of the memory comparison (N and 4N)')
    parser.add_argument('--repeats', type=int, default=3)
    parser.add_argument('--size', default='320x240', metavar='WxH',
                        help='content size of the CPU throughput')
    parser.add_argument('--memory-job', nargs=2, help=argparse.SUPPRESS)
    return parser.parse_args()


def throughput(model, device, size, batch, repeats):
    """Best-of-``repeats`` images per second for (w, h) ``size``."""
    import torch
    w, h = size
    x = torch.rand(batch, 3, h, w, device=device)
    mean, std = model.style_stats(torch.rand(1, 3, 256, 256, device=device))
    mean, std = mean.expand(batch, -1, -1, -1), std.expand(batch, -1, -1, -1)
    model(x, mean, std)  # warm-up
    best = float('inf')
    for _ in range(repeats):
        if device != 'cpu':
            torch.cuda.synchronize()
        start = time.perf_counter()
        model(x, mean, std)
        if device != 'cpu':
            torch.cuda.synchronize()
        best = min(best, time.perf_counter() - start)
    return batch / best


def make_dataset(root, num):
    """A COCO-style set of ``num`` 320x240 demo-like images."""
    import cv2
    import numpy as np
    os.makedirs(osp.join(root, 'images'), exist_ok=True)
    rng = np.random.default_rng(0)
    images = []
    for i in range(num):
        img = rng.integers(0, 255, (240, 320, 3), dtype=np.uint8)
        name = f'{i:06d}.jpg'
        cv2.imwrite(osp.join(root, 'images', name), img)
        images.append(dict(id=i, file_name=name, width=320, height=240))
    with open(osp.join(root, 'ann.json'), 'w') as f:
        json.dump(dict(images=images, annotations=[], categories=[]), f)


def memory_job(root, out):
    """Run one stylization job (in this process) and print peak RSS."""
    from demo_data.styles import write_style_images
    from robustdet.stylize import (CocoLayout, StylizeJob, make_demo_adain,
                                   run_stylize)
    styles = osp.join(osp.dirname(root), 'styles')
    write_style_images(styles, num=8)
    job = StylizeJob(
        CocoLayout(osp.join(root, 'ann.json'), osp.join(root, 'images')),
        styles, out, content_size=120, style_size=128, batch_size=4)
    run_stylize(job, model=make_demo_adain(), progress=False)
    print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)


def main():
    args = parse_args()
    if args.memory_job:
        return memory_job(*args.memory_job)
    import torch

    from robustdet.stylize import make_demo_adain
    if args.threads:
        torch.set_num_threads(args.threads)
    model = make_demo_adain()
    print(f'torch {torch.__version__}, {torch.get_num_threads()} CPU '
          f'threads')
    print('| device | content | batch | images/s |')
    print('|---|---|---|---|')
    size = tuple(int(v) for v in args.size.split('x'))
    for batch in (1, 8):
        ips = throughput(model, 'cpu', size, batch, args.repeats)
        print(f'| cpu | {args.size} | {batch} | {ips:.2f} |', flush=True)
    if torch.cuda.is_available():
        gpu = make_demo_adain().cuda()
        name = torch.cuda.get_device_name()
        for batch in (1, 8):
            ips = throughput(gpu, 'cuda', (640, 480), batch, args.repeats)
            print(f'| {name} | 640x480 | {batch} | {ips:.2f} |', flush=True)
    else:
        print('| cuda | 640x480 | - | not measured (no CUDA device) |')

    peaks = []
    for num in (args.images, 4 * args.images):
        with tempfile.TemporaryDirectory() as tmp:
            data = osp.join(tmp, 'data')
            make_dataset(data, num)
            proc = subprocess.run([
                sys.executable, __file__, '--memory-job', data,
                osp.join(tmp, 'out')
            ], capture_output=True, text=True)
            if proc.returncode:
                sys.exit(proc.stderr[-2000:])
            peaks.append(int(proc.stdout.split()[-1]) / 1024)
            print(f'peak RSS stylizing {num} images: {peaks[-1]:.0f} MiB',
                  flush=True)
    print(f'peak RSS ratio ({4 * args.images} vs {args.images} images): '
          f'{peaks[1] / peaks[0]:.3f}')


if __name__ == '__main__':
    main()
