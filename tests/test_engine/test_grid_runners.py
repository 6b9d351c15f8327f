# Copyright (c) robustdet contributors. All rights reserved.
"""The two grid runners give the same numbers: passes of cells from one
dataloader (PassRunner, mmengine's TestLoop) and the config's own test
loop, one cell at a time (CellLoopRunner)."""
import copy
import warnings

import pytest
from mmengine.registry import LOOPS
from mmengine.runner import TestLoop

from robustdet.apis import RobustnessJob, load_results, run_robustness
from robustdet.apis.robustness import prepare_results
from robustdet.apis.testing import build_test_runner
from robustdet.corruptions.grid import plan_passes
from robustdet.engine import GridProgressHook
from robustdet.utils.cli import load_config

CORRUPTIONS = ['gaussian_noise', 'fog']
SEVERITIES = [0, 3]


@LOOPS.register_module()
class _CountingTestLoop(TestLoop):
    """mmengine's TestLoop under another name, counting its runs."""
    runs = []

    def run(self):
        metrics = super().run()
        type(self).runs.append(len(self.dataloader.dataset))
        return metrics


def _run(config, ckpt, work_dir, cells_per_pass, loop=None):
    cfg = load_config(config)
    if loop is not None:
        cfg.test_cfg = dict(type=loop)
    job = RobustnessJob(config, ckpt, str(work_dir), CORRUPTIONS,
                        severities=SEVERITIES, cells_per_pass=cells_per_pass)
    results = run_robustness(job, cfg)
    assert load_results(job.results_file) == results
    return results


@pytest.fixture(scope='module')
def passes(demo_checkpoint, tmp_path_factory):
    """The grid, two cells per pass, through run_robustness."""
    config, ckpt = demo_checkpoint
    return _run(config, ckpt, tmp_path_factory.mktemp('passes'), 2)


def test_custom_loop_equals_passes(demo_checkpoint, passes, tmp_path):
    config, ckpt = demo_checkpoint
    _CountingTestLoop.runs.clear()
    custom = _run(config, ckpt, tmp_path / 'custom', 1, '_CountingTestLoop')
    # One run of the config's loop per cell, each over the whole test set.
    assert _CountingTestLoop.runs == [4] * 3
    for key in ('clean', 'cells', 'summary', 'empty_cells'):
        assert custom[key] == passes[key], key
    assert passes['clean']['coco/bbox_mAP'] > 0
    assert set(custom['seconds']) == {'clean', 'gaussian_noise/3', 'fog/3'}


def test_former_pass_runner_call(demo_checkpoint, passes, tmp_path):
    """robustdet.apis.passes.PassRunner, deprecated, still runs as it was
    called before the engine existed (the caller registers the progress
    hook and calls the run hooks) and records the numbers of
    run_robustness."""
    with warnings.catch_warnings():
        warnings.simplefilter('ignore', DeprecationWarning)
        from robustdet.apis.passes import PassRunner
    config, ckpt = demo_checkpoint
    cfg = load_config(config)
    job = RobustnessJob(config, ckpt, str(tmp_path / 'old'), CORRUPTIONS,
                        severities=SEVERITIES, cells_per_pass=2)
    results = prepare_results(job, cfg)
    runner = build_test_runner(cfg, ckpt, job.work_dir)
    progress = GridProgressHook(job.cells())
    runner.register_hook(progress, priority='VERY_LOW')
    runner.call_hook('before_run')
    PassRunner(runner, job, copy.deepcopy(cfg.test_dataloader),
               dict(cfg.test_cfg), cfg.test_evaluator, progress,
               results).run(plan_passes(job.cells(), 2))
    runner.call_hook('after_run')
    for key in ('clean', 'cells', 'summary'):
        assert results[key] == passes[key], key
    assert load_results(job.results_file)['cells'] == passes['cells']
