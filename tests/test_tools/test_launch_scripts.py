# Copyright (c) robustdet contributors. All rights reserved.
"""tools/dist_*.sh and tools/slurm_*.sh hand each tool its arguments and
the launcher, through tools/dist_launch.sh (torchrun) and
tools/slurm_launch.sh (srun). Here ``PYTHON`` is a stand-in that records
its command line, and ``srun`` is tests/fake_slurm/srun; the real launches
are in tests/test_docs/test_docs.py and the tools' ``over_processes``
tests."""
import json
import os
import os.path as osp
import subprocess

import pytest

from tests.conftest import REPO

RECORD = """#!/usr/bin/env python3
import json, os, sys
with open(os.environ['RECORD'], 'a') as f:
    f.write(json.dumps(dict(argv=sys.argv[1:], env={
        k: os.environ.get(k) for k in ('SLURM_PROCID', 'PYTHONPATH')})) +
        '\\n')
"""

# script, its arguments, the tool, the tool's arguments
CASES = [
    ('dist_test_robust.sh', ['c.py', 'k.pth', '3', '--seed', '1'],
     'test_robust.py', ['c.py', 'k.pth', '--seed', '1']),
    ('dist_test_pmk.sh', ['c.py', 'k.pth', '3', '--k', '5'], 'test_pmk.py',
     ['c.py', 'k.pth', '--k', '5']),
    ('dist_test_shift.sh', ['c.py', 'k.pth', '3', '--benchmark', 'b'],
     'test_shift.py', ['c.py', 'k.pth', '--benchmark', 'b']),
    ('dist_train.sh', ['c.py', '3', '--resume'], 'train.py',
     ['c.py', '--resume']),
    ('dist_stylize_dataset.sh', ['3', '--coco', 'a b', 'i'],
     'stylize_dataset.py', ['--coco', 'a b', 'i']),
    ('slurm_test_robust.sh', ['p', 'j', 'c.py', 'k.pth', '--seed', '1'],
     'test_robust.py', ['c.py', 'k.pth', '--seed', '1']),
    ('slurm_test_pmk.sh', ['p', 'j', 'c.py', 'k.pth'], 'test_pmk.py',
     ['c.py', 'k.pth']),
    ('slurm_test_shift.sh', ['p', 'j', 'c.py', 'k.pth', '--benchmark', 'b'],
     'test_shift.py', ['c.py', 'k.pth', '--benchmark', 'b']),
    ('slurm_train.sh', ['p', 'j', 'c.py'], 'train.py', ['c.py']),
    ('slurm_stylize_dataset.sh', ['p', 'j', '--coco', 'a b', 'i'],
     'stylize_dataset.py', ['--coco', 'a b', 'i']),
]


@pytest.mark.parametrize('script,args,tool,tool_args', CASES,
                         ids=[c[0] for c in CASES])
def test_arguments_reach_the_tool(script, args, tool, tool_args, tmp_path):
    python = tmp_path / 'python'
    python.write_text(RECORD)
    python.chmod(0o755)
    record = tmp_path / 'record.jsonl'
    srun_log = tmp_path / 'srun.jsonl'
    env = dict(os.environ, PYTHON=str(python), RECORD=str(record),
               FAKE_SRUN_LOG=str(srun_log), GPUS='2', GPUS_PER_NODE='2',
               CPUS_PER_TASK='4', SRUN_ARGS='--time=1:00 --mem=8G',
               PATH=osp.join(REPO, 'tests', 'fake_slurm') + os.pathsep +
               os.environ['PATH'])
    # The stand-in is not torch: for torchrun, record what it was given.
    proc = subprocess.run([osp.join(REPO, 'tools', script), *args],
                          env=env, capture_output=True, text=True, cwd='/')
    assert proc.returncode == 0, proc.stderr
    calls = [json.loads(line) for line in record.read_text().splitlines()]
    tool_path = osp.join(REPO, 'tools', tool)
    if script.startswith('dist_'):
        call, = calls
        assert call['argv'] == [
            '-m', 'torch.distributed.run', '--nnodes=1', '--node_rank=0',
            '--master_addr=127.0.0.1', '--master_port=29500',
            '--nproc_per_node=3', tool_path, *tool_args, '--launcher',
            'pytorch']
    else:
        assert [c['env']['SLURM_PROCID'] for c in calls] in (['0', '1'],
                                                             ['1', '0'])
        for call in calls:
            assert call['argv'] == ['-u', tool_path, *tool_args,
                                    '--launcher', 'slurm']
        srun, = [json.loads(line)
                 for line in srun_log.read_text().splitlines()]
        assert srun['options'] == {
            '--partition': 'p', '--job-name': 'j', '--gres': 'gpu:2',
            '--ntasks': '2', '--ntasks-per-node': '2',
            '--cpus-per-task': '4', '--kill-on-bad-exit': '1',
            '--time': '1:00', '--mem': '8G'}
    assert calls[0]['env']['PYTHONPATH'].split(os.pathsep)[0] == \
        osp.join(REPO, 'tools', '..')


def test_missing_arguments():
    for script in ('dist_launch.sh', 'slurm_launch.sh',
                   *(case[0] for case in CASES)):
        proc = subprocess.run([osp.join(REPO, 'tools', script)],
                              capture_output=True, text=True)
        assert proc.returncode == 2
        assert proc.stderr.startswith('usage: '), (script, proc.stderr)
