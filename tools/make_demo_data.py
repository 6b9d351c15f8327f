# Copyright (c) robustdet contributors. All rights reserved.
"""Generate the seeded synthetic demo detection dataset.

Example:
    python tools/make_demo_data.py --out-dir data/demo --seed 0 \
        --num-train 400 --num-val 50 --size 320 240 \
        --layouts coco voc cityscapes
"""
import argparse
import sys

from robustdet.demo import LAYOUTS, generate_demo_data


def parse_args() -> argparse.Namespace:
    """Parse command line arguments.

    Returns:
        argparse.Namespace: The parsed arguments.
    """
    parser = argparse.ArgumentParser(
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
    return parser.parse_args()


def main() -> int:
    """Generate the dataset and print where it was written.

    Returns:
        int: Exit code.
    """
    args = parse_args()
    try:
        paths = generate_demo_data(
            args.out_dir,
            seed=args.seed,
            num_train=args.num_train,
            num_val=args.num_val,
            size=tuple(args.size),
            layouts=args.layouts,
            overwrite=args.overwrite,
            verbose=True)
    except ValueError as e:
        print(f'error: {e}', file=sys.stderr)
        return 2
    width = max(len(k) for k in paths)
    for key, path in paths.items():
        print(f'{key:<{width}}  {path}')
    return 0


if __name__ == '__main__':
    sys.exit(main())
