# Copyright (c) robustdet contributors. All rights reserved.
"""The result-pickle loader: what the paper's, mmdet's and Python's own
pickles hold loads as plain data; every attack class of issue 30 and
every cap gives one line; nothing runs, nothing is a view of anything."""
import collections
import json
import pickle
import signal
import struct
import subprocess
import sys

import numpy as np
import pytest

from robustdet.utils import pickle_values
from robustdet.utils.errors import RobustDetError
from robustdet.utils.safe_pickle import (MAX_DEPTH, UnsafePickleError,
                                         load_pickle, loads_pickle,
                                         nesting_depth)
from tests.conftest import REPO
from tests.pickle_payloads import (ADDRESS, ATTACKS, FALSE, MARK, PROTO2, STOP,
                                   TRUE, array_state, code_execution, dtype,
                                   frombuffer, glob, integer, put, raw,
                                   reconstruct, text)
from tests.py2_pickle import dumps_py2
from tests.tool_process import run_tool


def _paper_like():
    clean = {'bbox': {'AP': np.float64(0.363), 'AP50': np.float64(0.581)}}
    return collections.OrderedDict([
        ('gaussian_noise', {0: clean, 1: {'bbox': {'AP': np.float64(0.3)}}}),
        ('shot_noise', {0: clean}),
    ])


def _refusal(data, *words):
    """The one-line message ``loads_pickle`` refuses ``data`` with."""
    with pytest.raises(UnsafePickleError) as info:
        loads_pickle(data)
    msg = str(info.value)
    assert '\n' not in msg and len(msg) < 500, msg
    for word in words:
        assert word in msg, msg
    return msg


@pytest.mark.parametrize('protocol', [0, 1, 2])
def test_python2_pickles_load_as_python2_wrote_them(protocol):
    """cPickle.dump's default (protocol 0), protocol 1 and the paper's
    protocol 2: str read as latin-1, numpy.core names, shared cells."""
    obj = _paper_like()
    obj['voc'] = {0: [{'ap': np.float32(0.25), 'num_gts': 70000,
                       'difficult': True, 'name': "it's\n\\é"}]}
    data = dumps_py2(obj, protocol)
    for name in (b'collections\nOrderedDict', b'numpy.core.multiarray\nscalar',
                 b'numpy\ndtype'):
        assert b'c' + name + b'\n' in data
    assert data[:1] != b'\x80' or protocol == 2
    with pytest.raises(UnicodeDecodeError):
        pickle.loads(data)  # Python 3's default ASCII for Python 2 str
    back = loads_pickle(data)
    assert back == pickle.loads(data, encoding='latin1')
    assert isinstance(back, collections.OrderedDict)
    ap = back['gaussian_noise'][0]['bbox']['AP']
    assert type(ap) is np.float64 and ap == 0.363
    assert back['shot_noise'][0] is back['gaussian_noise'][0]  # memoized
    assert back['voc'][0][0]['name'] == "it's\n\\é"


@pytest.mark.parametrize('protocol', range(6))
def test_python3_pickles_of_plain_data_load(protocol):
    obj = dict(
        cells=_paper_like(),
        arrays=[
            np.arange(6, dtype=dt).reshape(2, 3)
            for dt in ('<f4', '>f8', 'i1', '<u2', '>i8', 'f2')
        ] + [np.zeros((2, 3), order='F') + np.arange(3), np.array(7),
             np.zeros((0, 4)), np.array([True, False])],
        scalars=[np.float64(1.5), np.dtype('>i4').type(7), np.bool_(True),
                 np.uint64(2**64 - 1), np.int8(-3), np.float16(0.5)],
        raw=b'\x00\xffbytes', empty=b'', kinds={1, 2}, frozen=frozenset('ab'),
        aps=[{'ap': np.float32(0.8)}], ints=(2**63, -2**63, None, False))
    data = pickle.dumps(obj, protocol=protocol)
    back = loads_pickle(data)
    for got, want in zip(back.pop('arrays'), obj.pop('arrays')):
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_array_equal(got, want)
        assert got.flags.owndata and got.flags.writeable and got.base is None
    assert back == obj
    assert [type(v) for v in back['scalars']] == [
        type(v) for v in obj['scalars']]


