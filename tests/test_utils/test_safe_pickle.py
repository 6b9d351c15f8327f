# Copyright (c) robustdet contributors. All rights reserved.
"""The allow-list unpickler for results pickles: Python 2 and 3 pickles
of plain data load, anything naming another global is refused before it
runs, and broken files give one line."""
import collections
import os
import pickle
import pickletools
import struct
import subprocess
import sys

import numpy as np
import pytest

from robustdet.utils.errors import RobustDetError
from robustdet.utils.safe_pickle import load_pickle, loads_pickle
from tests.conftest import REPO
from tests.py2_pickle import dumps_py2


class _Evil:
    """Unpickling it would create a marker file through os.system."""

    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return os.system, (f'touch {self.marker}', )


class _EvalEscape:
    """``builtins.eval`` of a string: refused like any other global."""

    def __reduce__(self):
        return eval, ('1 + 1', )


def _globals(data):
    return {
        arg
        for op, arg, _ in pickletools.genops(data) if op.name == 'GLOBAL'
    }


def _paper_like():
    clean = {'bbox': {'AP': np.float64(0.363), 'AP50': np.float64(0.581)}}
    return collections.OrderedDict([
        ('gaussian_noise', {0: clean, 1: {'bbox': {'AP': np.float64(0.3)}}}),
        ('shot_noise', {0: clean}),
    ])


def test_python2_pickle_loads_with_latin1():
    data = dumps_py2(_paper_like())
    # What the paper's files name, and why plain pickle.loads fails on
    # them: the raw float bytes of a Python 2 str are not ASCII.
    assert _globals(data) == {
        'collections OrderedDict', 'numpy.core.multiarray scalar',
        'numpy dtype'
    }
    with pytest.raises(UnicodeDecodeError):
        pickle.loads(data)
    obj = loads_pickle(data)
    assert isinstance(obj, collections.OrderedDict)
    assert list(obj) == ['gaussian_noise', 'shot_noise']
    ap = obj['gaussian_noise'][0]['bbox']['AP']
    assert isinstance(ap, np.float64) and ap == 0.363
    assert obj['shot_noise'][0] is obj['gaussian_noise'][0]  # memoized


@pytest.mark.parametrize('protocol', [0, 2, 4, 5])
def test_python3_pickles_of_plain_data_load(protocol):
    obj = dict(
        cells=_paper_like(),
        array=np.arange(6, dtype=np.float32).reshape(2, 3),
        raw=b'\x00\xffbytes',
        kinds={1, 2},
        frozen=frozenset('ab'),
        aps=[{'ap': np.float32(0.8)}],
        z=1 + 2j)
    back = loads_pickle(pickle.dumps(obj, protocol=protocol))
    np.testing.assert_array_equal(back.pop('array'), obj.pop('array'))
    assert back == obj


def test_malicious_pickle_refused_without_running(tmp_path):
    marker = tmp_path / 'pwned'
    path = tmp_path / 'evil_results.pkl'
    # The payload sits deep inside an otherwise valid results layout.
    obj = _paper_like()
    obj['gaussian_noise'][2] = {'bbox': {'AP': _Evil(marker)}}
    path.write_bytes(pickle.dumps(obj, protocol=2))
    with pytest.raises(RobustDetError) as info:
        load_pickle(str(path))
    msg = str(info.value)
    assert msg.startswith(f'{path}: refusing to unpickle')
    assert 'posix.system' in msg and '\n' not in msg
    assert not marker.exists()
    # The same file really runs code with pickle.load.
    pickle.loads(path.read_bytes())
    assert marker.exists()


def test_other_globals_and_codecs_refused(tmp_path):
    path = tmp_path / 'eval.pkl'
    path.write_bytes(pickle.dumps(_EvalEscape(), protocol=2))
    with pytest.raises(RobustDetError, match='builtins.eval'):
        load_pickle(str(path))
    # _codecs.encode is allowed with latin-1 only.
    data = pickle.dumps(b'\xff', protocol=2).replace(b'latin1', b'rot13_')
    assert b'rot13_' in data
    with pytest.raises(pickle.UnpicklingError, match='latin-1'):
        loads_pickle(data)


