# Copyright (c) robustdet contributors. All rights reserved.
"""Start the process group of a launched job: the one place where every
tool joins torchrun's, slurm's or MPI's processes.

mmengine's ``init_dist`` sets the CUDA device of every rank before it
starts the group, which fails with the CPU build of torch. robustdet's
tools call :func:`init_distributed` before they build a Runner (which then
finds the group started and uses it):

* the rank, world size, local rank and rendezvous address are read from
  the launcher's environment (torchrun's ``RANK``/``WORLD_SIZE``/
  ``LOCAL_RANK``/``MASTER_ADDR``/``MASTER_PORT``, slurm's ``SLURM_*``,
  Open MPI's ``OMPI_COMM_WORLD_*``); a missing variable is a one-line
  error saying how to launch;
* the backend is the config's ``env_cfg.dist_cfg.backend``, except that
  nccl (which every mmdet config inherits from ``default_runtime.py``)
  becomes gloo on a machine without CUDA; a backend given on the command
  line (``--cfg-options env_cfg.dist_cfg.backend=...``) is used as it is,
  and nccl without CUDA is then refused;
* on GPUs each rank uses its own device (``LOCAL_RANK``), as mmengine
  does; on a CPU no CUDA call is made;
* collective operations give up after ``timeout`` seconds, so that a rank
  that died does not hang the others for mmengine's default half hour;
* every rank beats a heartbeat into the rendezvous store, so that when a
  collective operation fails, the others can name the rank that stopped
  (:func:`describe_failure`, a one-line error of the tools).

:func:`check_same_job` then compares what each rank was asked to do.
"""
import _thread
import atexit
import datetime
import hashlib
import inspect
import json
import os
import subprocess
import sys
import threading
import time
from typing import Any, Callable, Dict, List, Optional, Set, Tuple

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel

from .errors import RobustDetError
from .evaluator_cfg import metric_cfgs

LAUNCHERS = ('none', 'pytorch', 'slurm', 'mpi')
# Seconds a collective operation waits for the other ranks.
DEFAULT_DIST_TIMEOUT = 300
DEFAULT_PORT = '29500'
# Seconds between heartbeats; a rank whose heartbeat does not move for
# HEARTBEAT_MISSED of them has stopped.
HEARTBEAT_INTERVAL = 1.0
HEARTBEAT_MISSED = 3
# Seconds a rank may go without a heartbeat before the others stop
# (--dist-stall-timeout): a killed, stopped (SIGSTOP) or frozen process
# stops beating; a busy one keeps beating, from its own thread.
DEFAULT_STALL_TIMEOUT = 30.0
# Within a stretch of steps (batches), a main thread that makes none for
# the stall timeout, or this many times its slowest step if longer, is
# stuck: its heartbeat stops too.
PROGRESS_FACTOR = 4
_HEARTBEAT_KEY = 'robustdet/heartbeat/{}'
# Set by a rank that finished its work: its heartbeat may stop.
DONE_KEY = 'robustdet/done/{}'
# What the first rank to find others stopped found (JSON: ranks, how), for
# the rest: every rank names the same ranks, even one that would only see
# rank 0's store go.
STOPPED_KEY = 'robustdet/stopped'
# Set by a rank that stops because others did: rank 0, which holds the
# store, waits for it before leaving.
LEAVING_KEY = 'robustdet/leaving/{}'
# The running job: rank, world size, timeout, store, heartbeat.
_JOB: Dict[str, Any] = {}

_HOW = {
    'pytorch': 'start it with torchrun (e.g. torchrun --nproc_per_node N '
    'TOOL ... --launcher pytorch) or tools/dist_*.sh',
    'slurm': 'start it with srun (or tools/slurm_*.sh)',
    'mpi': 'start it with mpirun (Open MPI) and set MASTER_ADDR',
}


