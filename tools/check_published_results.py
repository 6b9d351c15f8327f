# Copyright (c) robustdet contributors. All rights reserved.
"""Import the raw result pickles published with Michaelis et al. 2019 and
check that they give the paper's P / mPC / rPC (``robustdet.baselines``)::

    git clone https://github.com/bethgelab/robust-detection-benchmark
    python tools/check_published_results.py robust-detection-benchmark

Every pickle :data:`PUBLISHED` knows, found anywhere under the directory,
is imported with ``robustdet.apis.import_results`` (the safe loader: nothing
in the files runs) and its P, mPC and rPC, rounded to one decimal as
published, are compared with the leaderboard rows it backs. Prints one
line per row and exits with status 1 if any differs.
"""
import os
import os.path as osp
import tempfile

from robustdet.utils.cli import ArgumentParser, cli_entry

_COCO = 'michaelis2019/coco/'
_CITY = 'michaelis2019/cityscapes/'
# Published file name -> (dataset, leaderboard rows it backs).
PUBLISHED = {
    'faster_rcnn_r50_fpn_1x_coco_results.pkl':
    ('coco', [_COCO + 'faster-rcnn_r50_fpn/standard/bbox']),
    # the same models under the repository's shorter names
    'faster_rcnn_r50_fpn_1x_results.pkl':
    ('coco', [_COCO + 'faster-rcnn_r50_fpn/standard/bbox']),
    'mask_rcnn_r50_fpn_1x_results.pkl':
    ('coco', [_COCO + 'mask-rcnn_r50_fpn/standard/bbox',
              _COCO + 'mask-rcnn_r50_fpn/standard/segm']),
    'faster_rcnn_r50_fpn_1x_scoco_results.pkl':
    ('coco', [_COCO + 'faster-rcnn_r50_fpn/stylized/bbox']),
    'faster_rcnn_r50_fpn_1x_cocoscoco_results.pkl':
    ('coco', [_COCO + 'faster-rcnn_r50_fpn/combined/bbox']),
    'faster_rcnn_r101_fpn_1x_results.pkl':
    ('coco', [_COCO + 'faster-rcnn_r101_fpn/standard/bbox']),
    'faster_rcnn_x101_32x4d_fpn_1x_results.pkl':
    ('coco', [_COCO + 'faster-rcnn_x101-32x4d_fpn/standard/bbox']),
    'faster_rcnn_x101_64x4d_fpn_1x_results.pkl':
    ('coco', [_COCO + 'faster-rcnn_x101-64x4d_fpn/standard/bbox']),
    'faster_rcnn_dconv_c3-c5_r50_fpn_1x_results.pkl':
    ('coco', [_COCO + 'faster-rcnn_r50-dconv-c3-c5_fpn/standard/bbox']),
    'faster_rcnn_dconv_c3-c5_x101_32x4d_fpn_1x_results.pkl':
    ('coco', [_COCO + 'faster-rcnn_x101-32x4d-dconv-c3-c5_fpn/standard/bbox']),
    'mask_rcnn_r50_fpn_1x_coco_results.pkl':
    ('coco', [_COCO + 'mask-rcnn_r50_fpn/standard/bbox',
              _COCO + 'mask-rcnn_r50_fpn/standard/segm']),
    'mask_rcnn_r50_fpn_1x_scoco_results.pkl':
    ('coco', [_COCO + 'mask-rcnn_r50_fpn/stylized/segm']),
    'mask_rcnn_r50_fpn_1x_cocoscoco_results.pkl':
    ('coco', [_COCO + 'mask-rcnn_r50_fpn/combined/segm']),
    'mask_rcnn_dconv_c3-c5_r50_fpn_1x_results.pkl':
    ('coco', [_COCO + 'mask-rcnn_r50-dconv-c3-c5_fpn/standard/bbox',
              _COCO + 'mask-rcnn_r50-dconv-c3-c5_fpn/standard/segm']),
    'cascade_rcnn_r50_fpn_1x_results.pkl':
    ('coco', [_COCO + 'cascade-rcnn_r50_fpn/standard/bbox']),
    'cascade_mask_rcnn_r50_fpn_1x_results.pkl':
    ('coco', [_COCO + 'cascade-mask-rcnn_r50_fpn/standard/bbox',
              _COCO + 'cascade-mask-rcnn_r50_fpn/standard/segm']),
    'retinanet_r50_fpn_1x_results.pkl':
    ('coco', [_COCO + 'retinanet_r50_fpn/standard/bbox']),
    'htc_dconv_c3-c5_mstrain_400_1400_x101_64x4d_fpn_20e_results.pkl':
    ('coco', [_COCO + 'htc_x101-64x4d-dconv-c3-c5_fpn/standard/bbox',
              _COCO + 'htc_x101-64x4d-dconv-c3-c5_fpn/standard/segm']),
    'faster_rcnn_r50_fpn_1x_voc0712_results.pkl':
    ('voc', ['michaelis2019/voc/faster-rcnn_r50_fpn/standard/bbox']),
    'faster_rcnn_r50_fpn_1x_svoc0712_results.pkl':
    ('voc', ['michaelis2019/voc/faster-rcnn_r50_fpn/stylized/bbox']),
    'faster_rcnn_r50_fpn_1x_vocsvoc0712_results.pkl':
    ('voc', ['michaelis2019/voc/faster-rcnn_r50_fpn/combined/bbox']),
    'faster_rcnn_r50_fpn_1x_city_results.pkl':
    ('cityscapes', [_CITY + 'faster-rcnn_r50_fpn/standard/bbox']),
    'faster_rcnn_r50_fpn_1x_scity_results.pkl':
    ('cityscapes', [_CITY + 'faster-rcnn_r50_fpn/stylized/bbox']),
    'faster_rcnn_r50_fpn_1x_cityscity_results.pkl':
    ('cityscapes', [_CITY + 'faster-rcnn_r50_fpn/combined/bbox']),
    'mask_rcnn_r50_fpn_1x_city_results.pkl':
    ('cityscapes', [_CITY + 'mask-rcnn_r50_fpn/standard/bbox',
                    _CITY + 'mask-rcnn_r50_fpn/standard/segm']),
    'mask_rcnn_r50_fpn_1x_scity_results.pkl':
    ('cityscapes', [_CITY + 'mask-rcnn_r50_fpn/stylized/segm']),
    'mask_rcnn_r50_fpn_1x_cityscity_results.pkl':
    ('cityscapes', [_CITY + 'mask-rcnn_r50_fpn/combined/segm']),
}


