# Copyright (c) robustdet contributors. All rights reserved.
"""Write the BDD100k weather / time-of-day image lists of Michaelis et al.
(2019), section 3.5::

    python tools/make_bdd100k_splits.py \\
        data/bdd100k/labels/det_20/det_val.json \\
        --train-labels data/bdd100k/labels/det_20/det_train.json \\
        --out-dir data/bdd100k/splits --coco

Output: ``val_{clear,rainy,snowy}.txt`` (equal size, default the smallest
of the three), ``val_{daytime,night}.txt`` (equal size),
``train_{clear,daytime}.txt`` with ``--train-labels``,
``val_*_coco.json`` with ``--coco`` (for mmdet's ``CocoMetric``) and
``splits.json``. Use a list as ``file_list`` of ``BDD100kDataset``.
"""
from robustdet.utils.cli import ArgumentParser, check_file, cli_entry


def parse_args(argv=None):
    parser = ArgumentParser(
        description='Write the BDD100k weather and time-of-day splits')
    parser.add_argument('val_labels', help='det_val.json')
    parser.add_argument('--out-dir', required=True, help='output directory')
    parser.add_argument(
        '--train-labels', help='det_train.json, for train_clear and '
        'train_daytime')
    parser.add_argument('--seed', type=int, default=0)
    parser.add_argument(
        '--weather-size',
        type=int,
        help='images per weather list (default: as many as the rarest of '
        'clear, rainy, snowy)')
    parser.add_argument(
        '--time-size',
        type=int,
        help='images per time-of-day list (default: as many as the rarer '
        'of daytime, night)')
    parser.add_argument(
        '--coco',
        action='store_true',
        help='also write val_<value>_coco.json per val list, the ann_file '
        "of mmdet's CocoMetric")
    return parser.parse_args(argv)


@cli_entry
def main():
    args = parse_args()
    check_file(args.val_labels, 'val labels')
    if args.train_labels is not None:
        check_file(args.train_labels, 'train labels')
    from robustdet.apis.bdd100k_splits import write_bdd100k_splits
    summary = write_bdd100k_splits(
        args.out_dir,
        args.val_labels,
        train_labels=args.train_labels,
        seed=args.seed,
        weather_size=args.weather_size,
        time_size=args.time_size,
        coco=args.coco)
    for name, count in summary['lists'].items():
        print(f'{name}: {count} images')
    print(f'wrote {len(summary["files"]) + 1} files under {args.out_dir}')


if __name__ == '__main__':
    main()