def _int_env(environ: Dict[str, str], name: str, launcher: str) -> int:
    value = environ.get(name)
    if value is None:
        raise RobustDetError(
            f'--launcher {launcher} needs the environment variable {name}, '
            f'which is not set: {_HOW[launcher]}')
    try:
        return int(value)
    except ValueError:
        raise RobustDetError(
            f'--launcher {launcher}: {name}={value!r} is not an integer'
        ) from None


def launcher_env(launcher: str,
                 environ: Optional[Dict[str, str]] = None) -> Dict[str, Any]:
    """Where this process stands in the launched job.

    Args:
        launcher (str): ``'pytorch'``, ``'slurm'`` or ``'mpi'``.
        environ (dict, optional): The environment; ``os.environ`` if None.

    Returns:
        dict: ``rank``, ``world_size``, ``local_rank``, ``master_addr``
        and ``master_port`` (str).
    """
    environ = os.environ if environ is None else environ
    if launcher == 'pytorch':
        names = ('RANK', 'WORLD_SIZE', 'LOCAL_RANK')
        for name in (*names, 'MASTER_ADDR', 'MASTER_PORT'):
            if environ.get(name) is None:
                raise RobustDetError(
                    f'--launcher pytorch needs the environment variable '
                    f'{name}, which is not set: {_HOW[launcher]}')
        addr, port = environ['MASTER_ADDR'], environ['MASTER_PORT']
    elif launcher == 'slurm':
        names = ('SLURM_PROCID', 'SLURM_NTASKS', 'SLURM_LOCALID')
        addr = environ.get('MASTER_ADDR')
        if addr is None:
            nodes = environ.get('SLURM_NODELIST')
            if nodes is None:
                raise RobustDetError(
                    '--launcher slurm needs SLURM_NODELIST (or '
                    f'MASTER_ADDR), which is not set: {_HOW[launcher]}')
            addr = subprocess.getoutput(
                f'scontrol show hostname {nodes} | head -n1').strip()
        port = environ.get('MASTER_PORT', DEFAULT_PORT)
    elif launcher == 'mpi':
        names = ('OMPI_COMM_WORLD_RANK', 'OMPI_COMM_WORLD_SIZE',
                 'OMPI_COMM_WORLD_LOCAL_RANK')
        addr = environ.get('MASTER_ADDR')
        if addr is None:
            raise RobustDetError(
                '--launcher mpi needs the environment variable MASTER_ADDR, '
                f'which is not set: {_HOW[launcher]}')
        port = environ.get('MASTER_PORT', DEFAULT_PORT)
    else:
        raise RobustDetError(f'unknown launcher {launcher!r}; valid: '
                             f'{", ".join(LAUNCHERS)}')
    rank, world_size, local_rank = (_int_env(environ, n, launcher)
                                    for n in names)
    if not 0 <= rank < world_size:
        raise RobustDetError(
            f'--launcher {launcher}: rank {rank} is not in [0, {world_size})')
    return dict(rank=rank, world_size=world_size, local_rank=local_rank,
                master_addr=addr, master_port=str(port))


def default_backend() -> str:
    """nccl where CUDA is available, gloo otherwise."""
    return 'nccl' if torch.cuda.is_available() else 'gloo'


def choose_backend(configured: Optional[str],
                   asked: Optional[str] = None) -> str:
    """The backend of the process group.

    Args:
        configured (str, optional): The config's
            ``env_cfg.dist_cfg.backend``.
        asked (str, optional): A backend the user gave explicitly (on the
            command line); used as it is.

    Returns:
        str: ``asked``; else ``configured``, but gloo for nccl without
        CUDA; else :func:`default_backend`.
    """
    if asked:
        backend = asked
    elif configured == 'nccl' or not configured:
        backend = default_backend()
    else:
        backend = configured
    if backend == 'nccl' and not torch.cuda.is_available():
        raise RobustDetError(
            'the nccl backend needs CUDA, which this machine does not have: '
            'use gloo (--cfg-options env_cfg.dist_cfg.backend=gloo)')
    return backend


