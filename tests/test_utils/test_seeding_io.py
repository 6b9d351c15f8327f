# Copyright (c) robustdet contributors. All rights reserved.
import json
import os
import subprocess
import sys

import pytest

from robustdet.utils import derive_seed, seeding
from robustdet.utils.io import dump_json_atomic, write_files_atomic


def test_derive_seed_stable_across_processes():
    parts = (0, 'val2017/000001.jpg', 'fog', 3)
    here = derive_seed(*parts)
    # The module alone (it imports only hashlib), not the package with
    # torch and mmdet: the same file, in a process with another hash seed.
    code = ('import runpy;'
            f'derive_seed = runpy.run_path({seeding.__file__!r})'
            "['derive_seed'];"
            f'print(derive_seed(*{parts!r}))')
    env = dict(os.environ, PYTHONHASHSEED='123')
    out = subprocess.run([sys.executable, '-c', code], env=env,
                         capture_output=True, text=True, check=True).stdout
    assert int(out) == here
    assert 0 <= here < 2**32


def test_derive_seed_distinguishes_parts():
    seeds = {
        derive_seed(0, 'a', 'fog', 1),
        derive_seed(1, 'a', 'fog', 1),
        derive_seed(0, 'b', 'fog', 1),
        derive_seed(0, 'a', 'snow', 1),
        derive_seed(0, 'a', 'fog', 2),
        derive_seed(0, 'a', 'fog', '2'),  # types matter
    }
    assert len(seeds) == 6


def test_dump_json_atomic_leaves_no_temp_files(tmp_path):
    path = tmp_path / 'sub' / 'r.json'
    dump_json_atomic({'a': 1}, str(path))
    dump_json_atomic({'a': 2}, str(path))
    assert json.loads(path.read_text()) == {'a': 2}
    assert os.listdir(path.parent) == ['r.json']


def test_write_files_atomic_in_order_text_bytes_and_late_contents(tmp_path):
    made = []

    def plot():
        made.append(sorted(os.listdir(tmp_path / 'out')))
        return b'\x89PNG'

    def broken():
        raise ValueError('no plot')

    out = str(tmp_path / 'out')
    paths = write_files_atomic(out, [('r.md', 'µ\n'), ('r.png', plot)])
    assert paths == [os.path.join(out, 'r.md'), os.path.join(out, 'r.png')]
    assert (tmp_path / 'out' / 'r.md').read_bytes() == 'µ\n'.encode()
    assert (tmp_path / 'out' / 'r.png').read_bytes() == b'\x89PNG'
    # A function is called when its file's turn comes: after r.md.
    assert made == [['r.md']]
    # A failing one leaves the files before it, and no temporary file.
    with pytest.raises(ValueError, match='no plot'):
        write_files_atomic(out, [('a.csv', 'x'), ('b.png', broken)])
    assert sorted(os.listdir(out)) == ['a.csv', 'r.md', 'r.png']
