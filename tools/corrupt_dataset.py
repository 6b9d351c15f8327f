# Copyright (c) robustdet contributors. All rights reserved.
"""Write corrupted (-C) copies of an image tree to disk, for use outside
mmdet::

    python tools/corrupt_dataset.py data/coco/val2017 data/coco-c/val2017 \\
        --corruptions benchmark --identity-root data/coco

Output: ``OUT_DIR/<corruption>/<severity>/<same relative path>``. With
``--identity-root`` set to the dataset's ``data_root``, the pixels are the
ones ``tools/test_robust.py`` evaluates. Rerunning skips finished files;
the source tree is never written to.
"""
from robustdet.corruptions import (BACKENDS, CHANNEL_ORDERS, DEFAULT_BACKEND,
                                   SELECTIONS, SEVERITIES, resolve_corruptions)
from robustdet.corruptions.region import REGIONS
from robustdet.utils.cli import (ArgumentParser, add_depth_args, cli_entry,
                                 depth_from_args)


def parse_args(argv=None):
    parser = ArgumentParser(description='Write -C copies of an image tree')
    parser.add_argument('src_dir', help='source image directory')
    parser.add_argument('out_dir', help='output root (not inside src_dir)')
    parser.add_argument(
        '--corruptions',
        nargs='+',
        default=['benchmark'],
        metavar='NAME',
        help='corruptions: ' + ', '.join(SELECTIONS) + ', or names')
    parser.add_argument(
        '--severities', type=int, nargs='+', default=list(SEVERITIES))
    parser.add_argument('--seed', type=int, default=0)
    parser.add_argument(
        '--identity-root',
        help="the dataset's data_root, to reproduce test_robust.py's "
        'per-image seeds (default: src_dir)')
    parser.add_argument(
        '--backend',
        choices=list(BACKENDS),
        default=DEFAULT_BACKEND,
        help="corruption implementation (reference: imagecorruptions' own "
        'functions, the definitions behind the published numbers)')
    parser.add_argument(
        '--channel-order', choices=list(CHANNEL_ORDERS), default='rgb')
    parser.add_argument(
        '--lossless',
        action='store_true',
        help='write PNG (file names get .png) instead of quality-100 JPEG')
    parser.add_argument(
        '--workers', type=int, default=0, help='processes (0 = in-process)')
    parser.add_argument('--skip-bad-images', action='store_true')
    parser.add_argument(
        '--region',
        choices=REGIONS,
        default='all',
        help='where the corruption applies: all (default), objects or '
        'background (inside / outside the ground truth of --ann-file, '
        'with a soft edge); written under OUT_DIR/region-REGION/')
    parser.add_argument(
        '--ann-file',
        help='COCO instances JSON whose image file names are the paths '
        'relative to src_dir (for --region)')
    add_depth_args(parser)
    return parser.parse_args(argv)


@cli_entry
def main():
    args = parse_args()
    from robustdet.apis.corrupt_dataset import corrupt_tree
    out = corrupt_tree(
        args.src_dir,
        args.out_dir,
        resolve_corruptions(args.corruptions),
        args.severities,
        seed=args.seed,
        identity_root=args.identity_root,
        backend=args.backend,
        channel_order=args.channel_order,
        lossless=args.lossless,
        workers=args.workers,
        skip_bad_images=args.skip_bad_images,
        region=args.region,
        ann_file=args.ann_file,
        depth=depth_from_args(args))
    print(f'wrote {out["written"]} files under {args.out_dir}')
    for path, reason in out['skipped']:
        print(f'skipped {path}: {reason}')


if __name__ == '__main__':
    main()
