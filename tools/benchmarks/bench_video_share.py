# Copyright (c) robustdet contributors. All rights reserved.
"""Where the time of a video-corruption cell goes: clip corruption, the
rest of data loading, and the detector, side by side for every clip
corruption in one run, one process (no dataloader workers, so the parts
add up to the wall time)::

    python tools/benchmarks/bench_video_share.py \\
        [--config configs/demo/faster-rcnn_r18-c16_fpn-c64_3e_demo-vid.py] \\
        [--checkpoint work_dirs/demo/train/epoch_3.pth] [--severity 3]

For each corruption the test set (the demo: 124 frames of 4 videos, 320x240)
goes through :class:`~robustdet.datasets.VideoCorruptedDataset` and the
model as ``tools/test_robust.py`` runs it (FastRoIAlign swapped in). Printed
per corruption: clips corrupted (once per clip), seconds in the clip
corruption (decode the clip's frames, corrupt, store), in the rest of the
data pipeline, in the model, and the corruption's share of the wall time.
The clean row is the plain dataset.
"""
import argparse
import copy
import os.path as osp
import sys
import time

REPO = osp.dirname(osp.dirname(osp.dirname(osp.abspath(__file__))))
sys.path.insert(0, REPO)

DEMO_CONFIG = 'configs/demo/faster-rcnn_r18-c16_fpn-c64_3e_demo-vid.py'


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--config', default=DEMO_CONFIG)
    parser.add_argument(
        '--checkpoint', default='work_dirs/demo/train/epoch_3.pth',
        help='detector weights (random weights when the file is missing: '
        'the model time hardly depends on them)')
    parser.add_argument('--corruptions', nargs='+', default=['video'])
    parser.add_argument('--severity', type=int, default=3)
    parser.add_argument('--clip-len', type=int, default=32)
    parser.add_argument('--frames', type=int, default=None,
                        help='first N frames of the test set (default all)')
    return parser.parse_args()


def build_model(cfg, checkpoint):
    import torch
    from mmdet.registry import MODELS

    from robustdet.models.roi_align import use_fast_roi_align
    from robustdet.utils.checkpoint import load_checkpoint_file
    model = MODELS.build(cfg.model)
    if osp.exists(checkpoint):
        model.load_state_dict(load_checkpoint_file(checkpoint)['state_dict'])
        print(f'weights: {checkpoint}')
    else:
        print(f'weights: random ({checkpoint} not found)')
    use_fast_roi_align(model)
    model.eval()
    torch.set_grad_enabled(False)
    return model


def run_cell(model, dataset, batch_size, num):
    """Seconds in data (pipeline + collate) and in the model."""
    from mmengine.dataset import pseudo_collate
    data = model_time = 0.0
    for b in range(0, num, batch_size):
        tick = time.perf_counter()
        batch = pseudo_collate(
            [dataset[i] for i in range(b, min(b + batch_size, num))])
        tock = time.perf_counter()
        model.test_step(batch)
        data += tock - tick
        model_time += time.perf_counter() - tock
    return data, model_time


def main():
    args = parse_args()
    from mmdet.registry import DATASETS
    from mmengine.config import Config

    from robustdet.apis.robustness import resolve_grid_corruptions
    from robustdet.utils import register_all_modules
    from robustdet.video.table import is_video_corruption
    register_all_modules()
    cfg = Config.fromfile(args.config)
    model = build_model(cfg, args.checkpoint)
    dl = cfg.test_dataloader
    names = resolve_grid_corruptions(args.corruptions)
    image = [n for n in names if not is_video_corruption(n)]
    if image:
        raise SystemExit(f'{", ".join(image)}: not clip corruptions; this '
                         'benchmark measures video cells')
    clean = DATASETS.build(copy.deepcopy(dl.dataset))
    num = min(args.frames or len(clean), len(clean))
    print(f'{args.config}: {num} frames, batch {dl.batch_size}, severity '
          f'{args.severity}, clip_len {args.clip_len}, one process')
    print('| corruption | clips | corruption s | other data s | model s | '
          'corruption share |')
    print('|---|---|---|---|---|---|')
    data, model_s = run_cell(model, clean, dl.batch_size, num)
    print(f'| clean | – | – | {data:.1f} | {model_s:.1f} | – |', flush=True)
    for name in names:
        from robustdet.datasets import VideoCorruptedDataset
        dataset = VideoCorruptedDataset(
            DATASETS.build(copy.deepcopy(dl.dataset)), name, args.severity,
            clip_len=args.clip_len)
        data, model_s = run_cell(model, dataset, dl.batch_size, num)
        corrupt = dataset.store.compute_seconds
        wall = data + model_s
        print(f'| {name} | {dataset.store.computed} | {corrupt:.1f} | '
              f'{data - corrupt:.1f} | {model_s:.1f} | '
              f'{100 * corrupt / wall:.0f} % |', flush=True)
        dataset.store.close()


if __name__ == '__main__':
    main()
