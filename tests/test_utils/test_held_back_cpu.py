# Copyright (c) robustdet contributors. All rights reserved.
"""tools/dev/held_back_cpu.py: `make test` runs the `cpu_sensitive` tests a
second time under it, so the settings must really hold every library
back a generation, and must not print anything (the one-line-error tests
read stderr)."""
import importlib.util
import json
import os
import os.path as osp
import subprocess
import sys

import pytest

from tests.conftest import REPO

TOOL = osp.join(REPO, 'tools', 'dev', 'held_back_cpu.py')
# What each library computes with in a process started with the
# environment it is given.
CAPABILITIES = """
import json, cv2, torch
from numba.core import config
from numpy._core import _multiarray_umath as umath
print(json.dumps(dict(
    torch=torch.backends.cpu.get_cpu_capability(),
    numpy=[t for t in umath.__cpu_dispatch__
           if umath.__cpu_features__.get(t)],
    opencv={name: cv2.checkHardwareSupport(cv_id) for name, cv_id in [
        ('FP16', 9), ('AVX', 10), ('AVX2', 11), ('FMA3', 12),
        ('AVX512F', 13), ('AVX512-SKX', 256)]},
    numba=[config.CPU_NAME, config.CPU_FEATURES])))
"""
# What torch reports when nothing is held back, by the level the tool
# holds the machine back to.
TORCH_FULL = {'AVX2': 'AVX512', 'SSE4.2': 'AVX2'}


def _tool():
    spec = importlib.util.spec_from_file_location('held_back_cpu', TOOL)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _capabilities(*prefix, env=None):
    proc = subprocess.run([*prefix, sys.executable, '-c', CAPABILITIES],
                          capture_output=True, text=True, cwd=REPO, env=env)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout), proc.stderr


def _assert_held_back(tool, caps, level):
    above = tool.ABOVE[level]
    assert caps['torch'] == tool.LEVELS[level]['aten'].upper(), caps
    assert not [t for t in caps['numpy'] if above(t)], caps['numpy']
    assert not [n for n, on in caps['opencv'].items() if on and above(n)]
    name, features = caps['numba']
    assert name == tool.LEVELS[level]['numba']
    assert not [f for f in features.split(',')
                if f.startswith('+') and above(f[1:])], features


def test_feature_names_by_level():
    """Both spellings of numpy (2.x targets, 1.x features), OpenCV's and
    LLVM's, sorted on the right side of each level."""
    tool = _tool()
    avx512 = ['AVX512F', 'AVX512_SKX', 'AVX512_ICL', 'X86_V4', 'AVX512-SKX',
              'avx512bw', 'avx10.1-512']
    v3 = ['AVX', 'AVX2', 'FMA3', 'F16C', 'FP16', 'X86_V3', 'avx2', 'fma',
          'f16c', 'vaes', 'vpclmulqdq']
    v2 = ['SSE42', 'SSE41', 'POPCNT', 'X86_V2', 'sse4.2', 'popcnt', 'cx16',
          'bmi2', 'lzcnt']
    assert all(tool.ABOVE['AVX2'](n) for n in avx512)
    assert not any(tool.ABOVE['AVX2'](n) for n in v3 + v2)
    assert all(tool.ABOVE['SSE4.2'](n) for n in avx512 + v3)
    assert not any(tool.ABOVE['SSE4.2'](n) for n in v2)


def test_the_tool_holds_every_library_back():
    tool = _tool()
    level = tool.held_back_env()[tool.FLAG]
    caps, stderr = _capabilities(sys.executable, TOOL, '--')
    if level:
        _assert_held_back(tool, caps, level)
        assert stderr == ''
        # and the same process without the tool (nor the held-back
        # settings of `make test`'s second run) computes with more
        full, _ = _capabilities(env={
            k: v
            for k, v in os.environ.items() if k not in tool.VARIABLES
        })
        assert full['torch'] == TORCH_FULL[level]
        assert [n for n, on in full['opencv'].items()
                if on and tool.ABOVE[level](n)]
    else:  # nothing to hold back: the command runs as is
        assert 'running as is' in stderr


def test_print_gives_shell_assignments():
    tool = _tool()
    proc = subprocess.run([sys.executable, TOOL, '--print'],
                          capture_output=True, text=True, check=True)
    env = {}
    for line in proc.stdout.splitlines():
        key, _, value = line.partition('=')
        env[key] = value.strip("'")
    assert env == tool.held_back_env()


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
            assert caps['opencv']['AVX2']