def test_arrays_are_fresh_copies():
    """Two arrays of one stream never share memory with each other or
    with the stream."""
    data = bytearray(pickle.dumps([np.ones(4), np.ones(4)], protocol=5))
    a, b = loads_pickle(bytes(data))
    a[:] = 7
    assert (b == 1).all()
    data[:] = b'\x00' * len(data)
    assert (a == 7).all()


@pytest.mark.parametrize('name', sorted(ATTACKS))
def test_attack_classes_refused(name):
    """Each class of issue 30 (forged object pointer, use after free,
    uninitialised memory, deep keys, claimed sizes, lazy object arrays)
    gets one line; the crash-proof version runs in a child process in
    test_attacks_do_not_crash_a_process."""
    _refusal(ATTACKS[name], 'refusing to unpickle it')


def test_forged_pointer_payload_is_live_and_refused(tmp_path):
    """The payload is real: pickle.loads and numpy's own functions crash
    the process on it. robustdet's loader, in a child process too, refuses
    all attack classes with one line each and survives."""
    path = tmp_path / 'forged.pkl'
    path.write_bytes(ATTACKS['forged object pointer'])
    unsafe = subprocess.run([
        sys.executable, '-c',
        'import pickle, sys\n'
        f'r = pickle.loads(open({str(path)!r}, "rb").read())\n'
        "float(r['fog'][1]['coco/bbox_mAP'])\n"
    ], capture_output=True, timeout=120)
    assert unsafe.returncode in (-signal.SIGSEGV, -signal.SIGBUS), \
        unsafe.stderr[-500:]
    files = {}
    for name, data in ATTACKS.items():
        files[name] = str(tmp_path / f'{len(files)}.pkl')
        with open(files[name], 'wb') as f:
            f.write(data)
    script = tmp_path / 'load_all.py'
    script.write_text(
        'import json, sys\n'
        'from robustdet.utils.safe_pickle import load_pickle\n'
        'from robustdet.utils.errors import RobustDetError\n'
        'out = {}\n'
        f'for name, path in {files!r}.items():\n'
        '    print(name, file=sys.stderr, flush=True)\n'
        '    try:\n'
        '        load_pickle(path)\n'
        '        out[name] = None\n'
        '    except RobustDetError as e:\n'
        '        out[name] = str(e)\n'
        'print(json.dumps(out))\n')
    # A process of its own (forked): a crash fails the test, not the run.
    proc = run_tool(str(script), cwd=REPO, timeout=300)
    assert proc.returncode == 0, (proc.returncode, proc.stderr[-2000:])
    messages = json.loads(proc.stdout.splitlines()[-1])
    for name, msg in messages.items():
        assert msg and msg.startswith(files[name]), (name, msg)
        assert '\n' not in msg and 'refusing to unpickle it' in msg


