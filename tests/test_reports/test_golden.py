# Copyright (c) robustdet contributors. All rights reserved.
"""Every report robustdet writes, byte for byte against golden files made
before the reports became a view model and templates (issue 33; see
``tests/report_goldens.py`` for the inputs and how to regenerate)."""
import os
import os.path as osp

from tests.report_goldens import GOLDEN, ROOT, render


def _files(folder):
    return sorted(
        osp.relpath(osp.join(dirpath, name), folder)
        for dirpath, _, names in os.walk(folder) for name in names)


def _first_difference(made, golden):
    made = made.decode('utf-8').splitlines()
    golden = golden.decode('utf-8').splitlines()
    first = next((i for i, (a, b) in enumerate(zip(made, golden))
                  if a != b), min(len(made), len(golden)))
    return (f'from line {first + 1}: made {made[first:first + 1]}, '
            f'golden {golden[first:first + 1]}')


def test_every_report_byte_identical_to_its_golden_file(tmp_path):
    # One test, one rendering (the page's plots take seconds).
    cwd = os.getcwd()
    os.chdir(ROOT)  # the inputs' paths are relative to it
    try:
        render(str(tmp_path))
    finally:
        os.chdir(cwd)
    assert _files(tmp_path) == _files(GOLDEN)
    differ = []
    for name in _files(GOLDEN):
        with open(osp.join(tmp_path, name), 'rb') as f:
            made = f.read()
        with open(osp.join(GOLDEN, name), 'rb') as f:
            golden = f.read()
        if made != golden:
            differ.append(f'{name} differs {_first_difference(made, golden)}')
    assert not differ, '\n'.join(differ)
