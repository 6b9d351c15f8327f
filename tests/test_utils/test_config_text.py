# Copyright (c) robustdet contributors. All rights reserved.
import copy
import glob
import os.path as osp
import pickle

import pytest
from mmengine.config import Config
from mmengine.fileio import load
from mmengine.fileio.handlers import YamlHandler, file_handlers

from robustdet.apis.testing import build_test_runner
from robustdet.utils import config_text
from robustdet.utils.cli import load_config
from robustdet.utils.config_text import (FormattedOnceConfig,
                                         ParsedOnceYamlHandler, format_once,
                                         yaml_parsed_once)
from tests.conftest import REPO


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


def test_yaml_parsed_once_per_text(tmp_path):
    path = tmp_path / 'meta.yml'
    path.write_text('Models:\n  - Name: a\n    Config: configs/a.py\n')
    expected = load(str(path))
    assert type(file_handlers['yml']) is YamlHandler
    with yaml_parsed_once():
        assert type(file_handlers['yml']) is ParsedOnceYamlHandler
        first = load(str(path))
        assert first == expected
        # Kept under its text, and found there the next time.
        text = path.read_text()
        assert ParsedOnceYamlHandler.parsed[text] == expected
        first['Models'].append('changed')  # the next load is a copy
        ParsedOnceYamlHandler.parsed[text]['kept'] = True
        assert load(str(path)) == dict(expected, kept=True)
        del ParsedOnceYamlHandler.parsed[text]
        path.write_text('Models: []\n')  # a new text is parsed anew
        assert load(str(path)) == {'Models': []}
    # mmengine's own handlers are back, also after an error.
    assert type(file_handlers['yml']) is YamlHandler
    assert type(file_handlers['yaml']) is YamlHandler
    with pytest.raises(KeyError), yaml_parsed_once():
        raise KeyError
    assert type(file_handlers['yml']) is YamlHandler


def test_load_config_equals_mmengine():
    """The tools' loader (YAML parsed once) gives mmengine's config, for
    configs with two and with four ``mmdet::`` bases, loaded twice."""
    for name in ('demo/faster-rcnn_r18-c16_fpn-c64_3e_demo-coco.py',
                 'robustness/mask-rcnn_r50_fpn_1x_coco-c.py'):
        path = osp.join(REPO, 'configs', name)
        expected = Config.fromfile(path)
        for _ in range(2):
            cfg = load_config(path)
            assert cfg.to_dict() == expected.to_dict()
