# Copyright (c) robustdet contributors. All rights reserved.
"""pm-k of a detector on neighbour sets (Shankar et al. 2019), offline.

Scores a detector's saved COCO results on ImageNet-Vid-Robust-style
neighbour sets: per-image AP@0.5 of every frame, pm-k mAP (the worst frame
of each anchor for k = 0..K), the class-agnostic (localization) variant,
pm-k accuracy of the detector used as a classifier and error vs offset::

    python tools/eval_pmk.py --sets pmsets.json --ann vid_val.json \\
        --pred results.bbox.json --out work_dirs/pmk/report.json

``--out`` writes REPORT.json (atomically), then REPORT.md and REPORT.png
(k-curves and error vs offset) next to it, derived from the JSON.
"""


from robustdet.evaluation.functional.pmk_report import pmk_report
from robustdet.reports.pmk import summary_lines, write_pmk_reports
from robustdet.utils.cli import (ArgumentParser, add_pmk_args, check_file,
                                 cli_entry, pmk_ks)


def parse_args(argv=None):
    parser = ArgumentParser(
        description='pm-k (worst frame among neighbours) of a detector')
    parser.add_argument(
        '--sets',
        required=True,
        help='pm sets JSON {anchor_key: [neighbour_key, ...]}')
    parser.add_argument(
        '--ann',
        required=True,
        help='COCO (or CocoVID) ground truth JSON; images[].file_name are '
        'the frame keys')
    parser.add_argument(
        '--pred',
        required=True,
        help='COCO results JSON [{image_id, category_id, bbox, score}]')
    parser.add_argument(
        '--class-agnostic',
        action='store_true',
        help='headline mAP ignores classes (the localization variant is '
        'always reported as well)')
    parser.add_argument(
        '--labels',
        help="frame labels for classification, ImageNet-Vid-Robust's "
        'labels.json form {frame_key: [class_idx, ...]} (index = position '
        'of the category among the annotation categories sorted by id; '
        'default: the categories of the ground truth)')
    add_pmk_args(parser)
    parser.add_argument(
        '--out',
        help='report JSON path (*.json), or a directory for pmk.json; the '
        '.md and .png go next to it')
    return parser.parse_args(argv)


@cli_entry
def main():
    args = parse_args()
    ks = pmk_ks(args)
    check_file(args.sets, 'pm sets')
    check_file(args.ann, 'annotations')
    check_file(args.pred, 'predictions')
    if args.labels:
        check_file(args.labels, 'labels')
    from robustdet.evaluation.functional.pmk import load_labels, load_pmk_data

    data = load_pmk_data(args.sets, args.ann, args.pred)
    labels = load_labels(args.labels,
                         data.categories) if args.labels else None
    report = pmk_report(
        data,
        ks,
        judge=args.judge,
        labels=labels,
        vid_iou=args.vid_iou,
        class_agnostic=args.class_agnostic,
        sources=dict(
            sets=args.sets, ann=args.ann, pred=args.pred,
            labels=args.labels))
    c = report['counts']
    print(f'pm-k: {c["anchors"]} anchors ({c["evaluated_anchors"]} '
          f'evaluated, {c["skipped_anchors"]} skipped: no non-crowd ground '
          f'truth), {c["frames"]} frames, {c["predictions"]} predictions' +
          (' (EMPTY: every AP is 0)' if report['empty_predictions'] else ''))
    print('\n'.join(summary_lines(report)))
    if args.out:
        paths = write_pmk_reports(report, args.out)
        print('report: ' + ', '.join(paths))


if __name__ == '__main__':
    main()