@pytest.mark.parametrize('name,data,words', [
    ('object array', reconstruct((), b'O'), "other arguments than numpy's"),
    ('view of an array', frombuffer(
        reconstruct() + put(0), dtype('u8'), (1, )),
     'numpy array whose data is a numpy array'),
    ('write through a view', frombuffer(raw(b'\0' * 8), dtype('u8'), (1, ))
     + integer(0) + integer(ADDRESS) + b's', 'SETITEM on a numpy array'),
    ('append to an array', reconstruct() + integer(1) + b'a',
     'APPEND on a numpy array'),
    ('append to a dict', b'}K\x01a', 'APPEND on a dict'),
    ('setitem on a list', b']K\x01K\x02s', 'SETITEM on a list'),
    ('additems on a frozenset', MARK + b'\x91' + MARK + integer(1) + b'\x90',
     'ADDITEMS on a frozenset'),
    ('second BUILD', reconstruct() + array_state(
        (1, ), dtype('f8'), b'\0' * 8) + b'b' + array_state(
            (1, ), dtype('f8'), b'\0' * 8) + b'b',
     'a second state (BUILD) for a numpy array'),
    ('BUILD on a dict', b'}}b', 'a state (BUILD) for a dict'),
    ('array never built', reconstruct(), 'a numpy array without its data'),
    ('too little data', reconstruct() + array_state(
        (4, ), dtype('f8'), b'\0' * 8) + b'b', 'with 8 bytes of data '
     'instead of 32'),
    ('too much data', frombuffer(raw(b'\0' * 9), dtype('u1', '|'), (8, )),
     'with 9 bytes of data instead of 8'),
    ('string dtype', dtype('S8', '|'), "a numpy dtype 'S8'"),
    ('void dtype', dtype('V8', '|'), "a numpy dtype 'V8'"),
    ('native byte order', dtype('f8', '='), "a state other than numpy's"),
    ('dtype flags', dtype('f8', '<', flags=63), 'a state other than numpy'),
    ('dtype used before its state', glob(
        'numpy.core.multiarray', 'scalar') + glob('numpy', 'dtype') +
     text('f8') + FALSE + TRUE + b'\x87R' + raw(b'\0' * 8) + b'\x86R',
     'whose state is not set'),
    ('bool other than 0 and 1', frombuffer(raw(b'\x02'), dtype('b1', '|'),
                                           (1, )), 'neither 0 nor 1'),
    ('dtype as a value', dtype('f8'), 'a numpy dtype as a value'),
    ('global as a value', glob('numpy', 'ndarray'),
     'the global ndarray as a value'),
    ('tuple key', b'}K\x01\x85K\x02s', 'a dict key of type tuple'),
    ('float key', b'}G' + struct.pack('>d', 0.5) + b'K\x02s',
     'a dict key of type float'),
    ('set of lists', MARK + b']\x91', 'a frozenset item of type list'),
    ('container holding itself', b']q\x00h\x00a',
     'a container that holds itself'),
    ('latin-1 only', glob('_codecs', 'encode') + text('x') + text('rot13')
     + b'\x86R', "codec 'rot13'"),
    ('unknown opcode', b'\xff', "unknown opcode b'\\xff' at byte 2"),
    ('bytes after STOP', PROTO2 + b'N.junk', '4 bytes after its STOP'),
    ('two values at STOP', b'NN', 'other than one value on the stack'),
    ('protocol 6', b'\x80\x06N', 'unsupported protocol 6'),
    ('out-of-band buffer', b'\x97', 'an out-of-band buffer'),
])
def test_what_numpy_or_python_would_misuse_is_refused(name, data, words):
    if not data.startswith(b'\x80'):
        data = PROTO2 + data + STOP
    _refusal(data, words)


@pytest.mark.parametrize('name', [n for n, _ in code_execution('m')])
def test_code_execution_refused_without_running(name, tmp_path):
    marker = tmp_path / 'pwned'
    data = dict(code_execution(marker))[name]
    path = tmp_path / 'evil.pkl'
    path.write_bytes(data)
    with pytest.raises(RobustDetError) as info:
        load_pickle(str(path))
    msg = str(info.value)
    assert msg.startswith(f'{path}: refusing to unpickle it'), msg
    assert '\n' not in msg and 'ran nothing' in msg
    assert not marker.exists()
    if name.startswith('os.system'):
        assert 'it names the global posix.system' in msg
        pickle.loads(data)  # the same file really runs code
        assert marker.exists()