def check_not_launched(environ: Optional[Dict[str, str]] = None) -> None:
    """Refuse ``--launcher none`` in one of several processes that torchrun,
    srun or mpirun started: each would run the whole job on its own and
    all of them would write into one work dir. (srun is told by its step's
    task count: a batch script's own process has ``SLURM_NTASKS`` and
    ``SLURM_PROCID`` too, and may run one process.)

    Args:
        environ (dict, optional): The environment; ``os.environ`` if None.

    Raises:
        RobustDetError: One line naming the launcher and the flag.
    """
    environ = os.environ if environ is None else environ
    for launcher, size, markers in (
            ('pytorch', 'WORLD_SIZE', ('TORCHELASTIC_RUN_ID', 'LOCAL_RANK')),
            ('slurm', 'SLURM_STEP_NUM_TASKS', ('SLURM_PROCID', )),
            ('mpi', 'OMPI_COMM_WORLD_SIZE', ('OMPI_COMM_WORLD_RANK', ))):
        try:
            count = int(environ.get(size, '1'))
        except ValueError:
            continue
        if count > 1 and any(m in environ for m in markers):
            starter = dict(pytorch='torchrun', slurm='srun',
                           mpi='mpirun')[launcher]
            raise RobustDetError(
                f'this process is one of {count} that {starter} started '
                f'({size}={count}), but --launcher is none: each would run '
                f'the whole job into the same work dir; pass --launcher '
                f'{launcher}')


def init_distributed(launcher: str,
                     dist_cfg: Optional[Dict[str, Any]] = None,
                     timeout: Optional[float] = None,
                     backend: Optional[str] = None,
                     stall_timeout: Optional[float] = None
                     ) -> Tuple[int, int]:
    """Join the launched job's process group (once).

    Args:
        launcher (str): One of :data:`LAUNCHERS`; ``'none'`` starts
            nothing.
        dist_cfg (dict, optional): The config's ``env_cfg.dist_cfg``:
            ``backend`` (see :func:`choose_backend`) and other arguments of
            ``init_process_group``.
        timeout (float, optional): Seconds a collective operation waits
            for the others (default ``dist_cfg['timeout']``, else
            :data:`DEFAULT_DIST_TIMEOUT`).
        backend (str, optional): A backend the user asked for explicitly.
        stall_timeout (float, optional): Seconds another rank may go
            without a heartbeat before this one stops (default
            :data:`DEFAULT_STALL_TIMEOUT`; see :class:`Heartbeat`).

    Returns:
        tuple[int, int]: This process's rank and the world size.
    """
    if launcher == 'none':
        if dist.is_available() and dist.is_initialized():
            return dist.get_rank(), dist.get_world_size()
        check_not_launched()
        return 0, 1
    if dist.is_initialized():
        return dist.get_rank(), dist.get_world_size()
    env = launcher_env(launcher)
    kwargs = dict(dist_cfg or {})
    backend = choose_backend(kwargs.pop('backend', None), backend)
    configured = kwargs.pop('timeout', None)
    source = '--dist-timeout'
    if timeout is None and configured is not None:
        timeout, source = configured, 'env_cfg.dist_cfg.timeout'
    elif timeout is None:
        timeout = DEFAULT_DIST_TIMEOUT
    if isinstance(timeout, datetime.timedelta):
        timeout = timeout.total_seconds()
    if timeout <= 0:
        raise RobustDetError(f'{source} must be > 0, got {timeout}')
    stall_timeout = (DEFAULT_STALL_TIMEOUT
                     if stall_timeout is None else stall_timeout)
    if stall_timeout < 2 * HEARTBEAT_INTERVAL:
        raise RobustDetError(
            f'--dist-stall-timeout must be >= {2 * HEARTBEAT_INTERVAL:g} s '
            f'(two heartbeats), got {stall_timeout:g}')
    if torch.cuda.is_available():
        torch.cuda.set_device(env['local_rank'])
    # torchrun and slurm set these already; mmengine and torch read them.
    os.environ.update(
        RANK=str(env['rank']), WORLD_SIZE=str(env['world_size']),
        LOCAL_RANK=str(env['local_rank']), MASTER_ADDR=env['master_addr'],
        MASTER_PORT=env['master_port'])
    try:
        dist.init_process_group(
            backend=backend, rank=env['rank'], world_size=env['world_size'],
            timeout=datetime.timedelta(seconds=timeout), **kwargs)
    except RuntimeError as e:  # DistNetworkError and DistStoreError too
        text = str(e)
        if 'address already in use' in text.lower():
            raise RobustDetError(
                f'port {env["master_port"]} on {env["master_addr"]} is '
                'already in use: choose another MASTER_PORT (PORT=... for '
                'tools/dist_*.sh)') from None
        raise RobustDetError(
            f'could not join the process group at {env["master_addr"]}:'
            f'{env["master_port"]} as rank {env["rank"]} of '
            f'{env["world_size"]}: {text.splitlines()[0]}') from None
    store = dist.distributed_c10d._get_default_store()
    _JOB.update(rank=env['rank'], world_size=env['world_size'],
                timeout=timeout, store=store,
                heartbeat=Heartbeat(store, env['rank'], env['world_size'],
                                     stall_timeout))
    _JOB['heartbeat'].start()
    return env['rank'], env['world_size']


