# Copyright (c) robustdet contributors. All rights reserved.
"""Effective robustness (ER) of COCO-O runs::

    python tools/effective_robustness.py \\
        work_dirs/a/shift-coco-o/shift.json \\
        swin=work_dirs/b/shift-coco-o/shift.json \\
        work_dirs/c/shift-coco-o/shift.json --out-dir work_dirs/er

Each run is the ``shift.json`` of ``tools/test_shift.py --benchmark
coco-o`` with every split evaluated: its COCO mAP (x, the reference split)
and its COCO-O mAP (y, the mean over the six domains). A line
``y = a·x + b`` is fitted by least squares over the runs (``--fit NAME
...``: over these only; at least two with different COCO mAP) and each
run's ER is ``y − (a·x + b)``, in points. robustdet has no published COCO-O
rows or fit: the line is fitted over these runs only.

Writes DIR/effective_robustness.{json,md,png} (files already there are
replaced), prints the Markdown table and the paths written.
"""
import os.path as osp

from robustdet.utils.cli import ArgumentParser, cli_entry
from robustdet.utils.errors import RobustDetError


def parse_args(argv=None):
    parser = ArgumentParser(
        description='Effective robustness of COCO-O runs: COCO-O mAP '
        "against COCO mAP, a least-squares line and each run's distance "
        'above it')
    parser.add_argument(
        'runs',
        nargs='+',
        metavar='SHIFT_JSON',
        help='a shift.json of --benchmark coco-o, or NAME=JSON; a run is '
        'named by NAME, else by its config file name')
    parser.add_argument(
        '--fit',
        nargs='+',
        metavar='NAME',
        help='fit the line over these runs only (default: all runs)')
    parser.add_argument(
        '--metric',
        default='coco/bbox_mAP',
        help='the metric (default: %(default)s)')
    parser.add_argument(
        '--out-dir',
        required=True,
        help='where to write effective_robustness.*')
    return parser.parse_args(argv)


@cli_entry
def main():
    args = parse_args()
    from robustdet.apis.shift import load_shift_results
    from robustdet.evaluation.functional.effective_robustness import er_report
    from robustdet.reports import run_name
    from robustdet.reports.effective_robustness import (er_markdown,
                                                        write_er_report)
    from robustdet.utils.cli import parse_run_args
    if osp.exists(args.out_dir) and not osp.isdir(args.out_dir):
        raise RobustDetError(
            f'--out-dir {args.out_dir} exists and is not a directory')
    runs = []
    for name, path in parse_run_args(args.runs):
        results = load_shift_results(path)
        runs.append((name or run_name(results), path, results))
    data = er_report(runs, args.metric, args.fit)
    paths = write_er_report(data, args.out_dir)
    print(er_markdown(data), end='')
    for path in paths:
        print(path)


if __name__ == '__main__':
    main()
