# Copyright (c) robustdet contributors. All rights reserved.
"""One labelled grid of an image under every selected corruption and
severity::

    python tools/corruption_gallery.py demo.jpg --corruptions all cbar \\
        --severities 1 3 5 --out gallery.png

Rows are corruptions (name and family), columns the clean image and the
severities. The input is an image file or an mmdet config (the image
``--index`` of its test dataset, loaded as the dataset loads it). The
pixels are those ``tools/test_robust.py`` evaluates with the same
``--seed``, ``--backend`` and ``--channel-order``: the seed of each image
derives from its path relative to the dataset's ``data_root``
(``--identity-root`` for an image file; default its folder, i.e. its file
name). fog_3d, near_focus and far_focus read depth as test_robust.py does
(``--depth cityscapes`` or ``--depth-folder``).

``--video`` shows the clip corruptions of ``robustdet.video`` on a clip of
a folder of frames or of a video config's test dataset (the clip
test_robust.py cuts for item ``--index``, ``--clip-len`` frames): an
animated GIF (``--out x.gif``) or, as PNG or JPEG, strips of
``--strip-frames`` frames per cell.
"""
from robustdet.corruptions import (BACKENDS, CHANNEL_ORDERS, CORRUPTION_NAMES,
                                   DEFAULT_BACKEND, SELECTIONS, SEVERITIES,
                                   resolve_corruptions)
from robustdet.utils.cli import (ArgumentParser, add_depth_args,
                                 add_video_clip_args, check_file, cli_entry,
                                 depth_from_args)
from robustdet.utils.errors import RobustDetError
from robustdet.video.table import resolve_clip_corruptions


def parse_args(argv=None):
    from mmengine.config import DictAction

    from robustdet.video import VIDEO_SELECTIONS
    from robustdet.visualization.gallery import (DEFAULT_STRIP_FRAMES,
                                                 DEFAULT_THUMB_WIDTH)
    parser = ArgumentParser(
        description='A labelled grid of an image under corruptions')
    parser.add_argument(
        'input',
        metavar='IMAGE_OR_CONFIG',
        help='an image file, or an mmdet config (.py: an image of its test '
        'dataset); with --video a folder of frames or a video config')
    parser.add_argument(
        '--out',
        required=True,
        help='output file: .png or .jpg (with --video also .gif, '
        'animated); parent folders are created')
    parser.add_argument(
        '--corruptions',
        nargs='+',
        metavar='NAME',
        help='image corruptions: ' + ', '.join(SELECTIONS) + ', or names '
        '(default: benchmark); with --video: ' +
        ', '.join(VIDEO_SELECTIONS) + ', or names (default: video)')
    parser.add_argument(
        '--severities',
        type=int,
        nargs='+',
        default=list(SEVERITIES),
        help='severity columns after the clean one (default: 1 2 3 4 5)')
    parser.add_argument(
        '--index',
        type=int,
        default=0,
        help="with a config: the test dataset's item; with a folder of "
        'frames: a frame of the clip (default: 0)')
    parser.add_argument(
        '--thumb-width',
        type=int,
        default=DEFAULT_THUMB_WIDTH,
        metavar='PX',
        help='thumbnail width, aspect kept (default: %(default)s)')
    parser.add_argument(
        '--colors',
        type=int,
        default=0,
        metavar='N',
        help='.png output: a palette image of N colours (2-256), several '
        'times smaller, for documentation (default: 0, full colour)')
    parser.add_argument(
        '--seed', type=int, default=0, help='run seed (default: 0)')
    parser.add_argument(
        '--backend',
        choices=list(BACKENDS),
        help=f'corruption implementation (default: {DEFAULT_BACKEND}); '
        'image corruptions only')
    parser.add_argument(
        '--channel-order',
        choices=list(CHANNEL_ORDERS),
        default='rgb',
        help="rgb: the published corruptions (default); bgr: corrupt "
        "mmdet's BGR arrays as mmdet's test_robustness.py does")
    parser.add_argument(
        '--identity-root',
        metavar='DIR',
        help="for an image file or a folder of frames: the dataset's "
        "data_root, to get test_robust.py's seeds for it (and its depth "
        "folder); default: the image's folder")
    parser.add_argument(
        '--cfg-options',
        nargs='+',
        action=DictAction,
        help='override config settings, xxx=yyy format')
    add_depth_args(parser)
    parser.add_argument(
        '--video',
        action='store_true',
        help='the clip corruptions of robustdet.video on a clip')
    add_video_clip_args(parser)
    group = parser.add_argument_group('video gallery')
    group.add_argument(
        '--strip-frames',
        type=int,
        default=DEFAULT_STRIP_FRAMES,
        metavar='K',
        help='.png/.jpg output: frames per cell, evenly spaced '
        '(default: %(default)s)')
    group.add_argument(
        '--fps',
        type=float,
        default=4.0,
        help='.gif output: frames per second (default: %(default)s)')
    return parser.parse_args(argv)


