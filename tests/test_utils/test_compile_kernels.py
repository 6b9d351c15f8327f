# Copyright (c) robustdet contributors. All rights reserved.
"""tools/dev/compile_kernels.py, which `make test` runs first: it covers
every module with cached kernels, and compiles or loads them for this CPU
and the held-back one."""
import glob
import importlib.util
import os
import os.path as osp
import re
import subprocess
import sys

from tests.conftest import REPO

TOOL = osp.join(REPO, 'tools', 'dev', 'compile_kernels.py')


def _module(path):
    spec = importlib.util.spec_from_file_location(
        osp.splitext(osp.basename(path))[0], path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_module_with_cached_kernels():
    tool = _module(TOOL)
    cached = set()
    for path in glob.glob(osp.join(REPO, 'robustdet', '**', '*.py'),
                          recursive=True):
        with open(path, encoding='utf-8') as f:
            if 'cache=True' in f.read():
                rel = osp.relpath(path, REPO)[:-3]
                cached.add(rel.replace(osp.sep, '.'))
    assert cached - set(tool.MODULES) == {'robustdet.models.roi_align'}
    assert set(tool.MODULES) <= cached


def test_compiles_or_loads_them_for_both_targets():
    held_back = _module(osp.join(REPO, 'tools', 'dev', 'held_back_cpu.py'))
    # Nothing to hold back, or held back already (make test-held-back):
    # one line.
    level = held_back.held_back_env()[held_back.FLAG]
    if os.environ.get(held_back.FLAG):
        level = ''
    proc = subprocess.run([sys.executable, TOOL, '--held-back'],
                          capture_output=True, text=True, cwd=REPO,
                          timeout=600)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert len(lines) == (2 if level else 1), proc.stdout
    if level:
        assert lines[1].startswith(
            f'compile_kernels, held back to {level}: '), lines[1]
    for line in lines:
        kernels, hits, compiled = map(int, re.search(
            r': (\d+) kernels: (\d+) signatures from the cache, (\d+) '
            r'compiled$', line).groups())
        assert kernels >= 30 and hits + compiled >= 29, line
