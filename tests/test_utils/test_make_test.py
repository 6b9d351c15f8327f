# Copyright (c) robustdet contributors. All rights reserved.
"""`make test`'s recipe with its two pytest runs replaced by a script:
the held-back run starts beside the suite, niced, its output follows the
suite's, and either failing fails the target."""
import os
import subprocess
import sys

import pytest

from tests.conftest import REPO

STEP = """\
import os, sys, time
if '-m' in sys.argv:  # the held-back run of the cpu_sensitive tests
    print('held back, niceness', os.nice(0), flush=True)
    open(os.environ['MARK'], 'w').close()
    sys.exit(int(os.environ['HELD_EXIT']))
end = time.time() + 60  # the suite: the held-back run starts beside it
while not os.path.exists(os.environ['MARK']) and time.time() < end:
    time.sleep(0.02)
print('suite, held-back run seen:', os.path.exists(os.environ['MARK']))
sys.exit(int(os.environ['SUITE_EXIT']))
"""


def _make_test(tmp_path, suite, held):
    step = tmp_path / 'step.py'
    step.write_text(STEP)
    mark = tmp_path / 'mark'
    if mark.exists():
        mark.unlink()
    # -o lint: the lint (and the install before it) is not run
    return subprocess.run(
        ['make', '--no-print-directory', '-o', 'lint', 'test',
         f'PYTEST={sys.executable} {step}', 'HELD_BACK='],
        cwd=REPO, capture_output=True, text=True, timeout=120,
        env=dict(os.environ, MARK=str(mark), SUITE_EXIT=str(suite),
                 HELD_EXIT=str(held)))


@pytest.mark.parametrize('suite, held', [(0, 0), (1, 0), (0, 1), (1, 1)])
def test_both_runs_and_their_status(tmp_path, suite, held):
    proc = _make_test(tmp_path, suite, held)
    assert (proc.returncode == 0) == (suite == held == 0), proc.stderr
    lines = proc.stdout.splitlines()
    ran = [line for line in lines if not line.startswith(
        (sys.executable, 'nice -n'))]
    assert ran == ['suite, held-back run seen: True',
                   f'held back, niceness {min(19, os.nice(0) + 10)}'], \
        proc.stdout
    # each run's command is printed before what it printed
    assert lines[0] == f'{sys.executable} {tmp_path}/step.py tests'
    assert lines[2].startswith('nice -n 10 ') and lines[2].endswith(
        '-m cpu_sensitive tests'), lines[2]


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
