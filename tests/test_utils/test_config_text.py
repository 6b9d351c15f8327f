# Copyright (c) robustdet contributors. All rights reserved.
import copy
import glob
import os.path as osp
import pickle

from mmengine.config import Config

from robustdet.apis.testing import build_test_runner
from robustdet.utils import config_text
from robustdet.utils.config_text import FormattedOnceConfig, format_once


def test_same_text_as_mmengine_made_once(demo_checkpoint):
    config, _ = demo_checkpoint
    plain = Config.fromfile(config)
    cfg = format_once(plain)
    assert type(cfg) is FormattedOnceConfig and cfg is not plain
    assert cfg.pretty_text == plain.pretty_text
    # Kept under its unformatted text, and found there the next time.
    raw = [k for k, v in config_text._FORMATTED.items()
           if v == plain.pretty_text]
    assert len(raw) == 1
    config_text._FORMATTED[raw[0]] = 'kept'
    assert cfg.pretty_text == 'kept'
    del config_text._FORMATTED[raw[0]]
    # A change is a new text; copies and pickles keep the class.
    for other in (copy.deepcopy(cfg), copy.copy(cfg),
                  pickle.loads(pickle.dumps(cfg))):
        assert type(other) is FormattedOnceConfig
    cfg.test_dataloader.batch_size = 7
    plain.test_dataloader.batch_size = 7
    assert 'batch_size=7' in cfg.pretty_text
    assert cfg.pretty_text == plain.pretty_text
    # Without formatting, mmengine's unformatted text.
    bare = Config.fromfile(config, format_python_code=False)
    assert format_once(bare).pretty_text == bare.pretty_text


def test_runner_dumps_mmengine_text(demo_checkpoint, tmp_path):
    config, ckpt = demo_checkpoint
    plain = Config.fromfile(config)
    runner = build_test_runner(plain, ckpt, str(tmp_path / 'work'))
    assert type(runner.cfg) is FormattedOnceConfig
    assert type(plain) is Config  # the caller's config is not touched
    dumped = glob.glob(str(tmp_path / 'work' / '*.py'))
    assert [osp.basename(p) for p in dumped] == [osp.basename(config)]
    with open(dumped[0], encoding='utf-8') as f:
        assert f.read() == runner.cfg.pretty_text
    expected = Config(runner.cfg.to_dict()).pretty_text
    assert runner.cfg.pretty_text == expected