class Heartbeat(threading.Thread):
    """Counts up this rank's key in the store every
    :data:`HEARTBEAT_INTERVAL` seconds, until the process ends, and
    watches the other ranks' keys: one that has not moved for
    ``stall_timeout`` seconds and has not said it finished (killed,
    stopped by SIGSTOP, or frozen whole) stops this rank too. The main
    thread is interrupted (``KeyboardInterrupt`` at its next Python
    step, so within the batch it is computing), and the tool prints one
    line naming the rank and exits with status 3 (:func:`watchdog_fired`,
    :func:`robustdet.utils.cli.cli_entry`). A store that stops answering
    (rank 0, which holds it, is gone) does the same.

    It is stopped and joined when the interpreter exits (``atexit``, which
    runs before teardown): left running, it could be inside a call into
    the store's C++ client while teardown destroys that client, which
    aborts the process ("terminate called without an active exception",
    SIGABRT) after a run that succeeded.
    """

    def __init__(self, store: Any, rank: int, world_size: int = 1,
                 stall_timeout: float = DEFAULT_STALL_TIMEOUT) -> None:
        super().__init__(name='robustdet-heartbeat', daemon=True)
        self.store = store
        self.rank = rank
        self.key = _HEARTBEAT_KEY.format(rank)
        self.others = [r for r in range(world_size) if r != rank]
        self.stall_timeout = stall_timeout
        self.seen: Dict[int, Tuple[int, float]] = {}
        # The ranks that said they finished.
        self.done: Set[int] = set()
        # Once fired: who stopped and how (found_stopped; None: the
        # store is gone), and the timer that ends a blocked process.
        self.found: Optional[Dict[str, Any]] = None
        self.fired = False
        self.timer: Optional[threading.Timer] = None
        self.stopping = threading.Event()
        # Held while firing and while stopping: nothing fires once
        # stopped.
        self.lock = threading.Lock()
        # The main thread's progress through a stretch of work (ticks);
        # None outside one (evaluation, collective waits, setup).
        self.began: Optional[float] = None
        self.last_tick: Optional[float] = None
        self.longest_tick = 0.0
        self.beat()
        atexit.register(self.stop)

    def beat(self) -> None:
        self.store.add(self.key, 1)

    def begin(self) -> None:
        """The main thread starts a stretch of steps (batches). Its first
        step is timed, not watched (it may start workers)."""
        self.began, self.last_tick = time.monotonic(), None

    def tick(self) -> None:
        """The main thread finished a step of its stretch."""
        now = time.monotonic()
        last = self.last_tick if self.last_tick is not None else self.began
        if last is not None:
            self.longest_tick = max(self.longest_tick, now - last)
        self.last_tick = now

    def idle(self) -> None:
        """The main thread left its stretch of steps (to evaluate, or to
        wait for the other ranks): no step is due until the next stretch
        has made its first."""
        self.began = self.last_tick = None

    def stuck(self) -> bool:
        """Whether the main thread is overdue for its next step: no tick
        for ``stall_timeout`` seconds, or for 4 times its slowest step
        so far if that is longer."""
        last = self.last_tick
        return last is not None and time.monotonic() - last > max(
            self.stall_timeout, PROGRESS_FACTOR * self.longest_tick)

    def watch(self) -> None:
        """Fire on the other ranks whose heartbeat has not moved for
        ``stall_timeout`` seconds, unless they finished."""
        found = found_stopped(self.store)
        if found is not None:  # another rank found some stopped
            self.fire(found['ranks'], found)
            return
        now = time.monotonic()
        late = []
        for rank, count in _heartbeats(self.store, self.others).items():
            if rank in self.done or self.store.add(DONE_KEY.format(rank),
                                                   0):
                self.done.add(rank)
                continue
            last = self.seen.get(rank)
            if last is None or last[0] != count:
                self.seen[rank] = (count, now)
            elif now - last[1] >= self.stall_timeout:
                late.append(rank)
        if late:
            self.fire(late)

    def fire(self, stopped: Optional[List[int]],
             found: Optional[Dict[str, Any]] = None) -> None:
        """Unless stopped (:meth:`stop`): stop watching, tell the others
        what was found (:func:`tell_stopped`) and interrupt the main
        thread; if it is blocked in a collective operation that waits
        for the stopped rank, end the process after another
        ``stall_timeout`` seconds with the same line and status.

        Args:
            stopped (list[int] | None): The ranks this one found stopped,
                or None when the store is gone.
            found (dict, optional): What another rank found, read from the
                store (:func:`found_stopped`), instead.
        """
        with self.lock:
            if self.stopping.is_set():
                return
            if found is None and stopped is not None:
                found = dict(ranks=stopped,
                             how=f'no heartbeat for {self.stall_timeout:g} '
                             's, --dist-stall-timeout')
            if found is not None:
                try:
                    found = tell_stopped(self.store, self.rank, found)
                except Exception:  # the store went meanwhile
                    pass
            self.found, self.fired = found, True
            self.stopping.set()
            self.timer = threading.Timer(self.stall_timeout, _exit_stopped)
            self.timer.daemon = True
            self.timer.start()
            _thread.interrupt_main()

    def run(self) -> None:
        while not self.stopping.wait(HEARTBEAT_INTERVAL):
            try:
                if not self.stuck():  # a stuck rank looks stopped
                    self.beat()
                self.watch()
            except Exception:  # the store is gone
                # Rank 0 holds it: gone after rank 0 finished is the end.
                if not self.stopping.is_set() and 0 not in self.done:
                    self.fire(None)
                return

    def stop(self) -> None:
        """Stop beating and watching (nothing fires after this), and wait
        for a beat in flight to return."""
        with self.lock:
            self.stopping.set()
        if self.is_alive() and self is not threading.current_thread():
            self.join(timeout=10 * HEARTBEAT_INTERVAL)


