# Copyright (c) robustdet contributors. All rights reserved.
"""``make demo``: the whole robustdet loop on generated data, on a CPU.

1. generate the demo dataset (COCO, VOC and Cityscapes layouts);
2. train the tiny demo Faster R-CNN once (cached under the work dir);
3. benchmark it under all 19 corruptions x 5 severities with
   ``tools/test_robust.py`` (resumable: a rerun skips finished cells);
4. score it with pm-k on the synthetic video neighbour sets
   (``tools/test_pmk.py``).

Each step prints the command a user would run for it, and is skipped when
its output already exists.
"""
import argparse
import os.path as osp
import shlex
import subprocess
import sys
import time

from robustdet.utils.cli import cli_entry
from robustdet.utils.errors import RobustDetError

REPO = osp.dirname(osp.dirname(osp.abspath(__file__)))
CONFIG = 'configs/demo/faster-rcnn_r18-c16_fpn-c64_3e_demo-coco.py'
PMK_CONFIG = 'configs/demo/faster-rcnn_r18-c16_fpn-c64_3e_demo-vid-pmk.py'


def parse_args(argv=None):
    parser = argparse.ArgumentParser(
        description='Run the robustdet demo end to end')
    parser.add_argument('--data-dir', default='data/demo')
    parser.add_argument('--work-dir', default='work_dirs/demo')
    parser.add_argument('--seed', type=int, default=0)
    return parser.parse_args(argv)


def run(cmd):
    print('$ ' + ' '.join(shlex.quote(c) for c in cmd), flush=True)
    start = time.perf_counter()
    proc = subprocess.run([sys.executable] + cmd[1:], cwd=REPO)
    if proc.returncode != 0:
        raise RobustDetError(
            f'demo step failed (exit {proc.returncode}): {" ".join(cmd)}')
    return time.perf_counter() - start


@cli_entry
def main():
    args = parse_args()
    if osp.abspath(args.data_dir) != osp.join(REPO, 'data', 'demo'):
        raise RobustDetError(
            '--data-dir must be data/demo: the demo configs read from there')
    run(['python', 'tools/make_demo_data.py', '--out-dir', args.data_dir,
         '--seed', str(args.seed), '--video'])

    train_dir = osp.join(args.work_dir, 'train')
    ckpt = osp.join(train_dir, 'epoch_3.pth')
    if osp.exists(ckpt):
        print(f'[demo] using the trained demo detector {ckpt}')
    else:
        took = run(['python', 'tools/train.py', CONFIG, '--work-dir',
                    train_dir])
        print(f'[demo] trained the demo detector in {took / 60:.1f} min')
    robust_dir = osp.join(args.work_dir, 'robustness')
    took = run(['python', 'tools/test_robust.py', CONFIG, ckpt,
                '--corruptions', 'all', '--work-dir', robust_dir, '--seed',
                str(args.seed)])
    report = osp.join(REPO, robust_dir, 'robustness.md')
    with open(report, encoding='utf-8') as f:
        print('\n' + f.read())
    print(f'[demo] robustness benchmark took {took / 60:.1f} min; report: '
          f'{report}')
    took = run(['python', 'tools/test_pmk.py', PMK_CONFIG, ckpt,
                '--work-dir', osp.join(args.work_dir, 'pmk')])
    print(f'[demo] pm-k on the synthetic video neighbour sets took '
          f'{took / 60:.1f} min')


if __name__ == '__main__':
    main()
