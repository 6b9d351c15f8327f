# Copyright (c) robustdet contributors. All rights reserved.
"""Hand-made shift.json files, for the tools that read them."""
import json

from robustdet.apis.shift import FORMAT, get_benchmark, shift_summary


def shift_json(path, coco, domains, benchmark='coco-o', config='a.py'):
    """Write a hand-made ``shift.json`` of ``benchmark`` at ``path`` (a
    pathlib path): the reference split's ``coco/bbox_mAP`` is ``coco``, the
    other splits' are ``domains`` in order; the summary is the benchmark's
    own ``shift_summary``. Returns the path as a string."""
    bench = get_benchmark(benchmark)
    names = bench.split_names
    splits = {names[0]: {'coco/bbox_mAP': coco}}
    splits.update({s: {'coco/bbox_mAP': v}
                   for s, v in zip(names[1:], domains)})
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(dict(
        format=FORMAT, benchmark=benchmark, config=config,
        reference=bench.reference, splits=splits,
        summary=shift_summary(bench, splits))))
    return str(path)


def coco_o_result(path, level=0.42, step=0.03):
    """Write a complete COCO-O ``shift.json`` as ``tools/test_shift.py``
    writes it (identity, sources, times) at ``path`` (a pathlib path):
    split ``i`` (the reference first) has ``coco/bbox_mAP`` ``level -
    step * i``. Returns the dict."""
    bench = get_benchmark('coco-o')
    splits = {
        s: {'coco/bbox_mAP': level - step * i}
        for i, s in enumerate(bench.split_names)
    }
    r = dict(
        format=FORMAT, robustdet_version='0.1.0',
        benchmark='coco-o', config_sha256='5a' * 32,
        checkpoint_sha256='6b' * 32, coco_o_root='/data/coco-o',
        config='configs/shift.py', checkpoint='shift.pth',
        reference=bench.reference, table=bench.table,
        mean_name=bench.mean_name, splits=splits,
        seconds={s: 1.0 for s in splits},
        summary=shift_summary(bench, splits))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(r))
    return r
