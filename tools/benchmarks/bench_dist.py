# Copyright (c) robustdet contributors. All rights reserved.
"""Wall time of ``tools/test_robust.py`` in one process against the same
grid over N processes (torchrun, gloo on a CPU, or one GPU each), side by
side in one run, and a check that both give the same cells and summary.

Every process gets one intra-op thread (``OMP_NUM_THREADS=1``,
``MKL_NUM_THREADS=1``) and, by default, no dataloader workers, so that N
processes on N cores are compared with one process on one core: the ratio
is what launching more processes buys, not what threads would. Both runs
read the data once before the clock starts (a warm page cache). Printed:
each run's wall time, and the seconds its cells took (``seconds`` in
``robustness.json``: the wall time less the start of the processes, the
model and the process group, which a longer grid amortises)::

    python demo/make_demo_data.py --layouts coco
    python tools/benchmarks/bench_dist.py \\
        configs/demo/faster-rcnn_r18-c16_fpn-c64_3e_demo-coco.py \\
        tests/data/faster-rcnn_r18-c16_fpn-c64_overfit-demo.pth

The default grid is the benchmark's: the clean set and the 15
corruptions at severities 1-5 (76 cells, COCO-C's); ``--corruptions`` and
``--severities`` take the tool's values.
"""
import argparse
import os
import os.path as osp
import shutil
import subprocess
import sys
import tempfile
import time

REPO = osp.dirname(osp.dirname(osp.dirname(osp.abspath(__file__))))
sys.path.insert(0, REPO)


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('config')
    parser.add_argument('checkpoint')
    parser.add_argument('--nproc', type=int, default=2,
                        help='processes of the distributed run (default 2)')
    parser.add_argument('--corruptions', nargs='+', default=['benchmark'])
    parser.add_argument('--severities', nargs='+',
                        default=['0', '1', '2', '3', '4', '5'])
    parser.add_argument('--workers', type=int, default=0,
                        help='dataloader workers per process (default 0)')
    parser.add_argument('--cells-per-pass', type=int, default=1)
    parser.add_argument('--work-dir', help='default: a temporary dir')
    return parser.parse_args()


def timed(cmd, env):
    print('$ ' + ' '.join(cmd), flush=True)
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=REPO, env=env, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, text=True)
    took = time.perf_counter() - start
    if proc.returncode != 0:
        sys.exit(f'failed ({proc.returncode}):\n{proc.stderr[-3000:]}')
    return took


def main():
    args = parse_args()
    from robustdet.apis import load_results
    from robustdet.apis.results import RESULTS_FILE
    work = args.work_dir or tempfile.mkdtemp(prefix='bench_dist_')
    env = dict(os.environ, OMP_NUM_THREADS='1', MKL_NUM_THREADS='1')
    tool_args = [
        args.config, args.checkpoint, '--corruptions', *args.corruptions,
        '--severities', *args.severities, '--cells-per-pass',
        str(args.cells_per_pass), '--cfg-options',
        f'test_dataloader.num_workers={args.workers}',
        f'test_dataloader.persistent_workers={args.workers > 0}'
    ]
    # Warm the page cache and the imports: one clean cell, not timed.
    timed([sys.executable, 'tools/test_robust.py', *tool_args[:2],
           '--corruptions', 'gaussian_noise', '--severities', '0',
           '--work-dir', osp.join(work, 'warm')], env)
    runs = {}
    for nproc in (1, args.nproc):
        out = osp.join(work, f'nproc{nproc}')
        shutil.rmtree(out, ignore_errors=True)
        if nproc == 1:
            cmd = [sys.executable, 'tools/test_robust.py']
            launcher = []
        else:
            cmd = [sys.executable, '-m', 'torch.distributed.run',
                   '--nproc_per_node', str(nproc), '--master-port',
                   str(29500 + os.getpid() % 1000), 'tools/test_robust.py']
            launcher = ['--launcher', 'pytorch']
        took = timed([*cmd, *tool_args, '--work-dir', out, *launcher], env)
        results = load_results(osp.join(out, RESULTS_FILE))
        runs[nproc] = (took, results)
    (one, first), (many, other) = runs[1], runs[args.nproc]
    same = all(first[k] == other[k] for k in ('cells', 'summary', 'clean'))
    cells = len(first['seconds'])
    print(f'\ncells: {cells}; threads per process: 1; dataloader workers '
          f'per process: {args.workers}; cells per pass: '
          f'{args.cells_per_pass}')
    # The cells' own seconds (results['seconds']): the wall time less
    # the start (imports, model, process group) and the end.
    grid = {n: sum(r['seconds'].values()) for n, (_, r) in runs.items()}
    print(f'{"processes":>10}  {"wall s":>8}  {"cells s":>8}  '
          f'{"s / cell":>8}')
    for nproc, (took, _) in sorted(runs.items()):
        print(f'{nproc:>10}  {took:8.1f}  {grid[nproc]:8.1f}  '
              f'{grid[nproc] / cells:8.2f}')
    print(f'speed-up of {args.nproc} processes over 1: {one / many:.2f}x '
          f'wall, {grid[1] / grid[args.nproc]:.2f}x on the cells')
    print('same cells and summary: ' + ('yes' if same else 'NO'))
    if not same:
        sys.exit(1)


if __name__ == '__main__':
    main()
