# Copyright (c) robustdet contributors. All rights reserved.
"""tests/tool_process.py runs a tool as ``python TOOL ARGS`` does: same
exit status, streams, working directory, environment, ``sys.path`` and
start method, compared here with real interpreters."""
import json
import os
import subprocess
import sys
import time

import pytest

from tests.tool_process import (AUDIT_ENV, audited_writes,
                                check_only_rank0_writes, run_tool)

REPORT = """
import importlib.util, json, multiprocessing, os, sys
os.system('echo from-a-child-process 1>&2')
print(json.dumps(dict(
    argv=sys.argv[1:], cwd=os.getcwd(), env=os.environ.get('TOOL_TEST'),
    path0=sys.path[0], tests=importlib.util.find_spec('tests') is not None,
    start_method=multiprocessing.get_start_method(allow_none=True))))
"""


def _both(script, *args, **kwargs):
    """The forked run and the real interpreter's."""
    forked = run_tool(script, *args, **kwargs)
    real = subprocess.run([sys.executable, script, *args], capture_output=True,
                          text=True, **kwargs)
    return forked, real


def test_runs_like_a_fresh_interpreter(tmp_path):
    script = tmp_path / 'report.py'
    script.write_text(REPORT)
    env = {'TOOL_TEST': 'yes', 'PATH': '/usr/bin:/bin'}
    forked, real = _both(str(script), 'a b', '--x', cwd=str(tmp_path),
                         env=env)
    assert forked.returncode == real.returncode == 0
    assert forked.stdout == real.stdout
    assert forked.stderr == real.stderr == 'from-a-child-process\n'
    got = json.loads(forked.stdout)
    assert got == dict(argv=['a b', '--x'], cwd=str(tmp_path), env='yes',
                       path0=str(tmp_path), tests=False, start_method=None)


@pytest.mark.parametrize('body, status', [
    ('pass', 0),
    ('import sys; sys.exit(3)', 3),
    ('import sys; sys.exit("one line")', 1),
    ('raise ValueError("a bug")', 1),
    ('import sys; print("out"); sys.stdout.flush(); sys.exit(0)', 0),
])
def test_exit_status_and_streams(tmp_path, body, status):
    script = tmp_path / 'tool.py'
    script.write_text(body + '\n')
    forked, real = _both(str(script))
    assert forked.returncode == real.returncode == status
    assert forked.stdout == real.stdout
    # The last line of stderr (the message, or the exception) is the same;
    # a traceback has one more line before it naming the process.
    assert forked.stderr.strip().splitlines()[-1:] == \
        real.stderr.strip().splitlines()[-1:]


def test_timeout_kills_the_run(tmp_path):
    script = tmp_path / 'slow.py'
    script.write_text('import time\ntime.sleep(60)\n')
    start = time.monotonic()
    with pytest.raises(subprocess.TimeoutExpired):
        run_tool(str(script), timeout=1)
    assert time.monotonic() - start < 30


def test_audit_sees_a_rank_writing(tmp_path):
    """The write audit of the distributed tests can fail: a rank other
    than 0 that writes into the work dir, by open(), os.open() or an
    atomic rename, is caught; rank 0 writing is not."""
    work = tmp_path / 'work'
    work.mkdir()
    script = tmp_path / 'writer.py'
    script.write_text(
        'import os, sys\n'
        'd = sys.argv[1]\n'
        'open(os.path.join(d, "a.txt"), "w").close()\n'
        'fd = os.open(os.path.join(d, "b.tmp"), os.O_CREAT | os.O_WRONLY)\n'
        'os.close(fd)\n'
        'os.replace(os.path.join(d, "b.tmp"), os.path.join(d, "b.txt"))\n')
    audit = tmp_path / 'audit'
    audit.mkdir()
    for rank in ('0', '1'):
        env = dict(os.environ, RANK=rank, **{AUDIT_ENV: str(audit)})
        assert run_tool(str(script), work, env=env).returncode == 0
    found = audited_writes(str(audit))
    assert sorted(found[1]) == sorted(
        str(work / n) for n in ('a.txt', 'b.tmp', 'b.txt'))
    with pytest.raises(AssertionError, match='ranks other than 0 wrote'):
        check_only_rank0_writes(str(audit), work)


READY = """
import gc, json, weakref
from robustdet.utils.config_text import ParsedOnceYamlHandler
frozen, tracked = gc.get_freeze_count(), len(gc.get_objects())
gc.unfreeze()
finalizers = [o for o in gc.get_objects() if type(o) is weakref.finalize]
print(json.dumps(dict(
    frozen=frozen, tracked=tracked, parsed=len(ParsedOnceYamlHandler.parsed),
    finalizers=len(finalizers), at_exit=sum(f.atexit for f in finalizers))))
"""


def test_forkserver_is_ready(tmp_path):
    """A forked run starts as tests/forkserver_ready.py left the
    forkserver: the imports frozen, mmdet's metafiles parsed, and the
    preloaded objects' finalizers (torch's libraries) not run at exit."""
    script = tmp_path / 'ready.py'
    script.write_text(READY)
    proc = run_tool(str(script))
    assert proc.returncode == 0, proc.stderr[-2000:]
    got = json.loads(proc.stdout)
    assert got['frozen'] > 100_000 and got['tracked'] < 10_000, got
    assert got['parsed'] > 50, got  # about a hundred metafiles
    assert got['finalizers'] > 100 and got['at_exit'] == 0, got
