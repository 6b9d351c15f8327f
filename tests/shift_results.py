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
