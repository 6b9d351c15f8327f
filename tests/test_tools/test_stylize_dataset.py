# Copyright (c) robustdet contributors. All rights reserved.
"""tools/stylize_dataset.py end to end (generated weights, tiny styles)
and its one-line errors."""
import json
import os
import os.path as osp
import time

import pytest

from demo_data.styles import write_style_images
from tests.conftest import REPO
from tests.tool_process import (STUCK_ENV, audited_writes,
                                check_stuck_rank_stopped, run_ranks, run_tool)

TOOL = osp.join(REPO, 'tools', 'stylize_dataset.py')


def run(*args):
    return run_tool(TOOL, *args, cwd=REPO)


def test_cli_voc_and_errors(demo_dir, tmp_path):
    styles = str(tmp_path / 'styles')
    write_style_images(styles, num=3, size=(40, 32))
    out = tmp_path / 'out'
    args = ['--voc', osp.join(demo_dir, 'VOCdevkit'), '--style-dir', styles,
            '--out-dir', str(out), '--generated-weights',
            '--content-size', '32', '--style-size', '32', '--device',
            'cpu']
    proc = run(*args)
    assert proc.returncode == 0, proc.stderr
    assert 'wrote 8 of 8 stylized images' in proc.stdout
    manifest = json.loads((out / 'stylize_manifest.json').read_text())
    assert manifest['settings']['weights'] == {
        'generated': 'robustdet.stylize.demo_weights'}
    assert run(*args).stdout.count('wrote 0 of 8') == 1  # resumed

    for bad, msg in [
        (['--alpha', '-0.1'], '--alpha must be in [0, 1]'),
        (['--out-dir', osp.join(demo_dir, 'VOCdevkit', 'x')],
         'inside the input tree'),
        (['--device', 'cuda:7'], None),
    ]:
        proc = run(*args, *bad)
        assert proc.returncode == 2, (bad, proc.stderr)
        lines = proc.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith('error: '), lines
        if msg:
            assert msg in lines[0], lines[0]


def _tree(root):
    """Every file below ``root``: relative path -> bytes."""
    files = {}
    for folder, _, names in os.walk(root):
        for name in names:
            path = osp.join(folder, name)
            with open(path, 'rb') as f:
                files[osp.relpath(path, root)] = f.read()
    return files


def test_over_processes_the_files_of_one(demo_dir, tmp_path):
    """Launched over 2 and 3 processes (8 images: an uneven split), the
    stylized files, annotations and records of one process, byte for
    byte; the summary from rank 0 only."""
    styles = str(tmp_path / 'styles')
    write_style_images(styles, num=3, size=(40, 32))
    args = ['--voc', osp.join(demo_dir, 'VOCdevkit'), '--style-dir', styles,
            '--generated-weights', '--content-size', '32', '--style-size',
            '32', '--device', 'cpu', '--num-styles', '2']
    proc = run(*args, '--out-dir', tmp_path / 'one')
    assert proc.returncode == 0, proc.stderr
    one = _tree(tmp_path / 'one')
    assert len([p for p in one if p.endswith('.jpg')]) == 16
    for world_size in (2, 3):
        out = tmp_path / f'w{world_size}'
        audit = tmp_path / f'audit{world_size}'
        audit.mkdir()
        procs = run_ranks(TOOL, *args, '--out-dir', out,
                          world_size=world_size, cwd=REPO, audit=audit)
        for p in procs:
            assert p.returncode == 0, p.stderr
        assert _tree(out) == one
        assert 'wrote 16 of 16 stylized images' in procs[0].stdout
        assert not any(p.stdout.strip() for p in procs[1:])
        _check_writers(audit, out, world_size)


def _check_writers(audit, out, world_size):
    """Every rank writes only its own stylized images (each file of the
    output by one rank, every rank some), and the annotations and records
    come from rank 0 (every file any rank opened for writing, created or
    renamed onto is recorded: tests/tool_process.py)."""
    prefix = str(out) + os.sep
    owners = {}
    for rank, paths in audited_writes(audit).items():
        for path in paths:
            if path.startswith(prefix) and osp.isfile(path):
                owners.setdefault(osp.relpath(path, out), set()).add(rank)
    assert set(owners) == set(_tree(out))
    assert all(len(ranks) == 1 for ranks in owners.values()), owners
    shared = {f: r for f, r in owners.items() if not f.endswith('.jpg')}
    assert shared and all(r == {0} for r in shared.values()), shared
    images = [r for f, r in owners.items() if f.endswith('.jpg')]
    assert set().union(*images) == set(range(world_size))


@pytest.mark.waits
def test_a_stuck_rank_stops_the_others(demo_dir, tmp_path):
    """Every batch is a step of the watchdog, as test_robust.py's are:
    rank 1's main thread stuck writing its second image (it never returns
    from the rename) ends both ranks with status 3 and the watchdog's
    line, long before --dist-timeout (120 s)."""
    styles = str(tmp_path / 'styles')
    write_style_images(styles, num=3, size=(40, 32))
    start = time.time()
    procs = run_ranks(
        TOOL, '--voc', osp.join(demo_dir, 'VOCdevkit'), '--style-dir',
        styles, '--generated-weights', '--content-size', '32',
        '--style-size', '32', '--device', 'cpu', '--num-styles', '2',
        '--out-dir', tmp_path / 'out', '--dist-timeout', '120',
        '--dist-stall-timeout', '5', cwd=REPO, env={STUCK_ENV: '1:2'},
        timeout=120)
    check_stuck_rank_stopped(procs, time.time() - start)
