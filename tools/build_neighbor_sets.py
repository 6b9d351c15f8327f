# Copyright (c) robustdet contributors. All rights reserved.
"""Make pm-k neighbour sets from any COCO / CocoVID video annotation, so
the pm-k metric can be applied to your own videos::

    python tools/build_neighbor_sets.py ANN.json --out pmsets.json --k 10

Anchors are drawn per video (seeded); each gets the frames of its video
within ±k frames, minus the pairs listed in ``--rejected`` (e.g. pairs a
human review found too different). Frame keys are the images'
``file_name``; the last path component must be the frame number (as in
ImageNet VID), since offsets are read from it.
"""
from robustdet.utils.cli import ArgumentParser, cli_entry


def parse_args(argv=None):
    parser = ArgumentParser(description='Build pm-k neighbour sets')
    parser.add_argument('ann', help='COCO or CocoVID json of the videos')
    parser.add_argument('--out', required=True, help='pmsets json to write')
    parser.add_argument('--k', type=int, default=10, help='largest offset')
    parser.add_argument('--anchors-per-video', type=int, default=1)
    parser.add_argument('--seed', type=int, default=0)
    parser.add_argument(
        '--min-gap',
        type=int,
        help='smallest frame distance between anchors (default 2k+1: '
        'disjoint sets)')
    parser.add_argument(
        '--rejected',
        help='json list of [anchor_key, neighbour_key] pairs to leave out')
    parser.add_argument(
        '--any-anchor',
        action='store_true',
        help='allow anchors without boxes (default: anchors have boxes)')
    parser.add_argument(
        '--labels-out',
        help='also write {frame_key: [class_idx, ...]} (classes of the '
        "frame's boxes, by category order) for the classification metrics")
    return parser.parse_args(argv)


@cli_entry
def main():
    args = parse_args()
    from robustdet.datasets.neighbor_builder import (build_neighbor_sets,
                                                     frame_labels)
    from robustdet.utils.errors import RobustDetError
    from robustdet.utils.io import dump_json_atomic
    from robustdet.utils.pmsets import read_json
    coco = read_json(args.ann, 'annotation')
    if not isinstance(coco, dict) or not coco.get('images'):
        raise RobustDetError(f'{args.ann} has no images')
    rejected = read_json(args.rejected, 'rejected pairs') \
        if args.rejected else []
    if not isinstance(rejected, list) or not all(
            isinstance(p, list) and len(p) == 2 for p in rejected):
        raise RobustDetError(
            f'{args.rejected} must be a list of [anchor_key, neighbour_key]')
    annotated = None
    if not args.any_anchor:
        ids = {a['image_id'] for a in coco.get('annotations', [])}
        annotated = {
            img['file_name']
            for img in coco['images'] if img['id'] in ids
        }
    sets = build_neighbor_sets(
        coco['images'],
        k=args.k,
        anchors_per_video=args.anchors_per_video,
        seed=args.seed,
        min_gap=args.min_gap,
        rejected=[tuple(p) for p in rejected],
        annotated=annotated)
    dump_json_atomic(sets, args.out)
    frames = len(sets) + sum(len(v) for v in sets.values())
    print(f'{len(sets)} anchors, {frames} frames -> {args.out}')
    if args.labels_out:
        dump_json_atomic(frame_labels(coco, sets), args.labels_out)
        print(f'frame labels -> {args.labels_out}')


if __name__ == '__main__':
    main()
