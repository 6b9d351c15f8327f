# Copyright (c) robustdet contributors. All rights reserved.
"""Run the shell blocks of a documentation page, as a reader would.

A page's setup block (its first ```bash block; the README's second,
after its ``make`` block) only assigns variables (``CONFIG=...``,
``CKPT=...``: the demo's paths, or a real dataset's) and has comments. The
test gives those variables its own values (the test fixtures, tiny sizes)
and checks that the block assigns exactly them and does nothing else.
Every later ```bash block runs, in order, with
``bash -euo pipefail`` in a scratch directory that links the repository's
``tools/``, ``configs/`` and ``demo/``, with the venv first on ``PATH``
and tests/fake_slurm/ (a one-machine ``srun``) after it. A block whose
every command is ``make TARGET`` is checked with ``make -n TARGET`` in the
repository instead (a dry run: the target exists and names its
commands): ``make demo`` takes about an hour and ``make test`` is the
suite that runs this test.

``python SCRIPT.py ARGS`` in a block runs through a ``python`` found first
on ``PATH`` that hands the command to this test process, which runs it in
a process forked from one that has already imported torch, mmcv and mmdet
(``tests/tool_process.py``, as the tools' own tests do): the same script,
arguments, working directory, environment, streams and exit status, without
the 4-7 s of imports per command. ``python - ARGS`` (a script on
standard input, a heredoc) too. ``python -u SCRIPT.py ARGS`` too: that
is how torchrun starts each rank through ``PYTHON_EXEC`` (its documented
override; ``tools/dist_launch.sh`` starts torchrun with ``$PYTHON -m``)
and how ``tools/slurm_launch.sh``'s srun tasks start (``$PYTHON -u``),
as the tools' own tests start ranks from the same forkserver. A rank
whose shim is killed (torchrun's SIGTERM, srun's ``--kill-on-bad-exit``)
is killed too. The launchers themselves, ``python -m ...`` and
``python -c ...`` run the real interpreter. The forked process applies
the block's ``OMP_NUM_THREADS`` (1, as torchrun sets it) to torch, as a
fresh interpreter would, and its ``sys.executable`` is the shim, so that
a script's own ``python SCRIPT.py`` children (the benchmark scripts start
the tools so) are forked too (``python_main.py``).
``ROBUSTDET_DOCS_FRESH_PYTHON=1`` runs every command in a fresh
interpreter.
"""
import json
import os
import os.path as osp
import re
import select
import socket
import socketserver
import subprocess
import sys
import tempfile
import threading
import time
from typing import NamedTuple

from tests.conftest import REPO
from tests.tool_process import ToolProcess, free_port

BLOCK = re.compile(r'^```bash\n(.*?)^```', re.S | re.M)
ASSIGNMENT = re.compile(r'^([A-Z][A-Z0-9_]*)=(\S+)$')
LINKED = ('tools', 'configs', 'demo')
# Runs the script in the forked process as a fresh interpreter would.
MAIN = osp.join(osp.dirname(osp.abspath(__file__)), 'python_main.py')

SHIM = """#!{python} -S
# `python [-u] SCRIPT.py ARGS` and `python - ARGS` (the script on stdin)
# through the docs test's forked processes.
import json, os, socket, sys
args = sys.argv[1:]
script = args[1:] if args[:1] == ['-u'] else args
if not script or script[0] != '-' and (
        not script[0].endswith('.py') or not os.path.isfile(script[0])):
    os.execv({python!r}, [{python!r}] + args)
if script is not args:  # -u: python_main.py reads it
    os.environ['PYTHONUNBUFFERED'] = '1'
args = script
code = sys.stdin.buffer.read().decode('utf-8', 'surrogateescape') \\
    if args[0] == '-' else None
sock = socket.socket(socket.AF_UNIX)
sock.connect({address!r})
sock.sendall(json.dumps(dict(args=args, cwd=os.getcwd(), code=code,
                             env=dict(os.environ))).encode() + b'\\n')
reply = json.loads(b''.join(iter(lambda: sock.recv(1 << 16), b'')))
sys.stdout.write(reply['stdout'])
sys.stderr.write(reply['stderr'])
sys.exit(reply['returncode'])
"""


