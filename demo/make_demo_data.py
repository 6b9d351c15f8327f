# Copyright (c) robustdet contributors. All rights reserved.
"""Generate the seeded synthetic demo detection dataset.

Example:
    python demo/make_demo_data.py --out-dir data/demo --seed 0 \
        --num-train 400 --num-val 50 --size 320 240 \
        --layouts coco voc cityscapes
"""
import argparse
import os.path as osp

from demo_data import LAYOUTS, generate_demo_data
from robustdet.utils.cli import ArgumentParser, cli_entry


def parse_args() -> argparse.Namespace:
    """Parse command line arguments.

    Returns:
        argparse.Namespace: The parsed arguments.
    """
    parser = ArgumentParser(
        description='Generate the seeded synthetic demo detection dataset '
        '(discs, squares, triangles) in COCO, PASCAL VOC and Cityscapes '
        'layouts. A second run with the same arguments does nothing.')
    parser.add_argument(
        '--out-dir', default='data/demo', help='output directory')
    parser.add_argument('--seed', type=int, default=0, help='dataset seed')
    parser.add_argument(
        '--num-train', type=int, default=400, help='number of train images')
    parser.add_argument(
        '--num-val', type=int, default=50, help='number of val images')
    parser.add_argument(
        '--size',
        type=int,
        nargs=2,
        default=[320, 240],
        metavar=('WIDTH', 'HEIGHT'),
        help='image size')
    parser.add_argument(
        '--layouts',
        nargs='+',
        choices=LAYOUTS,
        default=list(LAYOUTS),
        help='layouts to write')
    parser.add_argument(
        '--overwrite',
        action='store_true',
        help='regenerate a previous demo output even if it is complete or '
        'was made with other parameters')
    parser.add_argument(
        '--video',
        action='store_true',
        help='also write the synthetic video neighbour sets (pm-k demo) '
        'to OUT_DIR/vid')
    parser.add_argument(
        '--foggy',
        action='store_true',
        help='also write a synthetic Foggy Cityscapes copy of the '
        "Cityscapes layout's val images (leftImg8bit_foggy, three betas)")
    parser.add_argument(
        '--bdd100k',
        action='store_true',
        help='also write a synthetic BDD100k tree (OUT_DIR/bdd100k: 400 '
        'train and 200 val frames of 320x180) and its split lists')
    parser.add_argument(
        '--styles',
        type=int,
        default=0,
        metavar='N',
        help='also write N procedural style images (stylization demo) to '
        'OUT_DIR/styles')
    return parser.parse_args()


def _write_bdd100k(root: str, seed: int) -> dict:
    """The synthetic BDD100k tree and its splits (kept if present)."""
    from demo_data.bdd100k import generate_bdd100k_demo
    from robustdet.apis.bdd100k_splits import write_bdd100k_splits
    splits = osp.join(root, 'splits')
    labels = {
        s: osp.join(root, 'labels', 'det_20', f'det_{s}.json')
        for s in ('train', 'val')
    }
    if not osp.exists(osp.join(splits, 'splits.json')):
        generate_bdd100k_demo(
            root, seed=seed, num_val=200, num_train=400, size=(320, 180))
        write_bdd100k_splits(
            splits, labels['val'], labels['train'], seed=seed)
    return dict(bdd100k=root, bdd100k_splits=splits)


@cli_entry
def main() -> None:
    """Generate the dataset and print where it was written."""
    args = parse_args()
    paths = generate_demo_data(
        args.out_dir,
        seed=args.seed,
        num_train=args.num_train,
        num_val=args.num_val,
        size=tuple(args.size),
        layouts=args.layouts,
        overwrite=args.overwrite,
        verbose=True)
    if args.video:
        from demo_data.video import generate_video_demo
        video = generate_video_demo(
            osp.join(args.out_dir, 'vid'),
            seed=args.seed,
            size=tuple(args.size))
        paths.update({f'video_{k}': v for k, v in video.items()})
    if args.foggy:
        from demo_data.foggy import write_foggy_cityscapes
        paths['foggy'] = write_foggy_cityscapes(
            osp.join(args.out_dir, 'cityscapes'), seed=args.seed)['foggy_root']
    if args.bdd100k:
        paths.update(_write_bdd100k(osp.join(args.out_dir, 'bdd100k'),
                                    args.seed))
    if args.styles:
        from demo_data.styles import write_style_images
        styles = osp.join(args.out_dir, 'styles')
        write_style_images(styles, num=args.styles, seed=args.seed)
        paths['styles'] = styles
    width = max(len(k) for k in paths)
    for key, path in paths.items():
        print(f'{key:<{width}}  {path}')


if __name__ == '__main__':
    main()
