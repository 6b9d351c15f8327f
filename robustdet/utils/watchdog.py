# Copyright (c) robustdet contributors. All rights reserved.
"""The watchdog of a launched job: every rank beats a heartbeat into the
rendezvous store from a thread of its own (:class:`Heartbeat`) and watches
the other ranks' heartbeats, so that a rank that dies, is stopped
(SIGSTOP) or gets stuck stops the others within a stated bound, with one
line naming it (:func:`watchdog_fired`); a failed collective operation
names the rank that stopped too (:func:`describe_failure`).

:func:`robustdet.utils.dist.init_distributed` starts it
(:func:`start_watchdog`); the loops mark their progress through the
batches (:func:`progress_begin`, :func:`progress_tick`,
:func:`progress_idle`), and :func:`robustdet.utils.cli.cli_entry` ends
it (:func:`finished`, :func:`leave`). ``docs/distributed.md`` states the
bounds.
"""
import _thread
import atexit
import json
import os
import sys
import threading
import time
from typing import Any, Callable, Dict, List, Optional, Set, Tuple

import torch.distributed as dist

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


def start_watchdog(store: Any, rank: int, world_size: int, timeout: float,
                   stall_timeout: float) -> None:
    """Record the job that just started and start this rank's heartbeat.

    Args:
        store (Store): The job's rendezvous store.
        rank (int): This rank.
        world_size (int): The number of ranks.
        timeout (float): Seconds a collective operation waits
            (``--dist-timeout``), named by :func:`describe_failure`.
        stall_timeout (float): Seconds another rank may go without a
            heartbeat before this one stops (``--dist-stall-timeout``).
    """
    _JOB.update(rank=rank, world_size=world_size, timeout=timeout,
                store=store,
                heartbeat=Heartbeat(store, rank, world_size, stall_timeout))
    _JOB['heartbeat'].start()


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