def progress_begin() -> None:
    """Mark the start of a stretch of steps (the batches of a pass) for
    the watchdog: after its first step, a rank whose main thread makes
    none for ``--dist-stall-timeout`` seconds (or 4 times its slowest
    step, if longer) stops beating, so the others stop as for a dead
    rank. Nothing without a launcher."""
    beat = _JOB.get('heartbeat')
    if beat is not None:
        beat.begin()


def progress_tick() -> None:
    """Mark a step (a batch) of the stretch done
    (:func:`progress_begin`)."""
    beat = _JOB.get('heartbeat')
    if beat is not None:
        beat.tick()


def progress_idle() -> None:
    """Mark the end of a stretch of steps (before an evaluation or a wait
    for the other ranks, however long): no step is due until the next
    stretch."""
    beat = _JOB.get('heartbeat')
    if beat is not None:
        beat.idle()


def _exit_stopped() -> None:
    """End a process whose main thread did not stop when interrupted."""
    leave()
    print(f'error: {watchdog_fired()}', file=sys.stderr, flush=True)
    os._exit(3)


def found_stopped(store: Any) -> Optional[Dict[str, Any]]:
    """What the first rank to find others stopped wrote for the rest
    (:func:`tell_stopped`), if one did.

    Args:
        store (Store): The job's store.

    Returns:
        dict | None: ``ranks`` (the stopped ranks) and ``how`` (how they
        were found, in words, or '').
    """
    if not store.check([STOPPED_KEY]):
        return None
    return json.loads(store.get(STOPPED_KEY))


