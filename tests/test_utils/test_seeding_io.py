# Copyright (c) robustdet contributors. All rights reserved.
import json
import os
import subprocess
import sys

from robustdet.utils import derive_seed, seeding
from robustdet.utils.io import dump_json_atomic


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
