# Copyright (c) robustdet contributors. All rights reserved.
import os
import pickletools
import zipfile

import numpy as np
import pytest
import torch
from mmengine.logging import HistoryBuffer

from robustdet.utils import RobustDetError, load_checkpoint_file
from robustdet.utils.checkpoint import load_checkpoint_to_model
from tests.tool_process import run_tool

REPO = os.path.dirname(os.path.dirname(os.path.dirname(__file__)))


def _zoo_like_checkpoint():
    """What an mmdet model-zoo checkpoint holds: numpy scalars and arrays
    in meta, HistoryBuffers in message_hub."""
    buf = HistoryBuffer()
    for v in (0.5, 0.25, 0.125):
        buf.update(v)
    return dict(
        meta=dict(
            epoch=np.int64(12),
            iter=np.int32(3),
            lr=np.float64(0.02),
            arr=np.arange(4, dtype=np.float32),
            dtype=np.dtype('float16')),
        message_hub=dict(log_scalars={'train/loss': buf}),
        state_dict={'weight': torch.arange(6.).reshape(2, 3)})


class _Evil:

    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return (os.system, (f'touch {self.marker}', ))


class _GetattrEscape:
    """The first step of a walk from an allowed class to ``eval``:
    ``getattr(HistoryBuffer, '__init__')``, then ``__globals__``... Only
    robustdet's restricted getattr stands in its way."""

    def __reduce__(self):
        return (getattr, (HistoryBuffer, '__init__'))


def test_numpy_scalars_and_history_buffer_load(tmp_path):
    path = str(tmp_path / 'zoo.pth')
    torch.save(_zoo_like_checkpoint(), path)
    # Plain torch >= 2.6 refuses this file (the problem being solved).
    with pytest.raises(Exception, match='Unsupported global'):
        torch.load(path)
    ckpt = load_checkpoint_file(path)
    assert ckpt['meta']['epoch'] == 12
    assert isinstance(ckpt['meta']['lr'], np.floating)
    np.testing.assert_array_equal(ckpt['meta']['arr'], np.arange(4))
    buf = ckpt['message_hub']['log_scalars']['train/loss']
    assert isinstance(buf, HistoryBuffer)
    assert buf.current() == 0.125
    # exact: the sum 0.875 is exact, then the same one division
    assert buf.mean() == (0.5 + 0.25 + 0.125) / 3
    assert torch.equal(ckpt['state_dict']['weight'],
                       torch.arange(6.).reshape(2, 3))


def test_malicious_pickle_refused_without_executing(tmp_path):
    marker = tmp_path / 'pwned'
    path = str(tmp_path / 'evil.pth')
    torch.save({'state_dict': {}, 'meta': _Evil(str(marker))}, path)
    with pytest.raises(RobustDetError) as info:
        load_checkpoint_file(path)
    msg = str(info.value)
    assert 'system' in msg and '--unsafe-load' in msg
    assert '\n' not in msg
    assert not marker.exists()


def test_getattr_escape_refused(tmp_path):
    path = str(tmp_path / 'escape.pth')
    torch.save({'state_dict': {}, 'x': _GetattrEscape()}, path)
    with pytest.raises(RobustDetError, match='getattr'):
        load_checkpoint_file(path)
    with zipfile.ZipFile(path) as f:
        data = f.read('escape/data.pkl')
    # The only globals in the pickle are allowed names: the refusal comes
    # from the restricted getattr, not from an unknown global.
    globals_ = {arg for op, arg, _ in pickletools.genops(data)
                if op.name == 'GLOBAL'}
    assert globals_ == {'__builtin__ getattr',
                        'mmengine.logging.history_buffer HistoryBuffer'}


def test_unsafe_load_opt_in(tmp_path):
    marker = tmp_path / 'ran'
    path = str(tmp_path / 'evil.pth')
    torch.save({'state_dict': {}, 'meta': _Evil(str(marker))}, path)
    with pytest.warns(UserWarning, match='unsafe-load'):
        load_checkpoint_file(path, unsafe=True)
    assert marker.exists()  # full unpickling really is unsafe


@pytest.mark.parametrize('content', [b'', b'hello, not a checkpoint',
                                     b'PK\x03\x04truncated zip'])
def test_not_a_torch_file(tmp_path, content):
    path = tmp_path / 'bad.pth'
    path.write_bytes(content)
    with pytest.raises(RobustDetError, match='bad.pth'):
        load_checkpoint_file(str(path))


def test_missing_file(tmp_path):
    with pytest.raises(RobustDetError, match='not found'):
        load_checkpoint_file(str(tmp_path / 'nope.pth'))


def test_bare_state_dict_and_load_to_model(tmp_path):
    model = torch.nn.Linear(3, 2)
    path = str(tmp_path / 'bare.pth')
    torch.save({k: torch.ones_like(v)
                for k, v in model.state_dict().items()}, path)
    load_checkpoint_to_model(model, path, strict=True)
    assert torch.all(model.weight == 1)


def test_test_tool_refuses_malicious_checkpoint_in_one_line(tmp_path):
    marker = tmp_path / 'pwned'
    path = str(tmp_path / 'evil.pth')
    torch.save({'state_dict': {}, 'meta': _Evil(str(marker))}, path)
    config = os.path.join(REPO, 'configs', 'demo',
                          'faster-rcnn_r18-c16_fpn-c64_3e_demo-coco.py')
    proc = run_tool('tools/test.py', config, path, cwd=REPO)
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert lines[-1].startswith('error: refusing to load')
    assert 'Traceback' not in proc.stderr
    assert not marker.exists()


def _run_tool(*args):
    return run_tool(*args, cwd=REPO)


def test_tools_bad_paths_are_one_line_errors(tmp_path):
    config = os.path.join(REPO, 'configs', 'demo',
                          'faster-rcnn_r18-c16_fpn-c64_3e_demo-coco.py')
    ckpt = str(tmp_path / 'ok.pth')
    torch.save({'state_dict': {}}, ckpt)
    text = tmp_path / 'notes.pth'
    text.write_text('not a checkpoint')
    no_test = tmp_path / 'no_test.py'
    no_test.write_text("model = dict(type='FasterRCNN')\n")
    cases = [
        (('tools/test.py', 'nope.py', ckpt), 'config file not found: nope.py'),
        (('tools/test.py', config, 'nope.pth'),
         'checkpoint file not found: nope.pth'),
        (('tools/test.py', config, str(text)), 'is not a torch checkpoint'),
        (('tools/test.py', str(no_test), ckpt), 'has no test_dataloader'),
    ]
    for args, expect in cases:
        proc = _run_tool(*args)
        assert proc.returncode == 2, (args, proc.stderr)
        lines = proc.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith('error: '), lines
        assert expect in lines[0]