def tell_stopped(store: Any, rank: int,
                 found: Dict[str, Any]) -> Dict[str, Any]:
    """Write what this rank found stopped for the others, unless one
    wrote first, and that this rank leaves.

    Args:
        store (Store): The job's store.
        rank (int): This rank.
        found (dict): What it found (:func:`found_stopped`).

    Returns:
        dict: What every rank names: the first record written.
    """
    first = store.compare_set(STOPPED_KEY, '', json.dumps(found))
    store.add(LEAVING_KEY.format(rank), 1)
    return json.loads(first)


def stopped_words(found: Optional[Dict[str, Any]],
                  rank: Optional[int] = None) -> str:
    """Who stopped, in words.

    Args:
        found (dict | None): :func:`found_stopped`'s record; None: the
            store is gone.
        rank (int, optional): The rank that says it: one the others found
            stopped (stuck) says "this one".

    Returns:
        str: E.g. ``rank 1 stopped (no heartbeat for 30 s, ...)``.
    """
    if found is None:
        return 'the rendezvous store is gone: rank 0 or the launcher stopped'
    ranks = found['ranks']
    how = f' ({found["how"]})' if found['how'] else ''
    if rank in ranks:
        rest = [r for r in ranks if r != rank]
        also = f' with {_ranks(rest)}' if rest else ''
        return f'the other ranks found this one stopped{also}{how}'
    return f'{_ranks(ranks)} stopped{how}'


def _ranks(ranks: List[int]) -> str:
    return f'rank{"s" if len(ranks) > 1 else ""} {", ".join(map(str, ranks))}'


def leave() -> None:
    """Before a rank exits on a failure of the job: stop its watchdog and
    its timer (:meth:`Heartbeat.fire`), and on rank 0, which holds the
    store, wait up to two heartbeats in all for each other rank to leave
    (:func:`tell_stopped`), finish or be one of those found stopped, so
    that they read what was found (:func:`found_stopped`) instead of
    only seeing the store go. The other ranks do not touch the store
    here: once rank 0 is gone, its client would print the failure with a
    C++ backtrace after the tool's last line."""
    if not _JOB:
        return
    beat = _JOB.get('heartbeat')
    if beat is not None:  # it has nothing more to say
        try:
            beat.stop()
        except KeyboardInterrupt:  # it fired just before it stopped
            pass
        finally:
            if beat.timer not in (None, threading.current_thread()):
                beat.timer.cancel()
    if _JOB['rank'] != 0:
        return
    store = _JOB['store']

    def unsettled(waiting: List[int]) -> List[int]:
        stopped = (found_stopped(store) or dict(ranks=[]))['ranks']
        return [r for r in waiting if r not in stopped and not (
            store.add(LEAVING_KEY.format(r), 0)
            or store.add(DONE_KEY.format(r), 0))]

    try:
        _wait_for_others(list(range(1, _JOB['world_size'])), unsettled)
    except Exception:  # the launcher's store is gone
        pass
    except KeyboardInterrupt:  # Ctrl-C: leave at once
        pass


def _wait_for_others(waiting: List[int],
                     unsettled: Callable[[List[int]], List[int]]) -> None:
    """Rank 0, which holds the store, before it exits: wait up to two
    heartbeats in all until ``unsettled(waiting)``, the ranks still to be
    waited for, is empty."""
    end = time.monotonic() + 2 * HEARTBEAT_INTERVAL
    while True:
        waiting = unsettled(waiting)
        if not waiting or time.monotonic() >= end:
            return
        time.sleep(0.05)


