# Copyright (c) robustdet contributors. All rights reserved.
"""tools/dev/held_back_cpu.py: `make test` runs the `cpu_sensitive` tests a
second time under it, so the settings must really hold every library
back a generation, and must not print anything (the one-line-error tests
read stderr)."""
import importlib.util
import json
import os
import os.path as osp
import shlex
import subprocess
import sys

import pytest

from tests.conftest import REPO

TOOL = osp.join(REPO, 'tools', 'dev', 'held_back_cpu.py')
# What each library computes with in a process started with the
# environment it is given: oneDNN prints its ISA (ONEDNN_VERBOSE) on stdout
# at its first convolution, the JSON is the last line.
CAPABILITIES = """
import ctypes, glob, json, os, cv2, numpy, torch
from numba import njit
from numba.core import config
try:
    from numpy._core import _multiarray_umath as umath
except ImportError:
    from numpy.core import _multiarray_umath as umath
x = torch.randn(1, 32, 32, 32)  # big enough for oneDNN
torch.nn.functional.conv2d(x, torch.randn(32, 32, 3, 3), padding=1)

def axpy(a, b, out):
    for i in range(a.shape[0]):
        out[i] = a[i] * 2.0 + b[i]

jit = njit(axpy)
v = numpy.ones(64)
jit(v, v, v.copy())
asm = jit.inspect_asm(jit.signatures[0])
libs = glob.glob(os.path.join(os.path.dirname(numpy.__path__[0]),
                              'numpy.libs', 'libscipy_openblas*.so'))
corename = None
for lib in libs:
    for name in ('scipy_openblas_get_corename64_',
                 'scipy_openblas_get_corename'):
        fn = getattr(ctypes.CDLL(lib), name, None)
        if fn is not None:
            fn.restype = ctypes.c_char_p
            corename = fn().decode()
print(json.dumps(dict(
    torch=torch.backends.cpu.get_cpu_capability(),
    numpy=[t for t in umath.__cpu_dispatch__
           if umath.__cpu_features__.get(t)],
    opencv={name: cv2.checkHardwareSupport(cv_id) for name, cv_id in [
        ('FP16', 9), ('AVX', 10), ('AVX2', 11), ('FMA3', 12),
        ('AVX512F', 13), ('AVX512-SKX', 256)]},
    openblas=corename,
    numba=dict(name=config.CPU_NAME, ymm='ymm' in asm, zmm='zmm' in asm,
               cache_dir=config.CACHE_DIR))))
"""
# oneDNN's ISA line, by the level it is held back to.
ONEDNN_ISA = {'AVX2': 'isa:Intel AVX2', 'SSE4.2': 'isa:Intel SSE4.1'}
# What torch reports when nothing is held back, by the level the tool
# holds the machine back to.
TORCH_FULL = {'AVX2': 'AVX512', 'SSE4.2': 'AVX2'}


def _tool():
    spec = importlib.util.spec_from_file_location('held_back_cpu', TOOL)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _start(*prefix, env=None):
    """Start reading the capabilities (in parallel with other starts)."""
    env = dict(os.environ if env is None else env, ONEDNN_VERBOSE='1')
    return subprocess.Popen([*prefix, sys.executable, '-c', CAPABILITIES],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, cwd=REPO, env=env)


def _read(proc):
    stdout, stderr = proc.communicate()
    assert proc.returncode == 0, stderr
    lines = stdout.strip().splitlines()
    caps = json.loads(lines[-1])
    isa = [line for line in lines if ',info,cpu,isa:' in line]
    assert len(isa) == 1, stdout
    caps['onednn'] = isa[0].split(',info,cpu,')[1]
    return caps, stderr


def _capabilities(*prefix, env=None):
    return _read(_start(*prefix, env=env))


def _assert_held_back(tool, caps, level):
    above = tool.ABOVE[level]
    assert caps['torch'] == tool.LEVELS[level]['aten'].upper(), caps
    assert caps['onednn'] == ONEDNN_ISA[level], caps['onednn']
    assert not [t for t in caps['numpy'] if above(t)], caps['numpy']
    if caps['openblas'] is not None:  # numpy's bundled OpenBLAS
        assert caps['openblas'].lower() == tool.LEVELS[level]['openblas'] \
            .lower(), caps['openblas']
    assert not [n for n, on in caps['opencv'].items() if on and above(n)]
    # numba's compiled code: no 512-bit registers, nor 256-bit ones when
    # held to SSE4.2
    numba = caps['numba']
    assert numba['name'] == tool.LEVELS[level]['numba']
    assert not numba['zmm'] and not (level == 'SSE4.2' and numba['ymm'])
    # and its kernels kept apart from the machine's
    assert numba['cache_dir'] == tool.held_back_env()['NUMBA_CACHE_DIR']
    assert numba['cache_dir'].endswith(f'held-back-{level}')


