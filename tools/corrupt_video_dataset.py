# Copyright (c) robustdet contributors. All rights reserved.
"""Write a video test set under clip corruptions to disk, to look at the
frames ``tools/test_robust.py --corruptions video`` scores or to use them
outside mmdet::

    python tools/corrupt_video_dataset.py CONFIG OUT_DIR \\
        --corruptions video-codec translation --severities 3 5

Output: ``OUT_DIR/<corruption>/<severity>/<frame path under data_root>``
as PNG, and ``annotations.json`` there (COCO, the delivered ground truth:
moved by camera motion). With the same ``--seed`` and clip settings as
``test_robust.py``, the pixels are the ones it evaluates.
"""
from robustdet.corruptions import SEVERITIES, check_severity
from robustdet.utils.cli import (ArgumentParser, add_video_clip_args,
                                 check_file, cli_entry, load_config)
from robustdet.utils.errors import RobustDetError


def parse_args(argv=None):
    parser = ArgumentParser(
        description='Write a video test set under clip corruptions')
    parser.add_argument('config', help='config whose test set is the videos')
    parser.add_argument('out_dir', help='output root')
    parser.add_argument(
        '--corruptions',
        nargs='+',
        default=['video'],
        metavar='NAME',
        help='video, video-FAMILY or clip corruption names (default: video)')
    parser.add_argument(
        '--severities', type=int, nargs='+', default=list(SEVERITIES))
    parser.add_argument('--seed', type=int, default=0)
    add_video_clip_args(parser)
    parser.add_argument(
        '--channel-order', choices=('rgb', 'bgr'), default='rgb')
    return parser.parse_args(argv)


@cli_entry
def main():
    args = parse_args()
    from robustdet.apis.corrupt_video import write_corrupted_videos
    from robustdet.apis.job_configs import unwrap_corrupted
    from robustdet.apis.robustness import resolve_grid_corruptions
    from robustdet.datasets.video_clips import check_clip_settings
    from robustdet.utils import register_all_modules
    from robustdet.video.table import is_video_corruption
    names = resolve_grid_corruptions(args.corruptions)
    image = [n for n in names if not is_video_corruption(n)]
    if image:
        raise RobustDetError(
            f'{", ".join(image)}: image corruptions are written by '
            'tools/corrupt_dataset.py')
    severities = sorted({check_severity(s) for s in args.severities})
    check_clip_settings(args.clip_len, args.clip_mode, 'auto',
                        args.short_clips)
    check_file(args.config, 'config')
    register_all_modules()
    cfg = unwrap_corrupted(
        load_config(args.config, None, require=('test_dataloader', )))
    written = write_corrupted_videos(
        cfg.test_dataloader.dataset, args.out_dir,
        [(n, s) for n in names for s in severities],
        dict(seed=args.seed, clip_len=args.clip_len,
             clip_mode=args.clip_mode, short_clips=args.short_clips,
             channel_order=args.channel_order))
    for cell, count in written.items():
        print(f'{cell}: {count} frames')
    print(f'written under {args.out_dir}')


if __name__ == '__main__':
    main()
