# Copyright (c) robustdet contributors. All rights reserved.
"""``make test``'s recipe with its two pytest runs replaced by a script:
the held-back run starts beside the suite, niced, its output follows the
suite's, either failing fails the target, and an interrupted recipe
leaves neither the held-back run nor its output file behind."""
import os
import signal
import subprocess
import sys
import time

import pytest

from tests.conftest import REPO

STEP = """\
import os, sys, time
mark = os.environ['MARK']
if '-m' in sys.argv:  # the held-back run of the cpu_sensitive tests
    print('held back, niceness', os.nice(0), flush=True)
    with open(mark + '.tmp', 'w') as f:
        f.write(str(os.getpid()))
    os.replace(mark + '.tmp', mark)
    time.sleep(float(os.environ['SLEEP']))
    sys.exit(int(os.environ['HELD_EXIT']))
end = time.time() + 60  # the suite: the held-back run starts beside it
while not os.path.exists(mark) and time.time() < end:
    time.sleep(0.02)
print('suite, held-back run seen:', os.path.exists(mark), flush=True)
time.sleep(float(os.environ['SLEEP']))
sys.exit(int(os.environ['SUITE_EXIT']))
"""

DEFAULT_SIGINT = ('import os, signal, sys; '
                  'signal.signal(signal.SIGINT, signal.SIG_DFL); '
                  'os.execvp(sys.argv[1], sys.argv[1:])')


def _start_make(tmp_path, suite=0, held=0, sleep=0):
    """``make test`` with both runs replaced by :data:`STEP` (the lint,
    and the install before it, not run: ``-o lint``; nor the kernels'
    compilation), in a session of its own; the held-back run's output
    file in ``tmp_path / 'tmp'``."""
    step = tmp_path / 'step.py'
    step.write_text(STEP)
    (tmp_path / 'tmp').mkdir()
    # Not this make's flags and level, if the suite runs under make.
    env = {k: v for k, v in os.environ.items()
           if k not in ('MAKEFLAGS', 'MFLAGS', 'MAKELEVEL')}
    env.update(MARK=str(tmp_path / 'mark'), SUITE_EXIT=str(suite),
               HELD_EXIT=str(held), SLEEP=str(sleep),
               TMPDIR=str(tmp_path / 'tmp'))
    # SIGINT as a terminal's shell leaves it (pytest-xdist's workers
    # ignore it, and an ignored signal stays ignored through exec).
    return subprocess.Popen(
        [sys.executable, '-c', DEFAULT_SIGINT, 'make', '--no-print-directory',
         '-o', 'lint', 'test', f'PYTEST={sys.executable} {step}',
         f'PYTEST_CMD={sys.executable} {step}', 'HELD_BACK=', 'KERNELS=:'],
        cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env=env, start_new_session=True)


@pytest.mark.parametrize('suite, held', [(0, 0), (1, 0), (0, 1), (1, 1)])
def test_both_runs_and_their_status(tmp_path, suite, held):
    proc = _start_make(tmp_path, suite, held)
    stdout, stderr = proc.communicate(timeout=120)
    assert (proc.returncode == 0) == (suite == held == 0), stderr
    # the kernels compiled first (here a no-op), then the two runs
    assert stdout.startswith(': --held-back\n'), stdout
    lines = stdout.splitlines()[1:]
    ran = [line for line in lines if not line.startswith(
        (sys.executable, 'nice -n'))]
    assert ran == ['suite, held-back run seen: True',
                   f'held back, niceness {min(19, os.nice(0) + 10)}'], \
        stdout
    # each run's command is printed before what it printed
    assert lines[0] == f'{sys.executable} {tmp_path}/step.py tests'
    # (HELD_BACK is empty here)
    assert lines[2].split() == ['nice', '-n', '10', sys.executable,
                                f'{tmp_path}/step.py', '-n', '1', '-m',
                                'cpu_sensitive', 'tests'], lines[2]
    assert not os.listdir(tmp_path / 'tmp')


def test_interrupted_leaves_nothing_behind(tmp_path):
    """Ctrl-C (SIGINT to make's process group, as a terminal sends it)
    while both runs run: make fails at once, the held-back run is killed
    and its output file removed."""
    proc = _start_make(tmp_path, sleep=60)
    mark = tmp_path / 'mark'
    end = time.time() + 60
    while not mark.exists() and time.time() < end:
        time.sleep(0.02)
    held = int(mark.read_text())
    os.killpg(proc.pid, signal.SIGINT)
    proc.communicate(timeout=20)
    assert proc.returncode != 0
    end = time.time() + 10
    while time.time() < end:
        try:
            os.kill(held, 0)
        except ProcessLookupError:
            break
        time.sleep(0.05)
    else:
        os.kill(held, signal.SIGKILL)
        raise AssertionError('the held-back run outlived make')
    assert not os.listdir(tmp_path / 'tmp')


def test_waiting_tests_are_collected_first(request):
    """The ``waits`` tests lead the order (``tests/conftest.py``), then
    the slow files, each group in file order."""
    from tests.conftest import SLOW_FIRST
    items = request.session.items
    waits = [i for i in items if i.get_closest_marker('waits')]
    assert items[:len(waits)] == waits
    slow = [i for i in items[len(waits):] if any(
        i.nodeid.startswith(f'tests/{f}') for f in SLOW_FIRST)]
    assert items[len(waits):len(waits) + len(slow)] == slow
    if len(items) > 1000:  # the whole suite
        assert len(waits) == 8 and len(slow) > 20
        assert items.index(request.node) > len(waits) + len(slow)