def test_feature_names_by_level():
    """Both spellings of numpy (2.x targets, 1.x features), OpenCV's and
    LLVM's, sorted on the right side of each level."""
    tool = _tool()
    avx512 = ['AVX512F', 'AVX512_SKX', 'AVX512_ICL', 'X86_V4', 'AVX512-SKX',
              'avx512bw', 'avx10.1-512']
    # (LLVM's sha512 and sm4 imply AVX2, sm3 AVX)
    v3 = ['AVX', 'AVX2', 'FMA3', 'F16C', 'FP16', 'X86_V3', 'avx2', 'fma',
          'f16c', 'vaes', 'vpclmulqdq', 'sha512', 'sm3', 'sm4']
    v2 = ['SSE42', 'SSE41', 'POPCNT', 'X86_V2', 'sse4.2', 'popcnt', 'cx16',
          'bmi2', 'lzcnt']
    assert all(tool.ABOVE['AVX2'](n) for n in avx512)
    assert not any(tool.ABOVE['AVX2'](n) for n in v3 + v2)
    assert all(tool.ABOVE['SSE4.2'](n) for n in avx512 + v3)
    assert not any(tool.ABOVE['SSE4.2'](n) for n in v2)
    # LLVM reads the features in order and turning one on turns on what it
    # implies: every feature turned off comes after every one turned on.
    for level in tool.LEVELS:
        signs = [f[0] for f in tool.numba_features(level).split(',')]
        assert signs == sorted(signs)  # '+' < '-'


def test_the_tool_holds_every_library_back():
    tool = _tool()
    level = tool.held_back_env()[tool.FLAG]
    held = _start(sys.executable, TOOL, '--')
    # and the same process without the tool (nor the held-back settings of
    # `make test`'s second run)
    full = _start(env={
        k: v
        for k, v in os.environ.items() if k not in tool.VARIABLES
    })
    caps, stderr = _read(held)
    full, _ = _read(full)
    if level:
        _assert_held_back(tool, caps, level)
        assert stderr == ''
        # computes with more
        assert full['torch'] == TORCH_FULL[level]
        assert full['onednn'] != ONEDNN_ISA[level]
        assert [n for n, on in full['opencv'].items()
                if on and tool.ABOVE[level](n)]
        assert full['numba']['ymm'] or level == 'AVX2'
        assert full['numba']['cache_dir'] != caps['numba']['cache_dir']
    else:  # nothing to hold back: the command runs as is
        assert 'running as is' in stderr


def test_numba_cache_dir(monkeypatch, tmp_path):
    """Held-back kernels go to a folder per level: under the user's
    ``NUMBA_CACHE_DIR``, else under the user's cache folder."""
    tool = _tool()
    monkeypatch.delenv('NUMBA_CACHE_DIR', raising=False)
    monkeypatch.setenv('XDG_CACHE_HOME', str(tmp_path))
    assert tool.numba_cache_dir('SSE4.2') == str(
        tmp_path / 'robustdet' / 'numba' / 'held-back-SSE4.2')
    monkeypatch.setenv('NUMBA_CACHE_DIR', str(tmp_path / 'mine'))
    assert tool.numba_cache_dir('AVX2') == str(
        tmp_path / 'mine' / 'held-back-AVX2')


def test_print_gives_shell_assignments():
    tool = _tool()
    proc = subprocess.run([sys.executable, TOOL, '--print'],
                          capture_output=True, text=True, check=True)
    env = {}
    for line in proc.stdout.splitlines():
        export, key = line.partition('=')[0].split()
        assert export == 'export'
        env[key] = shlex.split(line.partition('=')[2])[0] if \
            line.partition('=')[2] else ''
    assert env == tool.held_back_env()
    # and a shell that evaluates them exports them
    shell = subprocess.run(
        ['bash', '-c', f'eval "$({sys.executable} {TOOL} --print)"; '
         f'echo "${tool.FLAG}"'], capture_output=True, text=True, check=True)
    assert shell.stdout.strip() == env[tool.FLAG]


def test_a_missing_command_is_one_line():
    proc = subprocess.run([sys.executable, TOOL, '--', 'no-such-command'],
                          capture_output=True, text=True)
    assert proc.returncode == 127
    assert proc.stderr.strip().splitlines()[-1] == (
        'error: cannot run no-such-command: No such file or directory')


@pytest.mark.cpu_sensitive
def test_this_run_is_held_back_when_it_says_so():
    """In `make test`'s second run, the processes of the run (which
    inherit its environment) compute a generation down, else that run
    would prove nothing; in the first, with everything the machine
    has."""
    tool = _tool()
    caps, _ = _capabilities()
    level = os.environ.get(tool.FLAG)
    if level:
        _assert_held_back(tool, caps, level)
    else:
        machine = tool.held_back_env()[tool.FLAG]
        if machine:
            assert caps['torch'] == TORCH_FULL[machine]
            assert caps['onednn'] != ONEDNN_ISA[machine]
            assert caps['opencv']['AVX2']
