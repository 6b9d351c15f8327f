# Copyright (c) robustdet contributors. All rights reserved.
"""The fuzz harness of the result-pickle loader
(``tools/dev/fuzz_safe_pickle.py``): its properties fail where they
should, its mutator makes varied pickles that the loader reads or refuses
in one line, its findings stay fixed, and a short coverage-guided run
(``FUZZ_SECONDS``, 10 s by default; ``make fuzz`` runs an hour) finds
nothing."""
import glob
import importlib.util
import os
import os.path as osp
import random
import re
import subprocess
import sys

import numpy as np
import pytest

from robustdet.utils import safe_pickle
from tests.conftest import REPO

HARNESS = osp.join(REPO, 'tools', 'dev', 'fuzz_safe_pickle.py')
FINDINGS = osp.join(REPO, 'tests', 'data', 'pickle_fuzz')
FUZZ_SECONDS = int(os.environ.get('ROBUSTDET_FUZZ_SECONDS', 10))


@pytest.fixture(scope='module')
def harness():
    spec = importlib.util.spec_from_file_location('fuzz_safe_pickle',
                                                  HARNESS)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    sys.addaudithook(module._audit)  # records only while a load runs
    return module


class _Loader:
    """A stand-in for the loader module whose ``loads_pickle`` misbehaves
    as told."""
    UnsafePickleError = safe_pickle.UnsafePickleError
    MAX_DEPTH = safe_pickle.MAX_DEPTH

    def __init__(self, loads):
        self.loads_pickle = loads


def test_properties_fail_for_what_they_exist_for(harness, tmp_path):
    def check(loads):
        return harness.make_test_one_input(_Loader(loads), 5.0)(b'x')

    views = np.zeros(8)
    cases = [
        (lambda d: views[2:], 'does not own its data'),
        (lambda d: [np.array([None], dtype=object)], 'an array of object'),
        (lambda d: {'a': np.str_('x')}, 'a numpy scalar of <U1'),
        (lambda d: {'a': 1 + 2j}, 'a value of type complex'),
        (lambda d: [[[1]]], None),
        (lambda d: open(tmp_path / 'w', 'w'), 'audit events while loading'),
        (lambda d: compile('1', 'x', 'eval'), 'audit events while loading'),
    ]
    for loads, words in cases:
        if words is None:
            check(loads)  # plain data passes
            continue
        with pytest.raises(harness.Finding, match=re.escape(words)):
            check(loads)
    deep = []
    for _ in range(safe_pickle.MAX_DEPTH + 1):
        deep = [deep]
    with pytest.raises(harness.Finding, match='nested deeper'):
        check(lambda d: deep)

    def two_lines(data):
        raise safe_pickle.UnsafePickleError('one\ntwo')

    with pytest.raises(harness.Finding, match='not a one-line message'):
        check(two_lines)

    def bug(data):
        raise KeyError(10)

    with pytest.raises(KeyError):  # libFuzzer reports it with the input
        check(bug)


def test_structure_mutations_are_read_or_refused_in_one_line(harness):
    """The opcode-level mutator, deterministically over the seed corpus:
    every mutant is plain data or one line, and no audit event fires."""
    test_one_input = harness.make_test_one_input(safe_pickle, 5.0)
    seeds = harness.seed_corpus()
    assert {'paper-py2', 'voc-p2', 'mmdet3-p5', 'attack-use after free',
            'code-INST'} <= set(seeds)
    rng = random.Random(0)
    refused = loaded = 0
    for _, seed in sorted(seeds.items()):
        for _ in range(20):
            data = harness.structure_mutate(seed, rng)
            test_one_input(data)
            try:
                safe_pickle.loads_pickle(data)
                loaded += 1
            except safe_pickle.UnsafePickleError:
                refused += 1
    assert loaded > 100 and refused > 500, (loaded, refused)


def test_findings_stay_fixed(harness):
    """Inputs the fuzzer once found (``tests/data/pickle_fuzz/``) and the
    seed corpus keep every property."""
    test_one_input = harness.make_test_one_input(safe_pickle, 5.0)
    found = sorted(glob.glob(osp.join(FINDINGS, '*')))
    inputs = [open(p, 'rb').read() for p in found]
    inputs += list(harness.seed_corpus().values())
    for data in inputs:
        test_one_input(data)


def test_short_fuzz_run_finds_nothing(tmp_path):
    proc = subprocess.run([
        sys.executable, HARNESS, '--seconds', str(FUZZ_SECONDS),
        '--work-dir', str(tmp_path)
    ], cwd=REPO, capture_output=True, text=True,
        timeout=FUZZ_SECONDS + 240)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out[-4000:]
    runs = re.search(r'stat::number_of_executed_units: (\d+)', out)
    assert runs and int(runs.group(1)) > 1000, out[-2000:]
    # Guided by coverage: the loader's modules were instrumented (a run
    # forked from a process that had imported them is not, and adds
    # nothing to its corpus).
    added = re.search(r'stat::new_units_added: +(\d+)', out)
    assert added and int(added.group(1)) > 0, out[-2000:]
    assert not os.listdir(tmp_path / 'findings')