def finished() -> None:
    """Tell the other ranks that this one finished its work, so that its
    heartbeat may stop, and stop watching them
    (:func:`robustdet.utils.cli.cli_entry` calls it when a tool's
    ``main`` returns). Rank 0, which holds the store, waits up to two
    heartbeats for the others to finish too, so that none takes the
    store's end for a failure."""
    beat = _JOB.get('heartbeat')
    if beat is None:
        return
    store, rank = _JOB['store'], _JOB['rank']
    try:
        store.add(DONE_KEY.format(rank), 1)
        if rank == 0:
            _wait_for_others(beat.others, lambda waiting: [
                r for r in waiting if not store.add(DONE_KEY.format(r), 0)])
    except Exception:  # the store is gone: nobody is watching
        pass
    beat.stop()


def watchdog_fired() -> Optional[str]:
    """The one line on the rank the watchdog found stopped, if it fired
    (what interrupted the main thread), else None."""
    beat = _JOB.get('heartbeat')
    if beat is None or not beat.fired:
        return None
    rank = _JOB['rank']
    return (f'{stopped_words(beat.found, rank)}; rank {rank} stops too '
            '(what is finished is kept: rerun to resume)')


def _heartbeats(store: Any, ranks: List[int]) -> Dict[int, int]:
    # add(key, 0) reads a counter without waiting for it to exist.
    return {r: store.add(_HEARTBEAT_KEY.format(r), 0) for r in ranks}


def stopped_ranks() -> Optional[Dict[str, Any]]:
    """The other ranks found stopped: what another rank found
    (:func:`found_stopped`), else those whose heartbeat does not move for
    :data:`HEARTBEAT_MISSED` intervals (told to the others when any).

    Returns:
        dict | None: :func:`found_stopped`'s record (``ranks`` may be
        empty), or None when the store cannot be reached (its holder,
        rank 0 or the launcher, has stopped).
    """
    store, rank = _JOB['store'], _JOB['rank']
    others = [r for r in range(_JOB['world_size']) if r != rank]
    try:
        before = _heartbeats(store, others)
        end = time.monotonic() + HEARTBEAT_MISSED * HEARTBEAT_INTERVAL
        while time.monotonic() < end:
            found = found_stopped(store)
            if found is not None:
                break
            time.sleep(0.1)
        else:
            after = _heartbeats(store, others)
            found = dict(ranks=[
                r for r in others if after[r] == before[r]
                and not store.add(DONE_KEY.format(r), 0)], how='')
        if found['ranks']:
            found = tell_stopped(store, rank, found)
    except Exception:
        return None
    return found


def is_distributed_failure(error: BaseException) -> bool:
    """Whether ``error`` is a failed collective operation of the job
    (a peer that stopped, or a timeout), not a bug of this rank."""
    if not _JOB or not isinstance(error, RuntimeError):
        return False
    if isinstance(error, getattr(dist, 'DistError', ())):
        return True
    text = str(error)
    return any(sign in text for sign in (
        'gloo', 'Gloo', 'NCCL', 'Connection closed by peer',
        'Connection reset by peer', 'Timed out', 'timed out'))


def describe_failure(error: BaseException) -> str:
    """One line on a failed collective operation: which rank stopped, or
    that the others did not answer in time.

    Args:
        error (BaseException): What the operation raised.

    Returns:
        str: The message (without ``error:``).
    """
    rank = _JOB['rank']
    first = (str(error).strip().splitlines() or [type(error).__name__])[0]
    found = stopped_ranks()
    if found is None or found['ranks']:
        who = stopped_words(found, rank)
    else:
        who = (f'the other ranks did not answer within {_JOB["timeout"]:g} '
               's (--dist-timeout)')
    return (f'{who}; rank {rank} stops too (what is finished is kept: '
            f'rerun to resume). {first[:200]}')


