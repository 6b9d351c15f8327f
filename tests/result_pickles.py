# Copyright (c) robustdet contributors. All rights reserved.
"""Result files of other robustness tools, generated in their layouts:
mmdet 1.x/2.x eval dicts and the paper's grids (every corruption repeats
the clean cell as severity 0)."""
import collections

import numpy as np

from robustdet.corruptions import BENCHMARK_CORRUPTIONS, IMAGENET_C_CORRUPTIONS
from tests.py2_pickle import dumps_py2

COCO_KEYS = ('AP', 'AP50', 'AP75', 'APs', 'APm', 'APl', 'AR1', 'AR10',
             'AR100', 'ARs', 'ARm', 'ARl')


def coco_eval(ap, segm=None):
    """An mmdet 1.x/2.x eval dict (COCOeval stats as numpy float64)."""
    out = {'bbox': {k: np.float64(ap) for k in COCO_KEYS}}
    out['bbox']['APl'] = np.float64(min(1.0, ap + 0.1))
    if segm is not None:
        out['segm'] = {k: np.float64(segm) for k in COCO_KEYS}
    return out


def paper_grid(clean,
               cell,
               names=IMAGENET_C_CORRUPTIONS,
               severities=range(1, 6)):
    """The paper's layout: every corruption repeats the clean cell (the
    same object) as severity 0, benchmark corruptions first."""
    grid = collections.OrderedDict()
    for name in names:
        grid[name] = {0: clean}
        for sev in severities:
            grid[name][sev] = cell(name, sev)
    return grid


def write_file(path, data):
    """Write bytes; return the path as str."""
    path.write_bytes(data)
    return str(path)


def published_like(tmp_path, row):
    """A Python 2 pickle whose benchmark cells spread around P * rPC
    (the published mPC is rounded too coarsely to give rPC back), with
    hold-out cells far off, so that only the right cells, averaged the
    paper's way, give the row's numbers."""
    offsets = np.linspace(-0.06, 0.06, 75).reshape(15, 5)
    bench = {n: i for i, n in enumerate(BENCHMARK_CORRUPTIONS)}
    mpc = row.P / 100 * row.rPC / 100

    def cell(name, sev):
        if name in bench:
            return coco_eval(mpc + offsets[bench[name], sev - 1])
        return coco_eval(0.9)

    grid = paper_grid(coco_eval(row.P / 100), cell)
    return write_file(tmp_path / 'faster_rcnn_r50_fpn_1x_coco_results.pkl',
                      dumps_py2(grid))


def voc_like(path, row):
    """A Python 2 VOC pickle whose per-class AP50 give the row's P and
    P * rPC (the paper's convention), classes losing unequally: strong
    classes keep more, so mmdet's class-mean rPC is another number."""
    p = np.linspace(row.P - 10, row.P + 10, 20) / 100
    # keep_c = rPC * (1 + d_c) with sum(p_c * d_c) = 0
    keep = row.rPC / 100 * (1 + 2 * (p - (p * p).sum() / p.sum()))
    grid = paper_grid([{'ap': np.float32(v)} for v in p],
                      lambda n, s: [{'ap': np.float32(v * k)}
                                    for v, k in zip(p, keep)])
    path.write_bytes(dumps_py2(grid))
