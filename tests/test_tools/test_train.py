# Copyright (c) robustdet contributors. All rights reserved.
"""tools/train.py launched over 2 processes (gloo, CPU): mmengine's
distributed training with robustdet's launcher setup (a model wrapper
without CUDA devices), rank 0 writing the logs and checkpoints. Not
cpu_sensitive: nothing here depends on the weights it trains."""
import glob
import os

import torch

from robustdet.utils import load_checkpoint_file
from tests.conftest import FRCNN_DEMO, REPO
from tests.tool_process import run_ranks, run_tool


def test_two_processes(small_cfg_factory, tmp_path):
    cfg = small_cfg_factory(FRCNN_DEMO)
    cfg.train_cfg.max_epochs = 1
    cfg.param_scheduler = []
    config = str(tmp_path / 'train_config.py')
    cfg.dump(config)
    work = tmp_path / 'w'
    procs = run_ranks('tools/train.py', config, '--work-dir', work, cwd=REPO)
    for proc in procs:
        assert proc.returncode == 0, proc.stderr[-3000:]
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


def test_resume(small_cfg_factory, tmp_path):
    """--resume continues from the last checkpoint: mmengine loads it with
    torch's weights_only loader, which needs robustdet's allow-list for
    mmengine's own HistoryBuffer (torch >= 2.6)."""
    cfg = small_cfg_factory(FRCNN_DEMO)
    cfg.train_cfg.max_epochs = 1
    cfg.param_scheduler = []
    config = str(tmp_path / 'train_config.py')
    cfg.dump(config)
    work = tmp_path / 'w'
    first = run_tool('tools/train.py', config, '--work-dir', str(work),
                     cwd=REPO)
    assert first.returncode == 0, first.stderr[-3000:]
    cfg.train_cfg.max_epochs = 2
    cfg.dump(config)
    again = run_tool('tools/train.py', config, '--work-dir', str(work),
                     '--resume', cwd=REPO)
    assert again.returncode == 0, again.stderr[-3000:]
    assert 'resumed epoch: 1' in again.stdout + again.stderr
    assert (work / 'epoch_2.pth').exists()
