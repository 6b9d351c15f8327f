# Copyright (c) robustdet contributors. All rights reserved.
"""Training with RandomCorrupt against without, side by side in one run.

The demo detector trains on the demo data's COCO train set (its first
``--images`` images) with ``--workers`` persistent dataloader workers,
with its config (``configs/demo/faster-rcnn_r18-c16_fpn-c64_3e_demo-coco
.py``) and with the RandomCorrupt one (``...-coco-randcorrupt.py``:
``RandomCorrupt(prob=0.5)`` on the 4 hold-out corruptions, severities 1-5).
Each run trains ``--epochs`` epochs and the last one is timed (workers
started, kernels warm); the two variants alternate ``--repeats`` times and
the best epoch of each is kept. Target: a ratio of at most 1.3::

    python tools/benchmarks/bench_random_corrupt.py [--data-dir data/demo] \\
        [--images 160] [--workers 2] [--epochs 2] [--repeats 2]
"""
import argparse
import copy
import os.path as osp
import sys
import tempfile
import time

REPO = osp.dirname(osp.dirname(osp.dirname(osp.abspath(__file__))))
sys.path.insert(0, REPO)
DEMO = osp.join(REPO, 'configs', 'demo',
                'faster-rcnn_r18-c16_fpn-c64_3e_demo-coco.py')
RANDCORRUPT = DEMO[:-3] + '-randcorrupt.py'
TARGET = 1.3


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--data-dir', default='data/demo',
                        help='the demo data (make_demo_data.py --out-dir)')
    parser.add_argument('--images', type=int, default=160,
                        help='train images used (the first N)')
    parser.add_argument('--workers', type=int, default=2,
                        help='dataloader workers (persistent)')
    parser.add_argument('--epochs', type=int, default=2,
                        help='epochs per run; the last one is timed')
    parser.add_argument('--repeats', type=int, default=2,
                        help='runs of each variant, alternating')
    parser.add_argument('--batch-size', type=int, default=8)
    parser.add_argument('--threads', type=int, default=0,
                        help='torch CPU threads (0: torch default)')
    return parser.parse_args()


def _reroot(node, data_dir):
    """``node`` with every 'data/demo/...' path under ``data_dir``."""
    if isinstance(node, dict):
        return {k: _reroot(v, data_dir) for k, v in node.items()}
    if isinstance(node, (list, tuple)):
        return type(node)(_reroot(v, data_dir) for v in node)
    if isinstance(node, str) and node.startswith('data/demo/'):
        return osp.join(data_dir, node[len('data/demo/'):])
    return node


def make_config(path, args, work_dir):
    """A demo config for a timed run: ``args``' data, images, workers and
    epochs; no validation, checkpoints or logging."""
    from mmengine.config import Config
    cfg = Config(_reroot(Config.fromfile(path).to_dict(), args.data_dir))
    loader = cfg.train_dataloader
    loader.batch_size = args.batch_size
    loader.num_workers = args.workers
    loader.persistent_workers = args.workers > 0
    # The RandomCorrupt config wraps the training set in an
    # EpochPositionDataset; the plain one does not.
    dataset = loader.dataset
    if dataset.type == 'EpochPositionDataset':
        dataset = dataset.dataset
    dataset.indices = args.images
    pack = dataset.pipeline[-1]
    pack['meta_keys'] = ('img_id', 'img_path', 'ori_shape', 'img_shape',
                         'scale_factor', 'flip', 'flip_direction',
                         'corruption')
    cfg.train_cfg.max_epochs = args.epochs
    cfg.train_cfg.val_interval = args.epochs + 1
    cfg.val_dataloader = cfg.val_cfg = cfg.val_evaluator = None
    cfg.default_hooks.checkpoint = None
    cfg.default_hooks.logger.interval = 10**6
    cfg.log_level = 'WARNING'
    cfg.work_dir = work_dir
    return cfg


def timed_run(cfg):
    """(seconds of the last epoch, images in it, images corrupted)."""
    from mmengine.hooks import Hook
    from mmengine.runner import Runner

    class EpochTimer(Hook):
        priority = 'LOWEST'

        def before_train_epoch(self, runner):
            self.images = self.corrupted = 0
            self.start = time.perf_counter()

        def after_train_iter(self, runner, batch_idx, data_batch=None,
                             outputs=None):
            for sample in data_batch['data_samples']:
                self.images += 1
                self.corrupted += sample.metainfo.get('corruption') is not None

        def after_train_epoch(self, runner):
            self.seconds = time.perf_counter() - self.start

    runner = Runner.from_cfg(cfg)
    timer = EpochTimer()
    runner.register_hook(timer)
    runner.train()
    # Shut the persistent workers down now (torch's garbage-collected
    # iterator waits 5 s for each).
    runner.train_dataloader._iterator = None
    return timer.seconds, timer.images, timer.corrupted


def main():
    args = parse_args()
    import torch

    from robustdet.utils import register_all_modules
    if args.threads:
        torch.set_num_threads(args.threads)
    register_all_modules()
    print(f'torch {torch.__version__}, {torch.get_num_threads()} CPU '
          f'threads, {args.workers} persistent dataloader workers, '
          f'{args.images} images, batch {args.batch_size}, last of '
          f'{args.epochs} epochs timed, best of {args.repeats}')
    variants = [('without RandomCorrupt', DEMO),
                ('RandomCorrupt(prob=0.5)', RANDCORRUPT)]
    best = {}
    with tempfile.TemporaryDirectory() as tmp:
        for repeat in range(args.repeats):
            for name, path in variants:
                cfg = make_config(path, args, osp.join(tmp, f'{repeat}'))
                seconds, images, corrupted = timed_run(copy.deepcopy(cfg))
                print(f'  {name}: {seconds:.2f} s', flush=True)
                if name not in best or seconds < best[name][0]:
                    best[name] = (seconds, images, corrupted)
    print('| variant | epoch (s) | images/s | images corrupted |')
    print('|---|---|---|---|')
    for name, _ in variants:
        seconds, images, corrupted = best[name]
        print(f'| {name} | {seconds:.2f} | {images / seconds:.1f} | '
              f'{corrupted}/{images} |')
    ratio = best[variants[1][0]][0] / best[variants[0][0]][0]
    verdict = 'within' if ratio <= TARGET else 'OVER'
    print(f'ratio with/without RandomCorrupt: {ratio:.2f} ({verdict} the '
          f'target of {TARGET})')


if __name__ == '__main__':
    main()