class Ran(NamedTuple):
    """A block that ran, and what it printed."""
    block: str
    stdout: str
    stderr: str

    @property
    def output(self):
        """Standard output, then standard error."""
        return self.stdout + self.stderr


def bash_blocks(path):
    """The ```bash blocks of a Markdown file, in order."""
    with open(path, encoding='utf-8') as f:
        return BLOCK.findall(f.read())


# A fenced block of another language than bash that holds a shell command
# (a tool, make, a launcher, an environment assignment): the docs test does
# not run it, so it must say why, in the line above its fence.
FENCE = re.compile(r'^```(\w*)\n(.*?)^```', re.S | re.M)
COMMAND = re.compile(
    r'^\s*(?:[A-Z][A-Z0-9_]*=\S*\s|(?:python3?|make|torchrun|srun|sbatch|'
    r'bash|sh|pip|git|cd|export|clang-\d+)\s|\./|\.venv/)', re.M)
NOT_RUN = re.compile(r'<!-- not run: (\S.{8,}?) -->\n$')


def unrun_commands(path):
    """``(line, first line)`` of each command block of a Markdown file
    that the docs test does not run and that does not say why
    (``<!-- not run: REASON -->`` on the line above its fence)."""
    with open(path, encoding='utf-8') as f:
        text = f.read()
    found = []
    for match in FENCE.finditer(text):
        language, body = match.groups()
        if language == 'bash' or not COMMAND.search(body):
            continue
        if NOT_RUN.search(text[:match.start()][-300:]):
            continue
        line = text.count('\n', 0, match.start()) + 1
        found.append((line, body.strip().splitlines()[0]))
    return found


def setup_assignments(block):
    """The variables a setup block assigns, in order, after checking that
    it does nothing else (comments and blank lines aside)."""
    names = []
    for line in block.splitlines():
        if not line.strip() or line.lstrip().startswith('#'):
            continue
        match = ASSIGNMENT.match(line)
        assert match, f'a setup block only assigns variables: {line!r}'
        names.append(match.group(1))
    return names


def make_targets(block):
    """The targets if every command of the block is ``make TARGET``
    (comments aside), else None."""
    lines = [line.split('#')[0].strip() for line in block.splitlines()]
    lines = [line for line in lines if line]
    if lines and all(re.fullmatch(r'make [\w-]+', line) for line in lines):
        return [line.split()[1] for line in lines]
    return None


class _Handler(socketserver.StreamRequestHandler):

    def handle(self):
        request = json.loads(self.rfile.readline())
        env = request['env']
        if request.get('code') is not None:  # python - (python_main.py)
            env = dict(env, ROBUSTDET_DOCS_STDIN=request['code'])
        tool = ToolProcess(MAIN, request['args'], request['cwd'], env)
        # run_tool's bound (600 s) too: a shim orphaned by bash's timeout
        # may never close its end.
        deadline = time.monotonic() + 600
        while tool.process.exitcode is None:
            if self._shim_gone() or time.monotonic() > deadline:
                tool.kill()
                break
            tool.process.join(0.2)
        proc = tool.wait()
        code = proc.returncode
        try:
            self.wfile.write(json.dumps(dict(
                returncode=code if code >= 0 else 128 - code,
                stdout=proc.stdout, stderr=proc.stderr)).encode())
        except OSError:  # the shim is gone
            pass

    def _shim_gone(self):
        """Whether the shim closed its end (killed: the shim sends
        nothing after its request)."""
        readable, _, _ = select.select([self.connection], [], [], 0)
        return bool(readable) and not self.connection.recv(
            1, socket.MSG_PEEK)