def parse_args(argv=None):
    parser = ArgumentParser(
        description="Check the paper's raw pickles against its tables")
    parser.add_argument(
        'directory', help='a checkout of bethgelab/robust-detection-benchmark')
    return parser.parse_args(argv)


def _found(directory):
    """(path, file name) of every known pickle under ``directory``."""
    for root, dirs, files in os.walk(directory):
        dirs.sort()
        for name in sorted(files):
            if name in PUBLISHED:
                yield osp.join(root, name), name


def _check(path, name, work):
    from robustdet.apis import import_results
    from robustdet.baselines import get_baseline, metric_of
    dataset, rows = PUBLISHED[name]
    results = import_results([path], dataset, work)
    lines, ok = [], True
    for row_name in rows:
        row = get_baseline(row_name)
        summary = results['summary'].get(metric_of(dataset, row.task), {})
        got = tuple(
            None if summary.get(k) is None else round(100 * summary[k], 1)
            for k in ('P', 'mPC', 'rPC'))
        want = (row.P, row.mPC, row.rPC)
        # A row whose published rPC is not its mPC / P: P and mPC only.
        same = got == want if row.consistent else got[:2] == want[:2]
        ok &= same
        lines.append(f'{"ok  " if same else "DIFF"} {row_name}: imported '
                     f'{got}, published {want}  ({path})' +
                     ('' if row.consistent else
                      '; the published rPC is not mPC / P, not compared'))
    return ok, lines


@cli_entry
def main():
    args = parse_args()
    from robustdet.utils.errors import RobustDetError
    if not osp.isdir(args.directory):
        raise RobustDetError(f'{args.directory} is not a directory')
    found = list(_found(args.directory))
    if not found:
        raise RobustDetError(
            f'{args.directory} holds none of the published pickles (e.g. '
            'results/coco/faster_rcnn_r50_fpn_1x_coco_results.pkl)')
    all_ok = True
    with tempfile.TemporaryDirectory() as tmp:
        for i, (path, name) in enumerate(found):
            ok, lines = _check(path, name, osp.join(tmp, str(i)))
            all_ok &= ok
            print('\n'.join(lines))
    print(f'{len(found)} files: '
          f'{"all as published" if all_ok else "some differ"}')
    return 0 if all_ok else 1


if __name__ == '__main__':
    main()
