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
    python tools/robustness_report.py work_dirs/b/robustness.json \\
        standard=work_dirs/a/robustness.json --html --show-dir work_dirs/b/show
"""
import os.path as osp

from robustdet.apis.report_inputs import (ReportRun, load_run,
                                          require_robustness)
from robustdet.utils.cli import ArgumentParser, cli_entry
from robustdet.utils.errors import RobustDetError


def parse_args(argv=None):
    parser = ArgumentParser(
        description='Write Markdown/CSV/plots of a robustness results '
        'file, or one HTML page of robustness, shift and pm-k results')
    parser.add_argument(
        'paths',
        nargs='*',
        metavar='JSON',
        help='a robustness.json, or with --merge the work dir of a sharded '
        'run; with --html also shift.json and pm-k reports, several of '
        'them (PATH or NAME=PATH) on one page')
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
        '--html',
        action='store_true',
        help='write one self-contained HTML page (<stem of the first '
        'JSON>.html: summary, coloured tables, plots, comparisons, '
        'provenance) instead of the Markdown/CSV/plots')
    parser.add_argument(
        '--show-dir',
        metavar='DIR',
        help='with --html: embed the example strips that test_robust.py '
        '--show-dir DIR wrote (DIR/strips/<corruption>/<image>.jpg)')
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
    if not args.paths:
        raise RobustDetError('give a robustness.json (or --compare)')
    if args.show_dir is not None and not args.html:
        raise RobustDetError('--show-dir needs --html')
    if args.show_dir is not None and not osp.isdir(args.show_dir):
        raise RobustDetError(f'--show-dir {args.show_dir}: no such folder')
    if len(args.paths) > 1 and not args.html:
        raise RobustDetError(
            f'{len(args.paths)} runs given: pass --html for one page of '
            'them all, or --compare NAME=JSON... for a Markdown table')
    runs = _runs(args, merge_shards)
    if args.ce_baseline or args.mce:
        if not any(run.kind == 'robustness' for run in runs):
            raise RobustDetError(
                '--ce-baseline and --mce apply to robustness runs, and '
                'none is given')
        from robustdet.apis.ce_baseline import load_ce_baseline
        baseline = (load_ce_baseline(args.ce_baseline)
                    if args.ce_baseline else None)
        runs = [
            run._replace(
                results=_with_ce_baseline(run.results, run.path, baseline))
            if run.kind == 'robustness' else run for run in runs
        ]
    if args.html:
        from robustdet.reports.html import write_html_report
        path = write_html_report(runs, args.out_dir, args.show_dir)
        if len(runs) == 1 and runs[0].kind == 'robustness':
            print(summary_text(runs[0].results))
        print(path)
        return
    run = runs[0]
    require_robustness(run)
    paths = write_reports(run.results,
                          args.out_dir or osp.dirname(osp.abspath(run.path)))
    print(summary_text(run.results))
    for p in paths:
        print(p)


def _runs(args, merge_shards):
    """The runs of the command line: the merged shards of a work dir
    (``--merge``), else each JSON (``PATH`` or ``NAME=PATH``)."""
    from robustdet.apis.results import RESULTS_FILE
    from robustdet.reports import run_name
    from robustdet.utils.cli import parse_run_args
    if args.merge:
        if len(args.paths) != 1 or not osp.isdir(args.paths[0]):
            raise RobustDetError(
                f'--merge needs the work dir of a sharded run, got '
                f'{" ".join(args.paths)}')
        results = merge_shards(args.paths[0])
        path = osp.join(args.paths[0], RESULTS_FILE)
        return [ReportRun('robustness', run_name(results, path), path,
                          results)]
    return [load_run(path, name) for name, path in parse_run_args(args.paths)]


def _with_ce_baseline(results, path, baseline):
    """The results with their corruption errors against ``baseline``
    (that of ``--ce-baseline``; None for the recorded one, ``--mce``)."""
    from robustdet.apis.results import corruption_errors
    baseline = baseline or results.get('ce_baseline')
    if baseline is None:
        raise RobustDetError(
            f'--mce needs a baseline, and {path} records none: pass '
            '--ce-baseline with a run JSON or a published row name')
    results = dict(results, ce_baseline=baseline)
    results['corruption_errors'] = corruption_errors(results)
    return results


if __name__ == '__main__':
    main()
