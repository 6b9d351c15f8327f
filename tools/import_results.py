# Copyright (c) robustdet contributors. All rights reserved.
"""Import another tool's robustness results as a ``robustness.json``::

    python tools/import_results.py faster_rcnn_r50_fpn_1x_coco_results.pkl \\
        --dataset coco --work-dir work_dirs/imported/faster-rcnn_r50

Reads the raw result pickles of Michaelis et al. 2019, those of mmdet
1.x/2.x and 3.x ``tools/analysis_tools/test_robustness.py`` (``--out
X.pkl`` writes ``X_results.pkl``) and robustdet's own ``robustness.json``;
several files of one model (e.g. one per corruption group) are merged.
Pickles are parsed, never unpickled: robustdet reads their opcodes itself
and builds plain data only (containers, numbers, numeric numpy arrays), so
nothing in a file runs or touches memory it does not own; anything else
is refused with one line (docs/baselines.md, "Safe loading"). Every name
and number is checked before anything is written. Writes ``WORK_DIR/
robustness.json`` and its reports, as ``tools/test_robust.py`` does, and
prints P, mPC and rPC.
"""
from robustdet.utils.cli import ArgumentParser, cli_entry


def parse_args(argv=None):
    from robustdet.baselines import DATASETS, TASKS
    parser = ArgumentParser(
        description="Import another tool's robustness results")
    parser.add_argument(
        'files', nargs='+', metavar='FILE',
        help='result pickles or JSONs of one model')
    parser.add_argument(
        '--dataset',
        required=True,
        choices=DATASETS,
        help='the dataset the results are of')
    parser.add_argument(
        '--work-dir', required=True, help='where robustness.json goes')
    parser.add_argument(
        '--name', help="the run's name in comparisons (default: the work "
        "dir's name)")
    parser.add_argument(
        '--task',
        choices=TASKS,
        help='import only these metrics (default: all in the files)')
    parser.add_argument(
        '--overwrite',
        action='store_true',
        help='replace the run in an existing, non-empty work dir (its '
        'robustness.json and reports are removed first)')
    return parser.parse_args(argv)


@cli_entry
def main():
    args = parse_args()
    from robustdet.apis import import_results
    from robustdet.reports import summary_text, write_reports
    results = import_results(
        args.files, args.dataset, args.work_dir, name=args.name,
        task=args.task, overwrite=args.overwrite)
    paths = write_reports(results, args.work_dir)
    print(summary_text(results))
    print(f'wrote {args.work_dir}/robustness.json and its reports')
    for path in paths:
        print(path)


if __name__ == '__main__':
    main()