def test_caps_give_one_line(monkeypatch):
    deep = PROTO2 + b']' + b']' * MAX_DEPTH + b'a' * MAX_DEPTH + STOP
    _refusal(deep, f'nested more than {MAX_DEPTH} deep (the cap is '
             f'{MAX_DEPTH})')
    ok = PROTO2 + b']' * MAX_DEPTH + b'a' * (MAX_DEPTH - 1) + STOP
    assert nesting_depth(loads_pickle(ok)) == MAX_DEPTH
    _refusal(PROTO2 + integer(2**64) + STOP, 'the cap is 64 bits')
    _refusal(PROTO2 + b'\x8b\x00\x00\x01\x00' + b'\x01' * 65536 + STOP,
             'an integer of 65536 bytes')
    _refusal(b'I' + b'9' * 5000 + b'\n.', 'a text argument of 5000 bytes')
    _refusal(PROTO2 + b'\x8e' + struct.pack('<Q', 2**40) + STOP,
             f'a string of {2**40} bytes')
    _refusal(PROTO2 + frombuffer(raw(b''), dtype('f8'), (0, ) * 33) + STOP,
             'a numpy array of 33 axes (the cap is 32)')
    _refusal(PROTO2 + frombuffer(raw(b''), dtype('f8'), (2**62, 0)) + STOP,
             'shape is not a tuple of sizes up to')
    _refusal(PROTO2 + frombuffer(raw(b''), dtype('f8'), (2**20, 2**20)) +
             STOP, 'more than 268435456 elements')
    monkeypatch.setattr(pickle_values, 'MAX_OBJECTS', 100)
    _refusal(PROTO2 + b']' + MARK + b'N' * 100 + b'e.',
             'more than 100 values (the cap is 100)')
    monkeypatch.setattr(pickle_values, 'MAX_OPCODES', 100)
    _refusal(PROTO2 + b'N' + b'20' * 100 + STOP, 'more than 100 opcodes')


def test_file_errors(tmp_path, monkeypatch):
    with pytest.raises(RobustDetError, match='cannot read it'):
        load_pickle(str(tmp_path / 'none.pkl'))
    with pytest.raises(RobustDetError, match='is a directory'):
        load_pickle(str(tmp_path))
    path = tmp_path / 'big.pkl'
    path.write_bytes(b'N.' + b' ' * 100)
    from robustdet.utils import safe_pickle
    monkeypatch.setattr(safe_pickle, 'MAX_FILE_BYTES', 64)
    with pytest.raises(RobustDetError, match='102 bytes .the cap is 64'):
        load_pickle(str(path))


@pytest.mark.parametrize('content,words', [
    (b'', 'truncated'),
    (pickle.dumps(_paper_like(), protocol=2)[:-20], 'truncated'),
    (b'\x80\x02}q\x00(K\x01h\x07u.', 'memo entry 7 read before'),
    (b'\n' + pickle.dumps({}, protocol=2), "unknown opcode b'\\n' at byte 0"),
    (b'(dI1\nS"x\'\n', 'a STRING without its quotes'),
    (b"S'\\q'\n.", 'a STRING with a broken escape'),
])
def test_broken_files_give_one_line(tmp_path, content, words):
    path = tmp_path / 'broken.pkl'
    path.write_bytes(content)
    with pytest.raises(RobustDetError) as info:
        load_pickle(str(path))
    assert str(info.value).startswith(str(path))
    assert words in str(info.value) and '\n' not in str(info.value)


def test_shared_values_stay_shared_and_are_made_once():
    """A value referenced twice (the paper's clean cell under every
    corruption) is one object, as in the file; a DAG of doublings loads in
    linear time and nests no deeper than its height."""
    shared = [1.5]
    back = loads_pickle(pickle.dumps([shared, (shared, shared)], 2))
    assert back[0] is back[1][0] is back[1][1]
    # 60 levels of [x, x]: 2**60 leaves as a tree, 60 objects as stored.
    data = PROTO2 + b'K\x01' + b'q\x000h\x00h\x00\x86' * 60 + STOP
    top = loads_pickle(data)
    assert nesting_depth(top) == 60 and top[0] is top[1]


def test_nesting_depth_has_no_recursion():
    value = []
    for _ in range(100_000):
        value = [value]
    assert nesting_depth(value) == MAX_DEPTH + 1
    assert nesting_depth(value, limit=200_000) == 100_001
    assert nesting_depth({'a': (1, {2})}) == 3 and nesting_depth(1.5) == 0
