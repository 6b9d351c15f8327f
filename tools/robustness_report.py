# Copyright (c) robustdet contributors. All rights reserved.
"""Regenerate the reports of a robustness run from its JSON, or merge the
shards of a sharded run::

    python tools/robustness_report.py WORK_DIR/robustness.json
    python tools/robustness_report.py --merge WORK_DIR
    python tools/robustness_report.py --compare \\
        standard=work_dirs/a/robustness.json \\
        combined=work_dirs/b/robustness.json
    python tools/robustness_report.py work_dirs/b/robustness.json \\
        --ce-baseline work_dirs/a/robustness.json
"""
import os.path as osp

from robustdet.utils.cli import ArgumentParser, cli_entry
from robustdet.utils.errors import RobustDetError


def parse_args(argv=None):
    parser = ArgumentParser(
        description='Write Markdown/CSV/plots of a robustness results file')
    parser.add_argument(
        'path',
        nargs='?',
        help='a robustness.json, or with --merge the work dir of a sharded '
        'run')
    parser.add_argument(
        '--compare',
        nargs='+',
        metavar='NAME=JSON',
        help='print one Markdown table comparing several runs (P, mPC, '
        'rPC, mPC per group; with video cells also mPC_video, rPC_video, '
        'γa, γr), one row per NAME')
    parser.add_argument(
        '--merge',
        action='store_true',
        help='merge WORK_DIR/shards/*.json into WORK_DIR/robustness.json '
        'first')
    parser.add_argument(
        '--out-dir', help='where to write the reports (default: next to '
        'the JSON)')
    parser.add_argument(
        '--ce-baseline',
        metavar='RUN_JSON|NAME',
        help='add CE, mCE and relative mCE against this baseline to the '
        "reports (another run's robustness.json, or a published row); "
        'the JSON is not changed')
    parser.add_argument(
        '--mce',
        action='store_true',
        help='require the corruption errors: against --ce-baseline, else '
        'the baseline the run recorded (test_robust.py --ce-baseline)')
    return parser.parse_args(argv)


@cli_entry
def main():
    args = parse_args()
    from robustdet.apis import load_results, merge_shards
    from robustdet.reports import compare_markdown, summary_text, write_reports
    if args.compare:
        named = []
        for item in args.compare:
            name, sep, path = item.partition('=')
            if not sep or not name or not path:
                raise RobustDetError(
                    f'--compare takes NAME=JSON items, got {item!r}')
            named.append((name, load_results(path)))
        print(compare_markdown(named), end='')
        return
    if not args.path:
        raise RobustDetError('give a robustness.json (or --compare)')
    if args.merge:
        if not osp.isdir(args.path):
            raise RobustDetError(
                f'--merge needs the work dir of a sharded run, got '
                f'{args.path}')
        results = merge_shards(args.path)
        json_dir = args.path
    else:
        results = load_results(args.path)
        json_dir = osp.dirname(osp.abspath(args.path))
    if args.ce_baseline or args.mce:
        results = _with_ce_baseline(results, args)
    paths = write_reports(results, args.out_dir or json_dir)
    print(summary_text(results))
    for p in paths:
        print(p)


def _with_ce_baseline(results, args):
    """The results with their corruption errors against the baseline of
    ``--ce-baseline`` (or the recorded one for ``--mce``)."""
    from robustdet.apis.ce_baseline import load_ce_baseline
    from robustdet.apis.results import corruption_errors
    if args.ce_baseline:
        baseline = load_ce_baseline(args.ce_baseline)
    else:
        baseline = results.get('ce_baseline')
    if baseline is None:
        raise RobustDetError(
            f'--mce needs a baseline, and {args.path} records none: pass '
            '--ce-baseline with a run JSON or a published row name')
    results = dict(results, ce_baseline=baseline)
    results['corruption_errors'] = corruption_errors(results)
    return results


if __name__ == '__main__':
    main()
