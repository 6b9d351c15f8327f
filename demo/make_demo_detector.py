# Copyright (c) robustdet contributors. All rights reserved.
"""Train the committed demo detector that ``make demo`` benchmarks.

Training gives other weights on other CPU generations (torch's kernels
round differently per instruction set), so ``make demo`` does not train:
it benchmarks this committed detector, whose figures are then the same on
every CPU. This script is how the file was made, run once:

1. generate the demo data if ``--data-dir`` does not hold it
   (``demo/make_demo_data.py``, seed 0);
2. train the demo recipe (``configs/demo/...-demo-coco.py``, 3 epochs)
   with ``tools/train.py`` into a scratch work dir;
3. keep the weights as float16, the training record and the training
   config; drop the optimizer state; write
   ``demo/checkpoints/faster-rcnn_r18-c16_fpn-c64_3e_demo-coco.pth``
   with the command, the CPU and the data's hash in its ``meta``;
4. print its sha256, to be written into ``demo/demo.py``
   (``DEMO_DETECTOR_SHA256``) with it.

Run from the repository root:
    python demo/make_demo_detector.py
"""
import argparse
import os
import os.path as osp
import platform
import subprocess
import sys
import tempfile

REPO = osp.dirname(osp.dirname(osp.abspath(__file__)))
CONFIG = 'configs/demo/faster-rcnn_r18-c16_fpn-c64_3e_demo-coco.py'
EPOCHS = 3
DETECTOR = osp.join('demo', 'checkpoints',
                    'faster-rcnn_r18-c16_fpn-c64_3e_demo-coco.pth')
# The meta keys of the trained checkpoint that travel with the weights:
# what it was trained on (the record test_robust.py reads) and how.
KEPT_META = ('robustdet_training_record', 'cfg', 'seed', 'experiment_name')


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--data-dir', default='data/demo')
    parser.add_argument('--out', default=DETECTOR)
    args = parser.parse_args()
    import torch

    from robustdet.utils.io import sha256_file
    from robustdet.utils.machine import cpu_model
    os.chdir(REPO)
    subprocess.run([
        sys.executable, 'demo/make_demo_data.py', '--out-dir', args.data_dir,
        '--seed', '0', '--layouts', 'coco'
    ], check=True)
    with tempfile.TemporaryDirectory() as work:
        command = ['python', 'tools/train.py', CONFIG, '--work-dir', work]
        subprocess.run([sys.executable] + command[1:], check=True)
        ckpt = torch.load(
            osp.join(work, f'epoch_{EPOCHS}.pth'), map_location='cpu',
            weights_only=False)
    state = {
        key: value.half() if value.is_floating_point() else value
        for key, value in ckpt['state_dict'].items()
    }
    meta = {k: ckpt['meta'][k] for k in KEPT_META if k in ckpt['meta']}
    meta['robustdet_demo_detector'] = dict(
        command=' '.join(command[:3]), epochs=EPOCHS,
        weights='float16, state dict only',
        cpu=cpu_model(),
        cpu_capability=torch.backends.cpu.get_cpu_capability(),
        torch=str(torch.__version__), python=platform.python_version())
    os.makedirs(osp.dirname(args.out), exist_ok=True)
    torch.save(dict(meta=meta, state_dict=state), args.out)
    print(f'{args.out} sha256: {sha256_file(args.out)}')


if __name__ == '__main__':
    main()
