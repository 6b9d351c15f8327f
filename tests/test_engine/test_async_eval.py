# Copyright (c) robustdet contributors. All rights reserved.
"""When a run scores its passes beside inference (--eval-overlap): the
metrics that can be copied ahead, 'auto' by core count, one line for a
refusal. The numbers, resume, a failed evaluation and a killed run:
tests/test_tools/test_test_robust.py."""
import pytest

from robustdet.engine.runner import async_eval
from robustdet.engine.runner.async_eval import (overlap_supported,
                                                resolve_overlap)
from robustdet.utils.errors import RobustDetError

COCO = dict(type='CocoMetric', ann_file='a.json', metric='bbox')


def test_supported_metrics():
    assert overlap_supported(COCO)
    assert overlap_supported([COCO, dict(COCO, type='FastCocoMetric')])
    assert overlap_supported(dict(metrics=[COCO]))
    assert not overlap_supported(dict(COCO, ann_file=None))
    assert not overlap_supported(dict(type='VOCMetric'))
    assert not overlap_supported([COCO, dict(type='PMKMetric')])


def test_resolve(monkeypatch):
    monkeypatch.setattr(async_eval.os, 'sched_getaffinity',
                        lambda pid: set(range(2)))
    assert not resolve_overlap('auto', COCO, False)
    assert resolve_overlap('on', COCO, False)
    assert not resolve_overlap('off', COCO, False)
    monkeypatch.setattr(async_eval.os, 'sched_getaffinity',
                        lambda pid: set(range(16)))
    assert resolve_overlap('auto', COCO, False)
    assert not resolve_overlap('auto', COCO, True)  # pipeline ground truth
    assert not resolve_overlap('auto', dict(type='VOCMetric'), False)
    with pytest.raises(RobustDetError, match='--eval-overlap on needs'):
        resolve_overlap('on', dict(type='VOCMetric'), False)
    with pytest.raises(RobustDetError, match="--eval-overlap 'maybe'"):
        resolve_overlap('maybe', COCO, False)
