# Copyright (c) robustdet contributors. All rights reserved.
import copy
import glob
import os.path as osp
import pickle

import pytest
import yaml
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


def _unformatted(cfg):
    return Config(cfg.to_dict(), format_python_code=False).pretty_text


def test_formatted_one_assignment_at_a_time(demo_checkpoint):
    """mmengine's bytes for a config formatted assignment by assignment
    (the demo config is above); a changed key formats its assignment
    anew and only that; a text of another shape is formatted whole."""
    config, _ = demo_checkpoint
    path = osp.join(REPO, 'configs', 'robustness',
                    'mask-rcnn_r50_fpn_1x_coco-c.py')
    plain = Config.fromfile(path)
    assert len(config_text.top_level_statements(_unformatted(plain))) > 20
    assert format_once(plain).pretty_text == plain.pretty_text
    cfg = format_once(Config.fromfile(config))
    assert cfg.pretty_text.startswith('auto_scale_lr')
    cfg.work_dir = 'elsewhere'
    statements = config_text.top_level_statements(_unformatted(cfg))
    before = config_text.format_statement.cache_info()
    text = cfg.pretty_text
    after = config_text.format_statement.cache_info()
    # Only the new assignment was formatted; the others were kept.
    assert after.misses - before.misses == 1
    assert after.hits - before.hits == len(statements) - 1
    assert "work_dir = 'elsewhere'\n" in text
    assert text == Config(cfg.to_dict()).pretty_text
    # Values whose str makes a blank line, a comment or a string across
    # two assignments: formatted whole, as mmengine does.
    for values in (dict(a=_Str('foo\n'), b=1),
                   dict(a=_Str('1  # c\n# d'), b=2),
                   dict(a=_Str('"""x'), b=_Str('y"""'))):
        plain = Config(values)
        assert format_once(plain).pretty_text == plain.pretty_text, values
    # A top-level key that is not an identifier: one dict display, which
    # mmengine 0.10 writes without commas and fails to format; so does
    # the whole text here.
    odd = Config({'1x': 1, 'a': dict(b=[1, 2])})
    assert config_text.top_level_statements(_unformatted(odd)) is None
    for cfg in (odd, format_once(odd)):
        with pytest.raises(SyntaxError, match='Failed to format'):
            assert cfg.pretty_text


class _Str:
    """A config value whose ``str`` is the text given."""

    def __init__(self, text):
        self.text = text

    def __str__(self):
        return self.text


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
    before = {fmt: file_handlers[fmt] for fmt in ('yml', 'yaml')}
    with yaml_parsed_once():
        assert type(file_handlers['yml']) is ParsedOnceYamlHandler
        first = load(str(path))
        assert first == expected
        # Kept under its text, and found there the next time.
        text = path.read_text()
        assert ParsedOnceYamlHandler.parsed[text] == expected
        first['Models'].append('changed')  # the next loads are copies
        again = load(str(path))
        assert again == expected
        again['Models'].append('changed')
        assert load(str(path)) == expected
        ParsedOnceYamlHandler.parsed[text]['kept'] = True
        assert load(str(path)) == dict(expected, kept=True)
        del ParsedOnceYamlHandler.parsed[text]
        # A file object or loader arguments: parsed by mmengine.
        with open(path, 'rb') as f:
            assert load(f, file_format='yml') == expected
        assert load(str(path), Loader=yaml.SafeLoader) == expected
        assert text not in ParsedOnceYamlHandler.parsed
        with yaml_parsed_once():  # nested: the outer block restores
            pass
        assert type(file_handlers['yml']) is ParsedOnceYamlHandler
        path.write_text('Models: []\n')  # a new text is parsed anew
        assert load(str(path)) == {'Models': []}
    # mmengine's own handlers are back, also after an error.
    assert {fmt: file_handlers[fmt] for fmt in before} == before
    with pytest.raises(KeyError), yaml_parsed_once():
        raise KeyError
    assert {fmt: file_handlers[fmt] for fmt in before} == before


def test_yaml_handlers_of_others_are_kept():
    """A YAML handler someone registered is left alone, before the block
    and during it."""
    before = {fmt: file_handlers[fmt] for fmt in ('yml', 'yaml')}

    class Theirs(YamlHandler):
        pass

    try:
        file_handlers['yml'] = theirs = Theirs()
        with yaml_parsed_once():
            assert file_handlers['yml'] is theirs
            assert type(file_handlers['yaml']) is ParsedOnceYamlHandler
            file_handlers['yaml'] = later = Theirs()
        assert file_handlers['yml'] is theirs
        assert file_handlers['yaml'] is later
    finally:
        file_handlers.update(before)


def test_mmdet_metafiles_parse_as_mmengine_parses_them():
    """Every metafile of mmdet's model index (what Config.fromfile reads
    for an ``mmdet::`` base), loaded twice in the block: mmengine's data."""
    import mmdet
    mim = osp.join(osp.dirname(mmdet.__file__), '.mim')
    paths = [osp.join(mim, 'model-index.yml')] + [
        osp.join(mim, p) for p in load(osp.join(mim, 'model-index.yml'))[
            'Import']]
    expected = [load(p) for p in paths]
    with yaml_parsed_once():
        for _ in range(2):
            assert [load(p) for p in paths] == expected


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
