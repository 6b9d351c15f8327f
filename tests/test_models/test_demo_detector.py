# Copyright (c) robustdet contributors. All rights reserved.
"""The tiny demo detectors are real mmdet models: they build, train one
epoch and test through mmengine's Runner, and save checkpoints that the
safe loader reads back."""
import glob

import pytest
import torch
from mmengine.runner import Runner

from robustdet.utils import load_checkpoint_file, load_checkpoint_to_runner
from tests.conftest import FRCNN_DEMO, MASK_DEMO


@pytest.mark.parametrize('config,metrics', [
    (FRCNN_DEMO, ('coco/bbox_mAP', )),
    (MASK_DEMO, ('coco/bbox_mAP', 'coco/segm_mAP')),
])
def test_train_iteration_and_test_pass(small_cfg_factory, config, metrics):
    cfg = small_cfg_factory(config)
    cfg.train_cfg.max_epochs = 1
    cfg.train_cfg.val_interval = 1
    cfg.param_scheduler = []
    runner = Runner.from_cfg(cfg)
    before = {k: v.clone() for k, v in runner.model.state_dict().items()}
    runner.train()
    assert runner.iter >= 1
    changed = [
        k for k, v in runner.model.state_dict().items()
        if v.dtype.is_floating_point and not torch.equal(v, before[k])
    ]
    assert changed, 'one training iteration must update the weights'

    # The checkpoint the runner saved has numpy scalars and HistoryBuffers
    # (plain torch.load refuses it); robustdet's loader takes it.
    ckpt_path, = glob.glob(f'{cfg.work_dir}/epoch_1.pth')
    ckpt = load_checkpoint_file(ckpt_path)
    assert 'message_hub' in ckpt and 'state_dict' in ckpt

    cfg.load_from = None
    test_runner = Runner.from_cfg(cfg)
    load_checkpoint_to_runner(test_runner, ckpt_path)
    for k, v in test_runner.model.state_dict().items():
        assert torch.equal(v, runner.model.state_dict()[k]), k
    results = test_runner.test()
    for m in metrics:
        assert m in results and 0.0 <= results[m] <= 1.0
