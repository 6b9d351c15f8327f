# Copyright (c) robustdet contributors. All rights reserved.
"""pm-k of a detector on video-frame neighbour sets (Shankar et al. 2019)::

    python tools/test_pmk.py CONFIG CHECKPOINT [--k 10] [--judge frame]

The config's test set must be a ``NeighborSetDataset`` (e.g.
configs/_base_/datasets/imagenet_vid_robust.py). Runs the detector on every
frame of every set and writes ``WORK_DIR/pmk.json`` (per-k pm-k mAP, the
worst frame of every anchor, localization and classification numbers,
error vs offset), then ``pmk.md`` and ``pmk.png``. The same metric works
with mmdet's own ``tools/test.py`` (``test_evaluator=dict(type='PMKMetric')``).

pm-k under a clip corruption of ``robustdet.video`` (each neighbour set's
frames cut from one corrupted clip around its anchor)::

    python tools/test_pmk.py CONFIG CHECKPOINT --video-corruption h264_crf \
        --severity 3

(or a config whose test set is a ``VideoCorruptedDataset`` wrapping the
``NeighborSetDataset``). ``tools/test_robust.py --corruptions video`` on the
same config gives pm-k under every clip corruption and severity.

``--show-dir DIR`` draws the first ``--show-num`` frames with their ground
truth and predictions, as the model saw them, into
``DIR/<corruption>/<severity>/<anchor>/<frame>.jpg`` (``clean/0`` without
a clip corruption), and a strip of each neighbour set's drawn frames, by
offset, into ``DIR/strips/<corruption>/<severity>/<anchor>.jpg``.
"""
import os.path as osp

from robustdet.utils.cli import (ArgumentParser, add_pmk_args, add_runner_args,
                                 add_show_args, cli_entry, default_work_dir,
                                 init_launcher, load_config, pmk_ks,
                                 show_from_args)


def parse_args(argv=None):
    parser = ArgumentParser(description='pm-k of a detector')
    parser.add_argument('config', help='test config (NeighborSetDataset)')
    parser.add_argument('checkpoint', help='checkpoint file')
    parser.add_argument(
        '--work-dir',
        help='where the report goes (default: work_dirs/<config>/pmk)')
    parser.add_argument(
        '--video-corruption',
        metavar='NAME',
        help='score the frames under this clip corruption (robustdet.video)')
    parser.add_argument(
        '--severity',
        type=int,
        default=3,
        help='severity of --video-corruption, 1-5 (default: 3)')
    parser.add_argument(
        '--clip-len',
        type=int,
        default=32,
        metavar='T',
        help='frames of the clip centred on each anchor (default: 32; at '
        'least 2k + 1)')
    add_pmk_args(parser)
    add_show_args(parser)
    add_runner_args(parser)
    return parser.parse_args(argv)


@cli_entry
def main():
    args = parse_args()
    ks = pmk_ks(args)
    show = show_from_args(args)
    from robustdet.apis.pmk import PMK_FILE, pmk_config, run_pmk
    from robustdet.reports.pmk import summary_lines
    from robustdet.utils import load_checkpoint_file, register_all_modules
    register_all_modules()
    cfg = load_config(
        args.config, args.cfg_options, require=('test_dataloader',
                                                'test_cfg'))
    work_dir = args.work_dir or default_work_dir(args.config, 'pmk')
    cfg = pmk_config(cfg, work_dir, ks, judge=args.judge,
                     vid_iou=args.vid_iou,
                     video_corruption=args.video_corruption,
                     severity=args.severity, clip_len=args.clip_len)
    ckpt = load_checkpoint_file(args.checkpoint, unsafe=args.unsafe_load)
    init_launcher(args, cfg, files=[args.checkpoint])
    report = run_pmk(cfg, args.checkpoint, work_dir, args.launcher,
                     loaded=ckpt, show=show)
    if report is not None:
        print('\n'.join(summary_lines(report)))
        print(f'report: {osp.join(work_dir, PMK_FILE)} (+ .md, .png)')


if __name__ == '__main__':
    main()
