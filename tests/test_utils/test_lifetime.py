# Copyright (c) robustdet contributors. All rights reserved.
"""robustdet.utils.lifetime: the processes a tool starts end when it is
killed with ``kill -9``, forked (dataloader workers) or spawned (the
workers of corrupt_dataset.py, the evaluation process)."""
import os
import signal
import textwrap
import time

import psutil

from tests.conftest import REPO
from tests.tool_process import ToolProcess

# A tool's process in miniature: guarded, it makes its forks die with it;
# it forks a child that forks again (a dataloader worker and its own
# child), guarded starts a spawned pool worker that asks for the same,
# writes their pids to a file and waits to be killed. It runs forked from
# the tools' forkserver (tests/tool_process.py), as a tool's tests run the
# tool: robustdet is imported already.
HELPER = textwrap.dedent("""
    import multiprocessing as mp
    import os
    import sys
    import time

    def sleep_forever():
        time.sleep(600)

    def forked(queue):
        grandchild = mp.get_context('fork').Process(target=sleep_forever)
        grandchild.start()
        queue.put(grandchild.pid)
        time.sleep(600)

    if __name__ == '__main__':
        guarded = sys.argv[1] == 'guarded'
        if guarded:
            from robustdet.utils.lifetime import (
                children_die_with_this_process, die_with_parent)
            children_die_with_this_process()
        fork = mp.get_context('fork')
        queue = fork.Queue()
        child = fork.Process(target=forked, args=(queue, ))
        child.start()
        pids = [child.pid, queue.get()]
        if guarded:  # a spawned worker imports robustdet: seconds
            pool = mp.get_context('spawn').Pool(
                1, initializer=die_with_parent, initargs=(os.getpid(), ))
            pids.append(pool.apply(os.getpid))
        with open(sys.argv[2] + '.tmp', 'w') as f:
            f.write(' '.join(map(str, pids)))
        os.replace(sys.argv[2] + '.tmp', sys.argv[2])
        time.sleep(600)
""")


def _alive(pid):
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def _start_and_kill(tmp_path, mode):
    """The helper's descendants (forked child, its child, and guarded a
    spawned worker) 2 s after it was killed: those still alive."""
    script = tmp_path / 'helper.py'
    script.write_text(HELPER)
    written = tmp_path / f'{mode}.pids'
    proc = ToolProcess(str(script), [mode, written], cwd=REPO)
    try:
        end = time.time() + 120
        while not written.exists():
            if not proc.process.is_alive() or time.time() > end:
                proc.kill()
                raise AssertionError(f'no pids: {proc.wait(0).stderr}')
            time.sleep(0.05)
        pids = [int(p) for p in written.read_text().split()]
        assert len(pids) == (3 if mode == 'guarded' else 2), pids
        assert all(_alive(p) for p in pids), pids
        os.kill(proc.pid, signal.SIGKILL)
        assert proc.wait(10).returncode == -signal.SIGKILL
    finally:
        proc.close()
    end = time.time() + 2.0
    while time.time() < end and any(_alive(p) for p in pids):
        time.sleep(0.05)
    left = [p for p in pids if _alive(p)]
    for pid in left:
        os.kill(pid, signal.SIGKILL)
    return left


def test_children_end_with_a_killed_process(tmp_path):
    """Guarded, the forked child, its own child and the spawned worker
    are gone within 2 s of kill -9; unguarded (the test of the test), the
    forked ones are still there."""
    assert _start_and_kill(tmp_path, 'guarded') == []
    assert len(_start_and_kill(tmp_path, 'unguarded')) == 2
