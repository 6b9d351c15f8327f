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

The child starts as ``python TOOL`` would: the start method of
``multiprocessing`` unset, ``sys.path`` the interpreter's own (not
pytest's) with the tool's folder first. Warnings raised while the
preloaded modules were imported are not shown again; a fresh interpreter
shows none of them
(``tests/test_utils/test_setup_env.py::test_a_fresh_interpreter``). What it
does not give, and where tests keep `subprocess`: a fresh interpreter (the
hash seed and environment variables that modules read when imported are
the forkserver's), and a process to send signals to mid-run. An uncaught
exception's traceback is preceded by a line naming the process, and
``atexit`` functions run before it is printed.
"""
import atexit
import functools
import json
import multiprocessing
import os
import os.path as osp
import runpy
import socket
import subprocess
import sys
import tempfile
import time
from typing import Any, Dict, List, Optional, Sequence

# Imported once in the forkserver (everything the tools import at the top
# and most of what they import later: robustdet's own rooms cost 0.7 s a
# run on the 2-core machines when each child imports them itself; then
# setuptools, which mmengine's environment log gets through distutils and
# torch.utils.cpp_extension imports, and torch.onnx, which mmdet's box
# coder and mmcv's RoIAlign ask whether an export runs: 0.3 s a run);
# then what a run imports on first use: torch._dynamo, which torch's
# DistributedDataParallel imports in every rank (0.8 s), the fast
# backend's numba kernels (0.2-0.9 s to load them from numba's cache) and
# scipy.stats, pm-k's confidence intervals (0.8 s). Last,
# tests/forkserver_ready.py: mmdet's metafiles parsed once for every
# child's config load, and what the imports made taken out of the garbage
# collector's scans and their finalizers out of a child's exit.
PRELOAD = ['robustdet', 'robustdet.utils.cli', 'mmengine.runner',
           'mmdet.models', 'mmdet.datasets', 'mmdet.evaluation',
           'mmdet.apis', 'mmcv.ops', 'robustdet.apis', 'robustdet.datasets',
           'robustdet.evaluation', 'robustdet.models', 'robustdet.video',
           'robustdet.stylize', 'robustdet.reports.html',
           'robustdet.reports.pmk', 'robustdet.reports.shift',
           'robustdet.reports.effective_robustness',
           'torch.utils.cpp_extension', 'torch.onnx', 'torch._dynamo',
           'robustdet.corruptions.fast', 'scipy.stats',
           'tests.forkserver_ready']

_context = None


def _forkserver():
    global _context
    if _context is None:
        _context = multiprocessing.get_context('forkserver')
        _context.set_forkserver_preload(PRELOAD)
    return _context


@functools.lru_cache(maxsize=None)
def _interpreter_path(pythonpath: Optional[str]) -> List[str]:
    """``sys.path`` of ``python TOOL`` but for its first entry (the tool's
    folder), with this ``PYTHONPATH``."""
    env = {k: v for k, v in os.environ.items() if k != 'PYTHONPATH'}
    if pythonpath is not None:
        env['PYTHONPATH'] = pythonpath
    code = 'import json, sys; print(json.dumps(sys.path))'
    out = subprocess.run([sys.executable, '-c', code], capture_output=True,
                         text=True, check=True, env=env, cwd='/').stdout
    return json.loads(out)[1:]


# Set to a folder, a child records there every path it (or a process it
# forks, dataloader workers included) opens for writing, renames onto or
# removes: ``<folder>/rank<RANK>.<pid>``, a path a line. Directories are
# not counted: mmengine's Runner makes the work dir and its log folder on
# every rank.
AUDIT_ENV = 'ROBUSTDET_AUDIT_WRITES'
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND


def _audit_writes(folder: str, rank: str) -> None:
    """Install an audit hook that records what this process writes
    (``sys.addaudithook``: Python's own file operations; files written
    by C code that bypasses them, e.g. OpenCV's ``imwrite``, are not
    seen)."""
    log = open(osp.join(folder, f'rank{rank}.{os.getpid()}'), 'a',
               buffering=1)

    def note(path):
        if isinstance(path, (str, bytes, os.PathLike)):
            log.write(osp.abspath(os.fsdecode(path)) + '\n')

    def hook(event, args):
        if event == 'open':
            path, mode, flags = args
            if (any(c in mode for c in 'wax+') if isinstance(mode, str)
                    else isinstance(flags, int) and flags & _WRITE_FLAGS):
                note(path)
        elif event in ('os.rename', 'os.replace'):
            note(args[1])
        elif event in ('os.remove', 'os.rmdir', 'shutil.rmtree'):
            note(args[0])

    sys.addaudithook(hook)


# Set to ``'<rank>:<n>'``, the child of that rank (``RANK``) never returns
# from the ``n``-th file it renames onto a final path (an atomic write's
# last step): a main thread stuck mid-work while the process lives on,
# for a tool without a config to register a stuck hook or metric in.
STUCK_ENV = 'ROBUSTDET_STUCK_AT_WRITE'


def _stuck_at_write(spec: str) -> None:
    """Install the audit hook of :data:`STUCK_ENV` (``'<rank>:<n>'``)."""
    rank, at = spec.split(':')
    if os.environ.get('RANK', '0') != rank:
        return
    count = [0]

    def hook(event, args):
        if event == 'os.rename':  # os.replace's event too
            count[0] += 1
            if count[0] == int(at):
                stuck_for_an_hour()

    sys.addaudithook(hook)


def stuck_for_an_hour() -> None:
    """Never return (for an hour), in short sleeps: a main thread stuck
    in Python code takes the watchdog's interrupt at once, where one long
    sleep would take it only when it ends (the watchdog then ends the
    process after another ``--dist-stall-timeout``, as for a main thread
    blocked in a collective operation)."""
    end = time.monotonic() + 3600
    while time.monotonic() < end:
        time.sleep(0.1)


def audited_writes(folder: str) -> Dict[int, List[str]]:
    """What each rank recorded (:data:`AUDIT_ENV`): rank -> paths."""
    found: Dict[int, List[str]] = {}
    for name in sorted(os.listdir(folder)):
        rank = int(name[len('rank'):].split('.')[0])
        with open(osp.join(folder, name), encoding='utf-8') as f:
            found.setdefault(rank, []).extend(f.read().splitlines())
    return found


def check_stuck_rank_stopped(procs: Sequence[Any], took: float,
                             stall: int = 5, within: float = 60) -> None:
    """Assert that a 2-rank run whose rank 1 got stuck ended as the
    watchdog ends it: both ranks with status 3, rank 0's last line naming
    rank 1 (no heartbeat for ``stall`` s), rank 1's saying it stops too,
    within ``within`` s.

    Args:
        procs (Sequence[CompletedProcess]): The ranks' (:func:`run_ranks`).
        took (float): Seconds from their start to their end.
        stall (int): The run's ``--dist-stall-timeout``.
        within (float): The bound on ``took``.
    """
    assert procs[0].returncode == 3, procs[0].stderr[-3000:]
    last = procs[0].stderr.strip().splitlines()[-1]
    assert last.startswith(
        f'error: rank 1 stopped (no heartbeat for {stall} s'), last
    assert procs[1].returncode == 3, procs[1].stderr[-3000:]
    # Rank 1 (stuck) ends with its own line: what rank 0 found, or that
    # its store is gone.
    last = procs[1].stderr.strip().splitlines()[-1]
    assert last.startswith('error: ') and 'rank 1 stops too' in last, last
    assert took < within, took


def check_only_rank0_writes(folder: str, work_dir: str) -> List[str]:
    """Assert that no rank but 0 wrote under ``work_dir``; return what
    they wrote elsewhere (temporary files, caches), for the test to
    check."""
    work_dir = osp.abspath(str(work_dir))
    found = audited_writes(folder)
    assert 0 in found and any(
        p.startswith(work_dir + os.sep) for p in found[0]), (
            'rank 0 wrote nothing under the work dir: the audit saw nothing')
    others = [p for rank, paths in found.items() if rank != 0
              for p in paths]
    inside = [p for p in others
              if p == work_dir or p.startswith(work_dir + os.sep)]
    assert not inside, f'ranks other than 0 wrote under {work_dir}: {inside}'
    return sorted(set(others))


def _child(script: str, args: Sequence[str], cwd: str, env: Dict[str, str],
           path: List[str], out_path: str, err_path: str) -> None:
    for fd, name in ((1, out_path), (2, err_path)):
        with open(name, 'wb') as f:
            os.dup2(f.fileno(), fd)
    if env.get(AUDIT_ENV):
        _audit_writes(env[AUDIT_ENV], env.get('RANK', '0'))
    # As in a fresh interpreter: no start method chosen yet.
    multiprocessing.set_start_method(None, force=True)
    os.chdir(cwd)
    os.environ.clear()
    os.environ.update(env)
    if env.get(STUCK_ENV):
        _stuck_at_write(env[STUCK_ENV])
    sys.argv = [script, *args]
    sys.path[:] = [osp.dirname(osp.abspath(script)), *path]
    # The test suite's own modules (this one came along to run the child)
    # are not importable by `python TOOL`.
    for name in [n for n in sys.modules if n.split('.')[0] == 'tests']:
        del sys.modules[name]
    try:
        runpy.run_path(script, run_name='__main__')
    finally:
        # The interpreter would run these at exit; a forked child ends in
        # os._exit.
        atexit._run_exitfuncs()
        sys.stdout.flush()
        sys.stderr.flush()


class ToolProcess:
    """``python SCRIPT ARGS`` running in a process forked from the
    forkserver (:func:`run_tool` waits for one).

    Args:
        script (str): The tool, relative to ``cwd`` or absolute.
        args (Sequence[str]): Its arguments.
        cwd (str, optional): Working directory; this process's if None.
        env (dict, optional): The environment; this process's if None.
            Only what is read after the preloaded imports takes effect.
    """

    def __init__(self, script: str, args: Sequence[Any] = (),
                 cwd: Optional[str] = None,
                 env: Optional[Dict[str, str]] = None) -> None:
        cwd = os.getcwd() if cwd is None else str(cwd)
        env = dict(os.environ if env is None else env)
        self.argv = [sys.executable, script, *map(str, args)]
        path = _interpreter_path(env.get('PYTHONPATH'))
        self._tmp = tempfile.TemporaryDirectory()
        self._out = osp.join(self._tmp.name, 'stdout')
        self._err = osp.join(self._tmp.name, 'stderr')
        self.process = _forkserver().Process(
            target=_child,
            args=(script, self.argv[2:], cwd, env, path, self._out,
                  self._err))
        self.process.start()

    @property
    def pid(self) -> int:
        return self.process.pid

    def kill(self) -> None:
        """SIGKILL, if it still runs."""
        if self.process.is_alive():
            self.process.kill()
        self.process.join()

    def wait(self, timeout: float = 600) -> subprocess.CompletedProcess:
        """Wait for the end (killed after ``timeout`` seconds, raising
        ``subprocess.TimeoutExpired``, as when the wait is interrupted).

        Returns:
            subprocess.CompletedProcess: ``returncode``, ``stdout`` and
            ``stderr`` (text), as ``subprocess.run(capture_output=True,
            text=True)`` gives them.
        """
        try:
            self.process.join(timeout)
            if self.process.exitcode is None:
                raise subprocess.TimeoutExpired(self.argv, timeout)
            return subprocess.CompletedProcess(self.argv,
                                               self.process.exitcode,
                                               _read(self._out),
                                               _read(self._err))
        finally:
            # As subprocess.run: a timeout, or an interrupted test, kills.
            self.close()

    def close(self) -> None:
        """Kill it if it still runs, and drop its captured streams (for a
        run that is not waited for)."""
        self.kill()
        self._tmp.cleanup()


def run_tool(script: str, *args: Any, cwd: Optional[str] = None,
             env: Optional[Dict[str, str]] = None,
             timeout: float = 600) -> subprocess.CompletedProcess:
    """``python SCRIPT ARGS`` in a process forked from the forkserver.

    Args:
        script (str): The tool, relative to ``cwd`` or absolute.
        *args: Its arguments (made strings).
        cwd (str, optional): Working directory; this process's if None.
        env (dict, optional): The environment; this process's if None.
        timeout (float): Seconds before the run is killed and
            ``subprocess.TimeoutExpired`` raised.

    Returns:
        subprocess.CompletedProcess: As ``subprocess.run(
        capture_output=True, text=True)`` gives it.
    """
    return ToolProcess(script, args, cwd, env).wait(timeout)


def free_port() -> int:
    """A TCP port nothing listens on now (on 127.0.0.1)."""
    with socket.socket() as sock:
        sock.bind(('127.0.0.1', 0))
        return sock.getsockname()[1]


def rank_env(rank: int, world_size: int, port: int,
             env: Optional[Dict[str, str]] = None) -> Dict[str, str]:
    """The environment torchrun gives a rank on one machine."""
    return dict(os.environ if env is None else env, RANK=str(rank),
                LOCAL_RANK=str(rank), WORLD_SIZE=str(world_size),
                LOCAL_WORLD_SIZE=str(world_size), MASTER_ADDR='127.0.0.1',
                MASTER_PORT=str(port))


def start_ranks(script: str, args: Sequence[Any], world_size: int,
                cwd: Optional[str] = None,
                rank_args: Optional[Sequence[Sequence[Any]]] = None,
                port: Optional[int] = None,
                audit: Optional[str] = None,
                env: Optional[Dict[str, str]] = None) -> List[ToolProcess]:
    """Start ``world_size`` ranks of ``python SCRIPT ARGS --launcher
    pytorch`` on this machine, as torchrun would (rank 0 holds the
    rendezvous store at ``port``).

    Args:
        script (str): The tool.
        args (Sequence): Every rank's arguments.
        world_size (int): How many ranks.
        cwd (str, optional): Working directory.
        rank_args (Sequence[Sequence], optional): More arguments, per rank.
        port (int, optional): ``MASTER_PORT``; a free one if None.
        audit (str, optional): A folder to record each rank's writes in
            (:data:`AUDIT_ENV`, :func:`check_only_rank0_writes`).
        env (dict, optional): More environment variables for every rank.

    Returns:
        list[ToolProcess]: The ranks, in order.
    """
    port = free_port() if port is None else port
    extra = dict(env or {})
    if audit:
        extra[AUDIT_ENV] = str(audit)
    return [
        ToolProcess(script, [*args, *(rank_args[r] if rank_args else ()),
                             '--launcher', 'pytorch'], cwd,
                    dict(rank_env(r, world_size, port), **extra))
        for r in range(world_size)
    ]


def run_ranks(script: str, *args: Any, world_size: int = 2,
              cwd: Optional[str] = None, timeout: float = 600,
              **kwargs) -> List[subprocess.CompletedProcess]:
    """:func:`start_ranks`, then wait for every rank.

    Returns:
        list[subprocess.CompletedProcess]: Each rank's, in order.
    """
    ranks = start_ranks(script, args, world_size, cwd, **kwargs)
    try:
        return [rank.wait(timeout) for rank in ranks]
    finally:
        for rank in ranks:
            rank.kill()


def _read(path: str) -> str:
    """A captured stream ('' if the child died before opening it)."""
    if not osp.exists(path):
        return ''
    with open(path, encoding='utf-8', errors='replace') as f:
        return f.read()
