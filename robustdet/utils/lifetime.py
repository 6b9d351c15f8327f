# Copyright (c) robustdet contributors. All rights reserved.
"""Nothing outlives a tool's process: the processes it starts (dataloader
workers, the evaluation process, corruption workers) end when it ends,
whatever ended it (``kill -9`` included).

A process killed with SIGKILL runs no cleanup, so its children are
re-parented and, blocked on a queue nobody reads, may sleep forever with
their shared memory. On Linux the kernel can signal a child when its
parent ends (``prctl(PR_SET_PDEATHSIG)``); elsewhere, and as a second
guard, a thread of the child polls its parent.
"""
import ctypes
import ctypes.util
import os
import signal
import sys
import threading
import time
from typing import Optional

# prctl(2): deliver a signal to this process when its parent ends.
PR_SET_PDEATHSIG = 1
# How often a child's fallback thread looks for its parent, in seconds.
PARENT_POLL_SECONDS = 0.5

_libc = None
_forking_pid: Optional[int] = None
_installed = False


def _prctl_pdeathsig() -> bool:
    """Ask the kernel to SIGKILL this process when its parent ends;
    whether it could (Linux only)."""
    global _libc
    if not sys.platform.startswith('linux'):
        return False
    if _libc is None:
        _libc = ctypes.CDLL(ctypes.util.find_library('c') or 'libc.so.6',
                            use_errno=True)
    return _libc.prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0) == 0


def die_with_parent(parent: int, poll: bool = True) -> None:
    """End this process when ``parent`` ends: by the kernel's parent-death
    signal where there is one, and (``poll``) by a daemon thread that
    exits the process once its parent is no longer ``parent``. Ends it at
    once when ``parent`` is already gone.

    Args:
        parent (int): The pid of the process that started this one.
        poll (bool): Also start the polling thread (for processes that
            do not fork again from a thread that may end).
    """
    _prctl_pdeathsig()
    if os.getppid() != parent:  # it ended before the signal was asked for
        os._exit(1)
    if poll:

        def watch() -> None:
            while os.getppid() == parent:
                time.sleep(PARENT_POLL_SECONDS)
            os._exit(1)

        threading.Thread(target=watch, name='robustdet-parent-watch',
                         daemon=True).start()


def _before_fork() -> None:
    global _forking_pid
    _forking_pid = os.getpid()


def _after_fork_in_child() -> None:
    # The child holds the forking process's pid: end with it. No thread
    # here: a forked child may be a dataloader worker that forks again.
    die_with_parent(_forking_pid, poll=False)


def children_die_with_this_process() -> None:
    """Make every process forked from this one from now on (torch's
    dataloader workers, started by fork on Linux, and their own children)
    end when its parent ends. Processes started by spawn or forkserver
    call :func:`die_with_parent` themselves. Calling it again does
    nothing.
    """
    global _installed
    if _installed or not hasattr(os, 'register_at_fork'):
        return
    os.register_at_fork(before=_before_fork,
                        after_in_child=_after_fork_in_child)
    _installed = True
