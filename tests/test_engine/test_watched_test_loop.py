# Copyright (c) robustdet contributors. All rights reserved.
"""The test loop of test_shift.py and test_pmk.py: mmengine's, watched
(the stuck-rank test: tests/test_tools/test_test_shift.py)."""
from mmdet.registry import LOOPS
from mmengine import runner

from robustdet.engine import WatchedTestLoop, watched_test_cfg


def test_plain_test_loops_are_replaced_others_kept():
    assert watched_test_cfg(dict(type='TestLoop', fp16=True)) == dict(
        type='WatchedTestLoop', fp16=True)
    assert watched_test_cfg(dict(type='mmengine.TestLoop')) == dict(
        type='WatchedTestLoop')
    assert watched_test_cfg(dict()) == dict(type='WatchedTestLoop')
    assert watched_test_cfg(None) == dict(type='WatchedTestLoop')
    other = dict(type='ValLoop')
    assert watched_test_cfg(other) is other


def test_registered_as_mmengine_test_loop():
    assert LOOPS.get('WatchedTestLoop') is WatchedTestLoop
    assert issubclass(WatchedTestLoop, runner.TestLoop)
