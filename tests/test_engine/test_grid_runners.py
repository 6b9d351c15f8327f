# Copyright (c) robustdet contributors. All rights reserved.
"""The two grid runners give the same numbers: passes of cells from one
dataloader (PassRunner, mmengine's TestLoop) and the config's own test
loop, one cell at a time (CellLoopRunner)."""
from mmengine.config import Config
from mmengine.registry import LOOPS
from mmengine.runner import TestLoop

from robustdet.apis import RobustnessJob, load_results, run_robustness

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
    cfg = Config.fromfile(config)
    if loop is not None:
        cfg.test_cfg = dict(type=loop)
    job = RobustnessJob(config, ckpt, str(work_dir), CORRUPTIONS,
                        severities=SEVERITIES, cells_per_pass=cells_per_pass)
    results = run_robustness(job, cfg)
    assert load_results(job.results_file) == results
    return results


def test_custom_loop_equals_passes(demo_checkpoint, tmp_path):
    config, ckpt = demo_checkpoint
    passes = _run(config, ckpt, tmp_path / 'passes', 2)
    _CountingTestLoop.runs.clear()
    custom = _run(config, ckpt, tmp_path / 'custom', 1, '_CountingTestLoop')
    # One run of the config's loop per cell, each over the whole test set.
    assert _CountingTestLoop.runs == [4] * 3
    for key in ('clean', 'cells', 'summary', 'empty_cells'):
        assert custom[key] == passes[key], key
    assert passes['clean']['coco/bbox_mAP'] > 0
    assert set(custom['seconds']) == {'clean', 'gaussian_noise/3', 'fog/3'}
