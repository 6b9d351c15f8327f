# Copyright (c) robustdet contributors. All rights reserved.
"""tools/train.py launched over 2 processes (gloo, CPU): mmengine's
distributed training with robustdet's launcher setup (a model wrapper
without CUDA devices), rank 0 writing the logs and checkpoints; resume,
and the training record every checkpoint carries. Not cpu_sensitive:
nothing here depends on the weights it trains."""
import glob
import os
import time

import pytest
import torch

from robustdet.apis.training_record import run_training_record
from robustdet.datasets.training_record import RECORD_KEY
from robustdet.evaluation.functional.run_results import training_warning
from robustdet.utils import load_checkpoint_file
from tests.conftest import DEMO_CONFIGS, FRCNN_DEMO, REPO
from tests.tool_process import (check_only_rank0_writes,
                                check_stuck_rank_stopped, run_ranks, run_tool)

RANDCORRUPT_DEMO = os.path.join(
    DEMO_CONFIGS, 'faster-rcnn_r18-c16_fpn-c64_3e_demo-coco-randcorrupt.py')


def test_two_processes(small_cfg_factory, tmp_path):
    cfg = small_cfg_factory(FRCNN_DEMO)
    cfg.train_cfg.max_epochs = 1
    cfg.param_scheduler = []
    config = str(tmp_path / 'train_config.py')
    cfg.dump(config)
    work = tmp_path / 'w'
    audit = tmp_path / 'audit'
    audit.mkdir()
    procs = run_ranks('tools/train.py', config, '--work-dir', work, cwd=REPO,
                      audit=audit)
    for proc in procs:
        assert proc.returncode == 0, proc.stderr[-3000:]
    check_only_rank0_writes(audit, work)
    ckpt = load_checkpoint_file(str(work / 'epoch_1.pth'))
    weights = ckpt['state_dict']
    assert weights and all(torch.isfinite(v).all() for v in
                           weights.values() if v.is_floating_point())
    logs = glob.glob(str(work / '*' / '*.log'))
    assert len(logs) == 1  # rank 0's
    text = open(logs[0]).read()
    assert 'Distributed training: True' in text
    assert "type='MMDistributedDataParallel'" in text
    files = sorted(f for f in os.listdir(work) if not f[0].isdigit())
    assert files == ['epoch_1.pth', 'last_checkpoint', 'train_config.py']


@pytest.mark.waits
def test_a_stuck_rank_stops_the_others(small_cfg_factory, tmp_path):
    """Rank 1's main thread stuck at the end of its second iteration
    (:class:`tests.slow_metric.StuckHook`) while its process and heartbeat
    live on: the watchdog hook (:class:`~robustdet.engine.WatchdogHook`)
    stops its heartbeat after --dist-stall-timeout (5 s), and both ranks
    end with status 3 and rank 0's one line, long before --dist-timeout
    (120 s)."""
    cfg = small_cfg_factory(FRCNN_DEMO)
    cfg.train_cfg.max_epochs = 2
    cfg.param_scheduler = []
    cfg.custom_imports = dict(imports=['robustdet', 'tests.slow_metric'],
                              allow_failed_imports=False)
    cfg.custom_hooks = [dict(type='StuckHook', stuck_rank=1, stuck_at=2)]
    config = str(tmp_path / 'stuck_config.py')
    cfg.dump(config)
    start = time.time()
    procs = run_ranks('tools/train.py', config, '--work-dir', tmp_path / 'w',
                      '--dist-timeout', '120', '--dist-stall-timeout', '5',
                      cwd=REPO, env=dict(PYTHONPATH=REPO), timeout=120)
    check_stuck_rank_stopped(procs, time.time() - start)


def test_resume(small_cfg_factory, tmp_path):
    """--resume continues from the last checkpoint: mmengine loads it with
    torch's weights_only loader, which needs robustdet's allow-list for
    mmengine's own HistoryBuffer (torch >= 2.6).

    Every checkpoint records what the model was trained on: epoch 1 with
    RandomCorrupt on fog (a benchmark corruption, allowed), epoch 2
    resumed without it keeps fog; a test under the plain config is
    marked from the checkpoint alone."""
    cfg = small_cfg_factory(RANDCORRUPT_DEMO)
    cfg.train_dataloader.dataset.dataset.pipeline[1].update(
        corruptions=['fog', 'saturate'], allow_benchmark=True)
    cfg.train_cfg.max_epochs = 1
    cfg.param_scheduler = []
    config = str(tmp_path / 'train_config.py')
    cfg.dump(config)
    work = tmp_path / 'w'
    first = run_tool('tools/train.py', config, '--work-dir', str(work),
                     cwd=REPO)
    assert first.returncode == 0, first.stderr[-3000:]
    record = load_checkpoint_file(str(work / 'epoch_1.pth'))['meta'][
        RECORD_KEY]
    assert record['transforms'] == ['RandomCorrupt']
    assert record['corruptions'] == ['fog', 'saturate']
    assert record['benchmark'] == ['fog'] and record['config_sha256']

    plain = small_cfg_factory(FRCNN_DEMO)
    plain.train_cfg.max_epochs = 2
    plain.param_scheduler = []
    plain.dump(config)
    again = run_tool('tools/train.py', config, '--work-dir', str(work),
                     '--resume', cwd=REPO)
    assert again.returncode == 0, again.stderr[-3000:]
    assert 'resumed epoch: 1' in again.stdout + again.stderr
    path = str(work / 'epoch_2.pth')
    resumed = load_checkpoint_file(path)['meta'][RECORD_KEY]
    assert resumed['corruptions'] == ['fog', 'saturate']
    assert resumed['config_sha256'].count(',') == 1  # both configs
    trained = run_training_record(load_checkpoint_file(path), path, plain)
    assert trained['source'] == 'checkpoint'
    assert 'mPC no longer measures' in training_warning(
        dict(training_corruptions=trained))