class _Server(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True


class ForkedPython:
    """A directory holding the ``python`` shim, and the server it talks to
    (a thread of this process); a context manager."""

    def __enter__(self):
        self._tmp = tempfile.TemporaryDirectory(prefix='docs-')
        self.bin_dir = osp.join(self._tmp.name, 'bin')
        os.mkdir(self.bin_dir)
        address = osp.join(self._tmp.name, 'socket')
        self._server = _Server(address, _Handler)
        threading.Thread(target=self._server.serve_forever,
                         daemon=True).start()
        shim = osp.join(self.bin_dir, 'python')
        with open(shim, 'w') as f:
            f.write(SHIM.format(python=sys.executable, address=address))
        os.chmod(shim, 0o755)
        return self

    def __exit__(self, *exc):
        self._server.shutdown()
        self._server.server_close()
        self._tmp.cleanup()


def run_page(path, values, scratch, forked=None, setup_block=0):
    """Run the bash blocks of the page ``path`` (relative to the
    repository) after its setup block, with ``values`` for the setup
    block's variables.

    Args:
        path (str): The page, e.g. ``'docs/benchmark.md'``.
        values (dict): Every variable of the setup block: its value here.
        scratch (str): The working directory of the blocks.
        forked (ForkedPython, optional): Runs ``python SCRIPT.py``,
            ``python -`` (a script on standard input), torchrun's ranks
            and srun's tasks.
        setup_block (int, optional): Index of the setup block among the
            bash blocks (the blocks before it must be ``make`` blocks);
            None for a page without one.

    Returns:
        list[Ran]: Each block but the setup block, and what it printed
        (``make -n`` for a make block).
    """
    blocks = bash_blocks(osp.join(REPO, path))
    names = [] if setup_block is None else setup_assignments(
        blocks[setup_block])
    assert sorted(names) == sorted(values), (
        f'{path}: the setup block assigns {names}, the test sets '
        f'{sorted(values)}')
    for name in LINKED:
        if osp.exists(osp.join(REPO, name)):
            os.symlink(osp.join(REPO, name), osp.join(scratch, name))
    path_dirs = [osp.dirname(sys.executable),
                 osp.join(REPO, 'tests', 'fake_slurm'), os.environ['PATH']]
    env = dict(os.environ, PYTHON=sys.executable)
    if forked is not None and not os.environ.get(
            'ROBUSTDET_DOCS_FRESH_PYTHON'):
        path_dirs.insert(0, forked.bin_dir)
        shim = osp.join(forked.bin_dir, 'python')
        env.update(ROBUSTDET_DOCS_SHIM=shim, PYTHON=shim, PYTHON_EXEC=shim)
    env.update(
        {k: str(v) for k, v in values.items()},
        PATH=os.pathsep.join(path_dirs),
        PORT=str(free_port()), MASTER_PORT=str(free_port()),
        # one thread a process, as torchrun sets it: the tests' machines
        # have 2 cores
        OMP_NUM_THREADS='1')
    ran = []
    for index, block in enumerate(blocks):
        if index == setup_block:
            continue
        targets = make_targets(block)
        start = time.perf_counter()
        if targets is not None:
            proc = subprocess.run(['make', '-n', *targets], cwd=REPO,
                                  capture_output=True, text=True)
        else:
            assert setup_block is None or index > setup_block, (path, block)
            proc = subprocess.run(['bash', '-euo', 'pipefail', '-c', block],
                                  cwd=scratch, env=env, capture_output=True,
                                  text=True, timeout=600)
        assert proc.returncode == 0, (
            f'{path}: exit status {proc.returncode} of\n{block}\n'
            f'--- stderr ---\n{proc.stderr[-3000:]}\n'
            f'--- stdout ---\n{proc.stdout[-2000:]}')
        ran.append(Ran(block, proc.stdout, proc.stderr))
        if os.environ.get('ROBUSTDET_DOCS_TIMES'):
            print(f'{time.perf_counter() - start:6.1f} s  '
                  f'{block.strip().splitlines()[0]}', file=sys.__stderr__)
    return ran