@cli_entry
def main():
    args = parse_args()
    from robustdet.apis import gallery as g
    from robustdet.video import CLIP_CORRUPTION_NAMES, VIDEO_SELECTIONS
    from robustdet.visualization import gallery as draw

    # Validate every argument before anything is read or computed.
    fmt = draw.check_output(args.out, args.video)
    severities = g.check_severities(args.severities)
    draw.check_thumb_width(args.thumb_width)
    if draw.check_colors(args.colors) and fmt != 'PNG':
        raise RobustDetError(f'--colors is for .png output, not {args.out}')
    is_config = args.input.endswith('.py')
    if is_config and args.identity_root:
        raise RobustDetError('--identity-root is for an image file or a '
                             "folder of frames; a config's images are "
                             'relative to its data_root')
    if not is_config and args.cfg_options:
        raise RobustDetError('--cfg-options is for a config input')
    if not is_config and not args.video and args.index:
        raise RobustDetError('--index is for a config or (with --video) a '
                             'folder of frames')
    if args.video:
        tokens = args.corruptions or ['video']
        images = [t for t in tokens if t in SELECTIONS
                  or t in CORRUPTION_NAMES]
        if images:
            raise RobustDetError(
                f'{images[0]} is an image corruption: run without --video')
        names = resolve_clip_corruptions(tokens)
        depth = depth_from_args(args)
        if depth is not None or args.backend is not None:
            raise RobustDetError(
                '--video: the clip corruptions have one implementation and '
                'no depth; --backend and the depth options are for image '
                'corruptions')
        if not args.fps > 0:
            raise RobustDetError(f'--fps must be positive, got {args.fps}')
        if args.strip_frames < 1:
            raise RobustDetError(
                f'--strip-frames must be >= 1, got {args.strip_frames}')
        if is_config:
            clip = g.clip_from_config(args.input, args.index, args.clip_len,
                                      args.clip_mode, args.cfg_options)
        else:
            clip = g.clip_from_folder(args.input, args.index, args.clip_len,
                                      args.identity_root)
        gallery = g.clip_gallery(
            clip, names, severities, args.thumb_width, seed=args.seed,
            channel_order=args.channel_order, short_clips=args.short_clips,
            animated=fmt == 'GIF', strip_frames=args.strip_frames)
        what = f'clip {clip.key} ({len(clip.frames)} frames)'
    else:
        tokens = args.corruptions or ['benchmark']
        clips = [t for t in tokens if t in CLIP_CORRUPTION_NAMES
                 or t in VIDEO_SELECTIONS]
        if clips:
            raise RobustDetError(
                f'{clips[0]} is a clip corruption: pass --video and a '
                'folder of frames or a video config')
        names = resolve_corruptions(tokens)
        depth = depth_from_args(args)
        if is_config:
            check_file(args.input, 'config')
            image = g.image_from_config(args.input, args.index,
                                        args.cfg_options)
        else:
            image = g.image_from_file(args.input, args.identity_root)
        gallery = g.image_gallery(
            image, names, severities, args.thumb_width, seed=args.seed,
            backend=args.backend or DEFAULT_BACKEND,
            channel_order=args.channel_order, depth=depth)
        what = image.identity
    draw.save_gallery(gallery, args.out, fps=args.fps, colors=args.colors)
    height, width = gallery.frames[0].shape[:2]
    frames = (f', {len(gallery.frames)} frames'
              if len(gallery.frames) > 1 else '')
    print(f'wrote {args.out}: {what}, {len(gallery.rows)} corruptions x '
          f'{len(gallery.severities)} columns (severities '
          f'{" ".join(map(str, gallery.severities))}), {width}x{height} '
          f'px{frames}')


if __name__ == '__main__':
    main()
