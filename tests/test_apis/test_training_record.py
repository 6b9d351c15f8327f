# Copyright (c) robustdet contributors. All rights reserved.
"""What a detector saw in training: recorded from its config by
test_robust.py, and warned about in every report."""
import copy
import os.path as osp

from mmengine.config import Config

from robustdet.apis.results import RESULTS_FILE, load_results
from robustdet.apis.training_record import training_corruptions
from robustdet.reports import markdown_report, summary_text
from robustdet.reports.runs import training_warning
from tests.conftest import DEMO_CONFIGS, REPO, replace_data_root
from tests.tool_process import run_tool

RANDCORRUPT = osp.join(DEMO_CONFIGS,
                       'faster-rcnn_r18-c16_fpn-c64_3e_demo-coco-randcorrupt.py')
HOLDOUT = ['speckle_noise', 'gaussian_blur', 'spatter', 'saturate']


def test_training_corruptions_of_configs():
    assert training_corruptions(Config.fromfile(osp.join(
        DEMO_CONFIGS, 'faster-rcnn_r18-c16_fpn-c64_3e_demo-coco.py'))) is None
    cfg = Config.fromfile(RANDCORRUPT)
    assert training_corruptions(cfg) == dict(
        transform='RandomCorrupt', corruptions=HOLDOUT, benchmark=[])
    # Combined with stylized data: every pipeline's step counts.
    combined = Config.fromfile(osp.join(
        REPO, 'configs', 'robust_training',
        'faster-rcnn_r50_fpn_1x_cocoscoco-randcorrupt.py'))
    assert training_corruptions(combined)['corruptions'] == HOLDOUT
    # Benchmark corruptions, allowed: named as such.
    step = copy.deepcopy(cfg.random_corrupt)
    step.update(corruptions=['fog', 'saturate'], allow_benchmark=True)
    cfg.train_dataloader.dataset.pipeline[1] = step
    assert training_corruptions(cfg) == dict(
        transform='RandomCorrupt', corruptions=['fog', 'saturate'],
        benchmark=['fog'])


def test_reports_warn():
    results = dict(training_corruptions=dict(
        transform='RandomCorrupt', corruptions=HOLDOUT, benchmark=[]))
    assert 'their cells are not unseen corruptions' in training_warning(
        results)
    results['training_corruptions'].update(benchmark=['fog'])
    assert 'mPC no longer measures' in training_warning(results)
    assert training_warning({}) is None


def test_test_robust_records_it(demo_dir, demo_checkpoint, tmp_path):
    _, ckpt = demo_checkpoint
    cfg = replace_data_root(Config.fromfile(RANDCORRUPT), demo_dir)
    cfg.test_dataloader.num_workers = 0
    cfg.test_dataloader.persistent_workers = False
    config = str(tmp_path / 'randcorrupt.py')
    cfg.dump(config)
    proc = run_tool('tools/test_robust.py', config, ckpt, '--corruptions',
                    'saturate', '--severities', '0', '--work-dir',
                    str(tmp_path / 'w'), cwd=REPO)
    assert proc.returncode == 0, proc.stderr[-3000:]
    results = load_results(str(tmp_path / 'w' / RESULTS_FILE))
    assert results['training_corruptions']['corruptions'] == HOLDOUT
    assert 'warning: trained with RandomCorrupt on speckle_noise' in \
        summary_text(results)
    assert '- **trained with RandomCorrupt' in markdown_report(results)
    assert 'warning: trained with RandomCorrupt' in proc.stdout
