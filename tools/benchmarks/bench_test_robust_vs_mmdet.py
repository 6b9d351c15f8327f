# Copyright (c) robustdet contributors. All rights reserved.
"""Wall time of robustdet's ``tools/test_robust.py`` against mmdet's own
``tools/analysis_tools/test_robustness.py`` (shipped in the mmdet wheel),
side by side in one run, on the same config, checkpoint, data, corruptions
and dataloader workers.

Both corrupt mmdet's BGR arrays here (robustdet with ``--channel-order
bgr`` and, by default, ``--backend reference``, mmdet's own corruption
code) and evaluate one cell per data pass (``--cells-per-pass 1``) so that
they do the same work; the deterministic corruptions then give identical
numbers, which this script also checks. ``--cells-per-pass K`` and
``--backend fast`` measure robustdet's own speed-ups (same numbers for any
K; within a grey level of the reference for ``fast``).

mmdet's script needs, on this stack: ``PYTHONPATH=<mmdet>/.mim`` (it
imports ``tools.analysis_tools.robustness_eval``),
``TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD=1`` for its checkpoint loading (set for
that subprocess only, on our own checkpoint), and a backbone ``init_cfg``
that is not None (it sets ``init_cfg.type``; passed with
``--cfg-options model.backbone.init_cfg._delete_=True ...``)::

    python tools/benchmarks/bench_test_robust_vs_mmdet.py \\
        configs/demo/faster-rcnn_r18-c16_fpn-c64_3e_demo-coco.py \\
        work_dirs/demo/train/epoch_3.pth --corruptions benchmark
"""
import argparse
import os
import os.path as osp
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
    parser.add_argument('--corruptions', nargs='+', default=['benchmark'])
    parser.add_argument(
        '--severities', type=int, nargs='+', default=[0, 1, 2, 3, 4, 5])
    parser.add_argument('--work-dir', help='default: a temporary dir')
    parser.add_argument(
        '--cells-per-pass',
        type=int,
        default=1,
        help="robustdet's --cells-per-pass (default 1: one cell per data "
        "pass, as mmdet's script)")
    parser.add_argument(
        '--backend',
        default='reference',
        help="robustdet's --backend (default reference: mmdet's own "
        'corruption code)')
    return parser.parse_args()


def timed(cmd, env=None, allow_fail=False):
    print('$ ' + ' '.join(cmd), flush=True)
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=REPO, env=env, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, text=True)
    took = time.perf_counter() - start
    if proc.returncode != 0 and not allow_fail:
        sys.exit(f'failed ({proc.returncode}):\n{proc.stderr[-3000:]}')
    return took, proc


def main():
    args = parse_args()
    import mmdet

    from robustdet.apis import load_results
    from robustdet.corruptions import CORRUPTIONS_BY_NAME, resolve_corruptions
    from robustdet.utils.safe_pickle import load_pickle
    names = resolve_corruptions(args.corruptions)
    work = args.work_dir or tempfile.mkdtemp(prefix='bench_robust_')
    mim = osp.join(osp.dirname(mmdet.__file__), '.mim')
    env = dict(
        os.environ, PYTHONPATH=mim, TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD='1')
    sev = [str(s) for s in args.severities]
    mmdet_out = osp.join(work, 'mmdet', 'results.pkl')
    t_mmdet, proc = timed([
        sys.executable,
        osp.join(mim, 'tools', 'analysis_tools', 'test_robustness.py'),
        args.config, args.checkpoint, '--out', mmdet_out, '--work-dir',
        osp.join(work, 'mmdet'), '--corruptions', *names, '--severities',
        *sev, '--cfg-options', 'model.backbone.init_cfg._delete_=True',
        'model.backbone.init_cfg.type=None'
    ], env, allow_fail=True)
    # mmdet 3.3's final aggregation (robustness_eval) crashes with
    # KeyError: 'bbox_mAP' when a cell had no detection (CocoMetric
    # returns {} then). The per-cell results are saved before that; the
    # run counts if they are all there.
    pkl = osp.splitext(mmdet_out)[0] + '_results.pkl'
    theirs = {}
    if osp.exists(pkl):
        theirs = load_pickle(pkl)
    done = sum(
        1 for n in names for s in args.severities
        if s > 0 and s in theirs.get(n, {}))
    wanted = len(names) * len([s for s in args.severities if s > 0])
    if done < wanted:
        sys.exit(f'mmdet test_robustness.py failed after {done}/{wanted} '
                 f'cells:\n{proc.stderr[-3000:]}')
    if proc.returncode != 0:
        last = proc.stderr.strip().splitlines()[-1]
        print(f'note: mmdet test_robustness.py evaluated all cells, then '
              f'exited {proc.returncode} in its final aggregation: {last}')
    ours_dir = osp.join(work, 'robustdet')
    t_ours, _ = timed([
        sys.executable, 'tools/test_robust.py', args.config, args.checkpoint,
        '--work-dir', ours_dir, '--corruptions', *names, '--severities',
        *sev, '--channel-order', 'bgr', '--backend', args.backend,
        '--cells-per-pass', str(args.cells_per_pass), '--overwrite'
    ])
    cells = len(names) * len([s for s in args.severities if s > 0]) + (
        0 in args.severities)
    print(f'\ncells: {cells} ({len(names)} corruptions x severities '
          f'{" ".join(sev)}); robustdet: --backend {args.backend} '
          f'--cells-per-pass {args.cells_per_pass}')
    print(f'{"tool":<40}{"wall [s]":>10}')
    print(f'{"mmdet test_robustness.py":<40}{t_mmdet:>10.1f}')
    print(f'{"robustdet test_robust.py":<40}{t_ours:>10.1f}')
    print(f'speed-up (mmdet / robustdet): {t_mmdet / t_ours:.2f}x')

    # Same numbers on the deterministic corruptions?
    ours = load_results(osp.join(ours_dir, 'robustness.json'))
    same = differ = 0
    for name in names:
        if CORRUPTIONS_BY_NAME[name].stochastic:
            continue
        for s in args.severities:
            if s == 0:
                continue
            a = theirs[name][s]
            b = ours['cells'][name][str(s)]
            keys = [k for k in b if k in a]
            if all(abs(a[k] - b[k]) < 1e-9 for k in keys):
                same += 1
            else:
                differ += 1
                print(f'differs: {name}/{s}: mmdet {a} robustdet {b}')
    print(f'deterministic cells with identical metrics: {same}/'
          f'{same + differ}')


if __name__ == '__main__':
    main()