def prepare_runner_cfg(cfg: Any, launcher: str) -> None:
    """Set a config's ``launcher`` for the Runner a tool builds, and for a
    launched job:

    * the evaluators collect the ranks' results through the process group
      (``collect_device='gpu'`` in mmengine's words; with gloo it runs on
      the CPU) unless the config chooses: mmengine's default (``'cpu'``)
      has every rank write its part to ``.dist_test/`` in the working
      directory, which must then be shared by all nodes;
    * mmengine's ``LoggerHook`` becomes ``RankZeroLoggerHook``
      (:mod:`robustdet.engine`): mmengine's dumps the test metrics into
      the work dir on every rank;
    * without CUDA, a model wrapper without devices: mmengine gives
      ``MMDistributedDataParallel`` ``device_ids=[LOCAL_RANK]``, which
      torch refuses for a model on the CPU.

    Args:
        cfg (mmengine.Config): The config (modified in place).
        launcher (str): The launcher.
    """
    cfg.launcher = launcher
    if launcher == 'none':
        return
    for key in ('test_evaluator', 'val_evaluator'):
        for metric in metric_cfgs(cfg.get(key)):
            if isinstance(metric, dict):
                metric.setdefault('collect_device', 'gpu')
    logger = (cfg.get('default_hooks') or {}).get('logger')
    if isinstance(logger, dict) and logger.get('type') in (
            'LoggerHook', 'mmengine.LoggerHook'):
        logger['type'] = 'RankZeroLoggerHook'
    if torch.cuda.is_available():
        return
    wrapper = dict(cfg.get('model_wrapper_cfg') or {})
    wrapper.setdefault('type', 'MMDistributedDataParallel')
    if wrapper['type'] != 'MMDistributedDataParallel':
        return
    wrapper.setdefault('device_ids', None)
    if 'broadcast_buffers' not in wrapper:
        # mmengine's choice (buffers are not synchronised in the forward
        # pass), in the words of the torch at hand.
        params = inspect.signature(DistributedDataParallel).parameters
        wrapper.setdefault('forward_sync_buffers' if 'forward_sync_buffers'
                           in params else 'broadcast_buffers', False)
    wrapper.setdefault('find_unused_parameters',
                       cfg.get('find_unused_parameters', False))
    cfg.model_wrapper_cfg = wrapper


def rank_and_world() -> Tuple[int, int]:
    """This process's rank and the world size (0 and 1 without a process
    group)."""
    if dist.is_available() and dist.is_initialized():
        return dist.get_rank(), dist.get_world_size()
    return 0, 1


def gather_objects(obj: Any) -> List[Any]:
    """Every rank's ``obj``, in rank order, on every rank (``[obj]`` in a
    single process)."""
    rank, world_size = rank_and_world()
    if world_size == 1:
        return [obj]
    gathered: List[Any] = [None] * world_size
    dist.all_gather_object(gathered, obj)
    return gathered


def barrier() -> None:
    """Wait for every rank (nothing in a single process)."""
    if rank_and_world()[1] > 1:
        dist.barrier()


def job_digest(job: Dict[str, Any]) -> str:
    """A sha256 of what a job was asked to do (JSON, sorted keys)."""
    text = json.dumps(job, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()


def check_same_job(job: Dict[str, Any]) -> None:
    """Refuse a job whose ranks were started with different arguments.

    Every rank's :func:`job_digest` is gathered; a rank that differs from
    rank 0 is a user error naming it and the first differing entries.
    Does nothing in a single process.

    Args:
        job (dict): What this rank was asked to do (arguments, file
            hashes); JSON-serialisable.
    """
    gathered = gather_objects(job)
    first = gathered[0]
    for rank, other in enumerate(gathered):
        if job_digest(other) != job_digest(first):
            keys = sorted(k for k in set(first) | set(other)
                          if first.get(k) != other.get(k))
            shown = ', '.join(
                f'{k}: {first.get(k)!r} vs {other.get(k)!r}'
                for k in keys[:3])
            raise RobustDetError(
                f'rank {rank} was started with other arguments than rank 0 '
                f'({shown}); start every rank with the same command')
