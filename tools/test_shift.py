# Copyright (c) robustdet contributors. All rights reserved.
"""Evaluate a detector under natural distribution shifts (Michaelis et al.
2019, section 3.5)::

    python tools/test_shift.py CONFIG CHECKPOINT --benchmark foggy-cityscapes
    python tools/test_shift.py CONFIG CHECKPOINT --benchmark bdd100k-weather \\
        --split-dir data/bdd100k/splits
    python tools/test_shift.py CONFIG CHECKPOINT --benchmark bdd100k-daynight
    python tools/test_shift.py CONFIG CHECKPOINT --benchmark coco-o \\
        --coco-o-root data/coco-o

``foggy-cityscapes`` needs a Cityscapes test set (``CityscapesDataset`` or
``FoggyCityscapesDataset``) and evaluates clean val plus the three fog
densities; the BDD100k benchmarks need a ``BDD100kDataset`` test set and
the file lists of ``tools/make_bdd100k_splits.py``; ``coco-o`` needs a
``CocoDataset`` test set (a COCO config) and evaluates it (the reference)
and the six COCO-O domains ``<root>/<domain>/val2017/*.jpg`` with
``<root>/<domain>/annotations/instances_val2017.json`` (headline: the mean
bbox mAP over the domains, "COCO-O mAP"). Writes
``WORK_DIR/shift.json`` (after every split, atomically; a rerun resumes),
``shift.md``, ``shift.csv`` and a plot per main metric: P on the reference
split, the value and rPC of every split. ``--show-dir DIR`` draws the
first ``--show-num`` images of each split with their ground truth and
predictions into ``DIR/<split>/``.
"""
import os.path as osp

from robustdet.utils.cli import (ArgumentParser, add_runner_args,
                                 add_show_args, check_file, cli_entry,
                                 default_work_dir, init_launcher, load_config,
                                 show_from_args)


def parse_args(argv=None):
    from robustdet.apis.shift import BENCHMARKS, COCO_O_DOMAINS, COCO_O_ROOT
    parser = ArgumentParser(
        description='Evaluate a detector under natural distribution shifts')
    parser.add_argument('config', help='test config file path')
    parser.add_argument('checkpoint', help='checkpoint file')
    parser.add_argument(
        '--benchmark', required=True, choices=list(BENCHMARKS))
    parser.add_argument(
        '--splits',
        nargs='+',
        metavar='SPLIT',
        help='evaluate only these splits (default: all of the benchmark)')
    parser.add_argument(
        '--split-dir',
        default='data/bdd100k/splits',
        help='BDD100k file lists from tools/make_bdd100k_splits.py')
    parser.add_argument(
        '--coco-o-root',
        default=COCO_O_ROOT,
        help='COCO-O root: <root>/<domain>/val2017/ and <root>/<domain>/'
        'annotations/instances_val2017.json for each of '
        f'{", ".join(COCO_O_DOMAINS)} (default: %(default)s)')
    parser.add_argument(
        '--work-dir',
        help='results directory (default: work_dirs/<config name>/'
        'shift-<benchmark>)')
    parser.add_argument(
        '--overwrite',
        action='store_true',
        help='discard results of another run in the work dir')
    add_show_args(parser)
    add_runner_args(parser)
    return parser.parse_args(argv)


def mean_line(results):
    """The headline of a benchmark with a mean over its splits (COCO-O):
    the mean of each main metric over the splits other than the
    reference, and its rPC."""
    from robustdet.reports.shift_view import shift_main_metrics
    parts = []
    for metric in shift_main_metrics(results):
        row = results['summary'][metric]
        if row.get('mean') is None:
            parts.append(f'{metric}: - (not every split evaluated)')
            continue
        rpc = '' if row['mean_rPC'] is None else (
            f', rPC {100 * row["mean_rPC"]:.1f}%')
        parts.append(f'{metric}: {100 * row["mean"]:.1f}{rpc}')
    return (f'{results["mean_name"]} (mean over the splits other than '
            f'{results["reference"]}): ' + '; '.join(parts))


@cli_entry
def main():
    args = parse_args()
    show = show_from_args(args)
    from mmengine.dist import is_main_process

    from robustdet.apis.shift import ShiftJob, run_shift
    from robustdet.reports.shift import shift_markdown, write_shift_reports
    from robustdet.utils import register_all_modules

    check_file(args.checkpoint, 'checkpoint')
    register_all_modules()
    cfg = load_config(
        args.config,
        args.cfg_options,
        require=('test_dataloader', 'test_evaluator', 'test_cfg'))
    init_launcher(args, cfg, files=[args.checkpoint])
    work_dir = args.work_dir or default_work_dir(
        args.config, f'shift-{args.benchmark}')
    job = ShiftJob(
        config=args.config,
        checkpoint=args.checkpoint,
        benchmark=args.benchmark,
        work_dir=work_dir,
        split_dir=args.split_dir,
        splits=args.splits,
        launcher=args.launcher,
        unsafe_load=args.unsafe_load,
        overwrite=args.overwrite,
        coco_o_root=args.coco_o_root,
        show=show)
    results = run_shift(job, cfg)
    if not is_main_process():
        return
    paths = write_shift_reports(results, work_dir)
    print(shift_markdown(results))
    if results.get('mean_name'):
        print(mean_line(results))
    print(f'results: {osp.join(work_dir, "shift.json")}; reports: ' +
          ', '.join(osp.basename(p) for p in paths))


if __name__ == '__main__':
    main()
