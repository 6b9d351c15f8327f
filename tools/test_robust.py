# Copyright (c) robustdet contributors. All rights reserved.
"""Benchmark a detector under image corruptions: clean P, mPC, rPC.

The PASCAL-C / COCO-C / Cityscapes-C benchmark of Michaelis et al. 2019::

    python tools/test_robust.py CONFIG CHECKPOINT --corruptions all

writes ``WORK_DIR/robustness.json`` (after every cell, atomically), then
``robustness.md``, ``robustness.csv``, ``robustness_summary.csv`` and plots.
Rerunning the same command resumes; ``--shard I/N`` splits the cells over
independent jobs writing into the same work dir; ``--cells-per-pass K``
evaluates K cells per data pass (each image loaded once), with the same
numbers. ``--backend torch`` corrupts on the model's device (a GPU when the
model runs on one): the dataloader only decodes, the model's data
preprocessor corrupts, resizes and normalises.

Video detection data (CocoVID-style annotations, neighbour sets) can be
benchmarked under the clip corruptions of ``robustdet.video`` as well::

    python tools/test_robust.py CONFIG CHECKPOINT --corruptions video

(or ``video-codec`` ..., or names): each annotated frame is cut from its
corrupted clip (``--clip-len`` frames of its video, corrupted once), and the
reports add mPC / rPC and gamma_a / gamma_r per family (spatial vs
temporal).

The newer families run the same way (``--corruptions cbar 3dcc_depth_free``;
fog_3d, near_focus and far_focus need ``--depth``), and ``--region objects
background`` corrupts only inside or only outside the ground-truth
instances, one run per region under ``WORK_DIR/region-<region>/`` and a
side-by-side ``regions.md``.

``--show-dir DIR`` draws the first ``--show-num`` images (default 5) of the
test set in every cell, ground truth and predictions scored at least
``--show-score-thr`` on the image as the model saw it (corrupted, before
resizing): ``DIR/<corruption>/<severity>/<image>.jpg`` (``DIR/clean/0/``
for the clean cell) and, per corruption and image, a strip from clean to
the highest severity, ``DIR/strips/<corruption>/<image>.jpg``. The numbers
do not change; a resumed run draws only the cells it evaluates.
"""
import os.path as osp

from robustdet.corruptions import (BACKENDS, CHANNEL_ORDERS, DEFAULT_BACKEND,
                                   SELECTIONS, SEVERITIES, check_severity)
from robustdet.corruptions.region import REGIONS, check_region
from robustdet.engine.runner.async_eval import (AUTO_MIN_CORES, OVERLAP_MODES,
                                                SUPPORTED_METRICS)
from robustdet.utils.cli import (ArgumentParser, add_depth_args,
                                 add_runner_args, add_show_args,
                                 add_video_clip_args, check_file, cli_entry,
                                 default_work_dir, depth_from_args,
                                 init_launcher, load_config, show_from_args)


def parse_args(argv=None):
    parser = ArgumentParser(
        description='Benchmark a detector under image corruptions')
    parser.add_argument('config', help='test config file path')
    parser.add_argument('checkpoint', help='checkpoint file')
    parser.add_argument(
        '--corruptions',
        nargs='+',
        default=['benchmark'],
        metavar='NAME',
        help='corruptions: ' + ', '.join(SELECTIONS) +
        ' (benchmark = the 15 of mPC, all = those + 4 hold-out, cbar = the '
        '10 of ImageNet-C-bar, 3dcc = six 3D Common Corruptions), video '
        '(every clip corruption), video-FAMILY (codec, transmission, blur, '
        'weather, temporal, camera), or names')
    parser.add_argument(
        '--region',
        nargs='+',
        default=['all'],
        metavar='REGION',
        help='where the image corruptions apply: ' + ', '.join(REGIONS) +
        ' (inside / outside the ground-truth masks, or boxes without '
        'masks, with a soft edge); several: one run each under '
        'WORK_DIR/region-REGION and a side-by-side regions.md '
        '(default: all)')
    parser.add_argument(
        '--severities',
        type=int,
        nargs='+',
        default=[0, *SEVERITIES],
        help='severities to evaluate, 0 = clean (default: 0 1 2 3 4 5)')
    parser.add_argument(
        '--work-dir',
        help='results directory (default: '
        'work_dirs/<config name>/robustness)')
    parser.add_argument(
        '--seed', type=int, default=0, help='seed of the corruptions')
    parser.add_argument(
        '--backend',
        choices=list(BACKENDS),
        default=DEFAULT_BACKEND,
        help='corruption implementation: fast (default), reference '
        "(imagecorruptions' own functions, the definitions behind the "
        'published numbers; random ones draw seeded samples) or '
        "torch (on the model's device: the dataloader only decodes, the "
        "model's data preprocessor corrupts at the original resolution, "
        'resizes and normalises)')
    parser.add_argument(
        '--corruption-device',
        metavar='DEVICE',
        help='with --backend torch: corrupt on this device (cpu, cuda, '
        "cuda:N) instead of the model's")
    parser.add_argument(
        '--channel-order',
        choices=list(CHANNEL_ORDERS),
        default='rgb',
        help="rgb: the published corruptions (default); bgr: corrupt "
        "mmdet's BGR arrays as mmdet's test_robustness.py does")
    parser.add_argument(
        '--shard',
        metavar='I/N',
        help='evaluate shard I of N (1-based) of the cells; shards write '
        'into the same work dir and are merged into robustness.json')
    parser.add_argument(
        '--overwrite',
        action='store_true',
        help='discard results of another run in the work dir')
    parser.add_argument(
        '--cells-per-pass',
        type=int,
        default=1,
        metavar='K',
        help='evaluate K cells per data pass: each image is loaded once and '
        'corrupted K ways, each cell keeps its own evaluator and results '
        '(identical to K=1); results are saved after each pass (default: '
        '1)')
    parser.add_argument(
        '--eval-overlap',
        choices=list(OVERLAP_MODES),
        default='auto',
        help="score each pass's cells in another process while the next "
        'pass runs (same numbers; the pass waits only when the one before '
        'it is not scored yet). auto (default): on with at least '
        f'{AUTO_MIN_CORES} cores and {" / ".join(SUPPORTED_METRICS)} with '
        'an ann_file')
    parser.add_argument(
        '--skip-bad-images',
        action='store_true',
        help='skip unreadable images (recorded in the results) instead of '
        'stopping')
    parser.add_argument(
        '--ce-baseline',
        metavar='RUN_JSON|NAME',
        help='report CE, mCE and relative mCE per family against this '
        "baseline: another run's robustness.json with the same cells, or "
        'a published row of robustdet.baselines (pooled forms of the 15 '
        'only); stored in the results')
    add_depth_args(parser)
    add_video_clip_args(parser)
    parser.add_argument(
        '--clip-cache-dir',
        metavar='DIR',
        help='where corrupted clips are kept while their frames are '
        'evaluated (default: the system temporary directory)')
    add_show_args(parser)
    add_runner_args(parser)
    return parser.parse_args(argv)


