# Copyright (c) robustdet contributors. All rights reserved.
"""Run a command-line tool in a real process without paying for its
imports every time.

Every tool imports torch, mmengine, mmcv and mmdet, about 7 s on the 2-core
test machines: half of the suite's time went into starting processes. A
forkserver (`multiprocessing`) imports them once per test process; each
run forks a fresh child from it, which sets its own working directory,
environment, ``sys.argv`` and standard streams (at the file descriptors,
so that what its own children write is caught too) and runs the tool as
``__main__``, as ``python TOOL ARGS`` does. It is a separate process with
its own exit status, files and memory, so one-line errors, exit codes and
what a run writes are tested as in a subprocess.

What it does not give, and where tests keep `subprocess`: a fresh
interpreter (the hash seed and environment variables that modules read
when imported are the forkserver's), and a process to send signals to
mid-run.
"""
import atexit
import multiprocessing
import os
import os.path as osp
import runpy
import subprocess
import sys
import tempfile
from typing import Dict, Optional, Sequence

# Imported once in the forkserver (everything the tools import at the top
# and most of what they import later).
PRELOAD = ['robustdet', 'robustdet.utils.cli', 'mmengine.runner',
           'mmdet.models', 'mmdet.datasets', 'mmdet.evaluation',
           'mmdet.apis', 'mmcv.ops']

_context = None


def _forkserver():
    global _context
    if _context is None:
        _context = multiprocessing.get_context('forkserver')
        _context.set_forkserver_preload(PRELOAD)
    return _context


def _child(script: str, args: Sequence[str], cwd: str, env: Dict[str, str],
           out_path: str, err_path: str) -> None:
    for fd, path in ((1, out_path), (2, err_path)):
        with open(path, 'wb') as f:
            os.dup2(f.fileno(), fd)
    os.chdir(cwd)
    os.environ.clear()
    os.environ.update(env)
    sys.argv = [script, *args]
    sys.path[0] = osp.dirname(osp.abspath(script))
    try:
        runpy.run_path(script, run_name='__main__')
    finally:
        # The interpreter would run these at exit; a forked child ends in
        # os._exit.
        atexit._run_exitfuncs()
        sys.stdout.flush()
        sys.stderr.flush()


def run_tool(script: str, *args: str, cwd: Optional[str] = None,
             env: Optional[Dict[str, str]] = None,
             timeout: float = 600) -> subprocess.CompletedProcess:
    """``python SCRIPT ARGS`` in a process forked from the forkserver.

    Args:
        script (str): The tool, relative to ``cwd`` or absolute.
        *args (str): Its arguments.
        cwd (str, optional): Working directory; this process's if None.
        env (dict, optional): The environment; this process's if None.
            Only what is read after the preloaded imports takes effect.
        timeout (float): Seconds before the run is killed and
            ``subprocess.TimeoutExpired`` raised.

    Returns:
        subprocess.CompletedProcess: ``returncode``, ``stdout`` and
        ``stderr`` (text), as ``subprocess.run(capture_output=True,
        text=True)`` gives them.
    """
    cwd = os.getcwd() if cwd is None else str(cwd)
    env = dict(os.environ if env is None else env)
    args = [str(a) for a in args]
    with tempfile.TemporaryDirectory() as tmp:
        out, err = osp.join(tmp, 'stdout'), osp.join(tmp, 'stderr')
        proc = _forkserver().Process(
            target=_child, args=(script, args, cwd, env, out, err))
        proc.start()
        proc.join(timeout)
        if proc.exitcode is None:
            proc.kill()
            proc.join()
            raise subprocess.TimeoutExpired([script, *args], timeout)
        with open(out, encoding='utf-8', errors='replace') as f:
            stdout = f.read()
        with open(err, encoding='utf-8', errors='replace') as f:
            stderr = f.read()
    return subprocess.CompletedProcess([sys.executable, script, *args],
                                       proc.exitcode, stdout, stderr)