@pytest.mark.parametrize('content,words', [
    (b'', 'truncated'),
    (pickle.dumps(_paper_like(), protocol=2)[:-20], 'truncated'),
    (b'\x80\x02}q\x00(K\x01h\x07u.', 'not a readable pickle'),
])
def test_broken_files_give_one_line(tmp_path, content, words):
    path = tmp_path / 'broken.pkl'
    path.write_bytes(content)
    with pytest.raises(RobustDetError) as info:
        load_pickle(str(path))
    assert str(info.value).startswith(str(path))
    assert words in str(info.value) and '\n' not in str(info.value)


def test_missing_file(tmp_path):
    with pytest.raises(RobustDetError, match='cannot read it'):
        load_pickle(str(tmp_path / 'none.pkl'))


def _u(text):
    """BINUNICODE: a str in a protocol-2 pickle."""
    data = text.encode()
    return b'X' + struct.pack('<I', len(data)) + data


_F8 = b'cnumpy\ndtype\n' + _u('f8') + b'\x89\x88\x87R'
_O8 = b'cnumpy\ndtype\n' + _u('O8') + b'\x89\x88\x87R'


def _state(order, flags):
    """BUILD a dtype with this byte order and flags."""
    return (b'(K\x03' + _u(order) + b'NNNJ\xff\xff\xff\xffJ\xff\xff\xff\xff'
            + b'K' + bytes([flags]) + b'tb')


# Pickles that name only allowed globals but make numpy read 8 bytes as an
# object pointer: a crash, or the call of any function whose address is
# known, if the objects they build were taken as they are.
PAYLOADS = {
    # an object dtype whose state clears its "holds objects" flag, then a
    # scalar of it from 8 raw bytes
    'object dtype': (b'\x80\x02cnumpy._core.multiarray\nscalar\n' + _O8 +
                     _state('|', 0) + b'C\x08AAAAAAAA\x86R.'),
    # a float dtype whose state claims it holds objects (numpy itself
    # refuses the scalar; the other three crashed the former loader)
    'dtype state': (b'\x80\x02cnumpy._core.multiarray\nscalar\n' + _F8 +
                    _state('<', 0x3f) + b'C\x08AAAAAAAA\x86R.'),
    # an array whose state gives it that object dtype
    'array state': (b'\x80\x02cnumpy._core.multiarray\n_reconstruct\n'
                    b'cnumpy\nndarray\nK\x00\x85C\x01b\x87R'
                    b'(K\x01K\x01\x85' + _O8 + _state('|', 0) +
                    b'\x89C\x08AAAAAAAAtb.'),
    # protocol 5's array reconstructor with that object dtype
    'frombuffer': (b'\x80\x02cnumpy._core.numeric\n_frombuffer\n'
                   b'(C\x08AAAAAAAA' + _O8 + _state('|', 0) +
                   b'K\x01\x85' + _u('C') + b'tR.'),
}


@pytest.mark.parametrize('name', sorted(PAYLOADS))
def test_crafted_numpy_objects_refused(tmp_path, name):
    path = tmp_path / 'payload.pkl'
    path.write_bytes(PAYLOADS[name])
    # In a child process: a crash must fail the test, not end the run.
    code = ('import sys\n'
            'from robustdet.utils.errors import RobustDetError\n'
            'from robustdet.utils.safe_pickle import load_pickle\n'
            'try:\n'
            f'    load_pickle({str(path)!r})\n'
            'except RobustDetError as e:\n'
            '    print(e)\n'
            '    sys.exit(0)\n'
            'sys.exit(5)\n')
    proc = subprocess.run([sys.executable, '-c', code], cwd=REPO,
                          capture_output=True, text=True)
    assert proc.returncode == 0, (proc.returncode, proc.stderr[-2000:])
    assert 'refusing to unpickle' in proc.stdout, proc.stdout
    assert 'numpy dtype' in proc.stdout, proc.stdout


def test_plain_arrays_and_scalars_of_every_byte_order_load():
    obj = [np.float64(1.5), np.dtype('>i4').type(7), np.array(
        [1, 2], dtype='>u2'), np.array(['ab'], dtype='U2'), np.bool_(True),
           np.dtype('>f4')]
    for protocol in (2, 5):
        data = pickle.dumps(obj, protocol=protocol)
        back, plain = loads_pickle(data), pickle.loads(data)
        assert [repr(x) for x in back] == [repr(x) for x in plain]
        assert back[2].dtype == plain[2].dtype and back[5] == np.dtype('>f4')