def _region_show(show, region, regions):
    """The show settings of one region's run: below ``region-<region>/``
    of ``--show-dir`` when several regions run."""
    if show is None or len(regions) == 1:
        return show
    return dict(show, out_dir=osp.join(show['out_dir'], f'region-{region}'))


@cli_entry
def main():
    args = parse_args()
    from mmengine.dist import is_main_process

    from robustdet.apis import RobustnessJob, parse_shard, run_robustness
    from robustdet.apis.ce_baseline import check_ce_baseline, load_ce_baseline
    from robustdet.apis.results import (RESULTS_FILE, merge_shards,
                                        refresh_summary, save_results)
    from robustdet.apis.robustness import resolve_grid_corruptions
    from robustdet.corruptions.grid import check_cells_per_pass
    from robustdet.reports import (summary_text, write_region_report,
                                   write_reports)
    from robustdet.utils import register_all_modules

    # Validate every argument before anything is built or written.
    corruptions = resolve_grid_corruptions(args.corruptions)
    severities = sorted(
        {check_severity(s, allow_clean=True)
         for s in args.severities})
    shard = parse_shard(args.shard)
    check_cells_per_pass(args.cells_per_pass)
    regions = list(dict.fromkeys(check_region(r) for r in args.region))
    depth = depth_from_args(args)
    show = show_from_args(args)
    check_file(args.checkpoint, 'checkpoint')
    baseline = None
    if args.ce_baseline:
        baseline = load_ce_baseline(args.ce_baseline)
        check_ce_baseline(baseline, corruptions, severities)
    register_all_modules()
    cfg = load_config(
        args.config,
        args.cfg_options,
        require=('test_dataloader', 'test_evaluator', 'test_cfg'))
    init_launcher(args, cfg, files=[args.checkpoint])
    work_dir = args.work_dir or default_work_dir(args.config, 'robustness')
    # One run per region, each checked before any is started.
    jobs = [
        RobustnessJob(
            config=args.config,
            checkpoint=args.checkpoint,
            work_dir=(osp.join(work_dir, f'region-{region}')
                      if len(regions) > 1 else work_dir),
            corruptions=corruptions,
            severities=severities,
            seed=args.seed,
            backend=args.backend,
            channel_order=args.channel_order,
            shard=shard,
            overwrite=args.overwrite,
            unsafe_load=args.unsafe_load,
            skip_bad_images=args.skip_bad_images,
            launcher=args.launcher,
            cells_per_pass=args.cells_per_pass,
            eval_overlap=args.eval_overlap,
            corruption_device=args.corruption_device,
            clip_len=args.clip_len,
            clip_mode=args.clip_mode,
            short_clips=args.short_clips,
            clip_cache_dir=args.clip_cache_dir,
            region=region,
            depth=depth,
            show=_region_show(show, region, regions)) for region in regions
    ]
    runs = []
    for job in jobs:
        results = run_robustness(job, cfg)
        if not is_main_process():
            continue
        if shard[1] > 1:
            results = merge_shards(job.work_dir)
        if baseline is not None:
            results['ce_baseline'] = baseline
            refresh_summary(results)
            save_results(results, osp.join(job.work_dir, RESULTS_FILE))
        paths = write_reports(results, job.work_dir)
        if len(jobs) > 1:
            print(f'region {job.region}:')
        print(summary_text(results))
        print(f'results: {osp.join(job.work_dir, "robustness.json")}; '
              'reports: ' + ', '.join(osp.basename(p) for p in paths))
        runs.append((job.region, results))
    if len(runs) > 1:
        print(f'regions side by side: {write_region_report(runs, work_dir)}')


if __name__ == '__main__':
    main()
