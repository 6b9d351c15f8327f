# Copyright (c) robustdet contributors. All rights reserved.
"""Put robustness runs beside the published leaderboard (Michaelis et al.
2019, see robustdet/baselines)::

    python tools/compare_results.py work_dirs/a/robustness.json \\
        combined=work_dirs/b/robustness.json --out-dir work_dirs/compare
    python tools/compare_results.py voc/robustness.json --dataset voc \\
        --baseline michaelis2019/voc/faster-rcnn_r50_fpn/combined/bbox \\
        --out-dir work_dirs/compare-voc

Writes DIR/compare.{json,md,csv,png} (derived from the JSONs and the
published rows alone; files already there are replaced), prints the
Markdown table and the paths written.
"""
import os.path as osp

from robustdet.utils.cli import ArgumentParser, cli_entry
from robustdet.utils.errors import RobustDetError


def parse_args(argv=None):
    from robustdet.baselines import DATASETS, TASKS
    parser = ArgumentParser(
        description='Compare robustness runs with the published P / mPC / '
        'rPC of the same dataset and task')
    parser.add_argument(
        'runs',
        nargs='+',
        metavar='RUN',
        help='a robustness.json, or NAME=JSON; a run is named by NAME, '
        'else its "name" entry, else the directory holding the JSON')
    parser.add_argument(
        '--baseline',
        metavar='NAME',
        help='published row the differences are taken to (default: the '
        "dataset's Faster R-CNN R-50-FPN standard row, for segm Mask "
        "R-CNN's); its dataset and task are the defaults of --dataset and "
        '--task')
    parser.add_argument(
        '--dataset',
        choices=DATASETS,
        help='default: that of --baseline, else voc if the first run has '
        'pascal_voc/ metrics, else coco (Cityscapes needs --dataset)')
    parser.add_argument(
        '--task',
        choices=TASKS,
        help='bbox or segm (default: that of --baseline, else bbox)')
    parser.add_argument(
        '--ce-baseline',
        metavar='RUN_JSON|NAME',
        help='add CE, mCE and relative mCE per family against this '
        "baseline (a run's robustness.json, or a published row)")
    parser.add_argument(
        '--out-dir', required=True, help='where to write compare.*')
    return parser.parse_args(argv)


@cli_entry
def main():
    args = parse_args()
    from robustdet.apis import load_results
    from robustdet.baselines import get_baseline
    from robustdet.evaluation.functional.comparison import comparison
    from robustdet.reports import run_name
    from robustdet.reports.compare import comparison_markdown, write_comparison
    from robustdet.utils.cli import parse_run_args
    if osp.exists(args.out_dir) and not osp.isdir(args.out_dir):
        raise RobustDetError(
            f'--out-dir {args.out_dir} exists and is not a directory')
    dataset, task = args.dataset, args.task
    if args.baseline is not None and (dataset is None or task is None):
        try:
            row = get_baseline(args.baseline)
        except RobustDetError:
            row = None  # comparison() names the baselines there are
        if row is not None:
            dataset = dataset or row.dataset
            task = task or row.task
    runs = []
    for name, path in parse_run_args(args.runs):
        results = load_results(path)
        runs.append((name or run_name(results, path), path, results))
    ce_baseline = None
    if args.ce_baseline:
        from robustdet.apis.ce_baseline import load_ce_baseline
        ce_baseline = load_ce_baseline(args.ce_baseline)
    data = comparison(runs, dataset, task or 'bbox', args.baseline,
                      ce_baseline)
    paths = write_comparison(data, args.out_dir)
    print(comparison_markdown(data, brief=True), end='')
    for path in paths:
        print(path)


if __name__ == '__main__':
    main()
