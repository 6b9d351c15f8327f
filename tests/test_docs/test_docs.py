# Copyright (c) robustdet contributors. All rights reserved.
"""The shell blocks of docs/ run, in order, on the test fixtures (the small
demo data and the committed demo checkpoint), and what they produce is
what the page says.

A page's first block sets ``CONFIG`` and ``CKPT`` for the reader (the
demo's paths); the test sets them to the fixtures instead, and checks that
the block does nothing else. The blocks run in a scratch directory that
links the repository's ``tools/`` and ``configs/``, with the venv first on
``PATH`` and tests/fake_slurm/ (a one-machine ``srun``) after it."""
import os
import os.path as osp
import re
import subprocess
import sys

from robustdet.apis.results import RESULTS_FILE, load_results
from tests.conftest import REPO
from tests.tool_process import free_port

BLOCK = re.compile(r'^```bash\n(.*?)^```', re.S | re.M)


def run_page(page, config, ckpt, scratch):
    """Run the bash blocks of ``docs/<page>`` after its setup block.

    Returns:
        list[str]: The blocks run.
    """
    with open(osp.join(REPO, 'docs', page)) as f:
        setup, *blocks = BLOCK.findall(f.read())
    assigned = re.findall(r'^([A-Z_]+)=', setup, re.M)
    code = [line for line in setup.splitlines()
            if line.strip() and not line.startswith('#')]
    assert assigned == ['CONFIG', 'CKPT'] and len(code) == 2, setup
    for name in ('tools', 'configs'):
        os.symlink(osp.join(REPO, name), osp.join(scratch, name))
    env = dict(
        os.environ, CONFIG=config, CKPT=ckpt, PYTHON=sys.executable,
        PATH=os.pathsep.join([osp.dirname(sys.executable),
                              osp.join(REPO, 'tests', 'fake_slurm'),
                              os.environ['PATH']]),
        PORT=str(free_port()), MASTER_PORT=str(free_port()),
        # one thread a process, as torchrun sets it: the tests' machines
        # have 2 cores
        OMP_NUM_THREADS='1')
    for block in blocks:
        proc = subprocess.run(['bash', '-euo', 'pipefail', '-c', block],
                              cwd=scratch, env=env, capture_output=True,
                              text=True, timeout=600)
        assert proc.returncode == 0, (block, proc.stderr[-3000:])
    return blocks


def _numbers(path):
    results = load_results(str(path / RESULTS_FILE))
    return {k: results[k] for k in ('clean', 'cells', 'summary')}


def _files(path):
    """The files of a run, its log folder's timestamp left out."""
    found = set()
    for root, _, files in os.walk(path):
        for name in files:
            rel = osp.relpath(osp.join(root, name), path)
            found.add(re.sub(r'\d{8}_\d{6}', 'STAMP', rel))
    return found


def test_distributed(demo_checkpoint, tmp_path):
    blocks = run_page('distributed.md', *demo_checkpoint, str(tmp_path))
    assert len(blocks) == 3
    runs = tmp_path / 'work_dirs' / 'dist-demo'
    one = _numbers(runs / 'one')
    assert len(one['cells']) == 2 and one['summary']
    assert _numbers(runs / 'torchrun') == one
    assert _files(runs / 'torchrun') == _files(runs / 'one')
    # one shard on 2 torchrun processes, the other on 2 slurm tasks
    assert _numbers(runs / 'shards') == one
