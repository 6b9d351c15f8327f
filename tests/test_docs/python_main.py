# Copyright (c) robustdet contributors. All rights reserved.
"""``python SCRIPT ARGS`` (or ``python - ARGS``, the script given in
``ROBUSTDET_DOCS_STDIN``) in a process forked from the tools' forkserver
(``tests/test_docs/pages.py``): what a fresh interpreter does that the
fork would not, then the script as ``__main__``.

torch read ``OMP_NUM_THREADS`` when the forkserver imported it; a fresh
``python`` reads the command's own (the docs' blocks set 1, as torchrun
does), so it is applied here. More threads than free cores make every
convolution wait for the others (10x slower on a busy 2-core machine).

``python -u`` (how torchrun and srun start ranks here) writes every line
as it comes, so that a rank ending in ``os._exit`` (the watchdog's) keeps
what it printed; the shim sets ``PYTHONUNBUFFERED`` for it.

``sys.executable`` is the ``python`` shim (``ROBUSTDET_DOCS_SHIM``), so
that the script's own ``sys.executable SCRIPT.py`` children are forked
too; its ``sys.executable -c`` and ``-m`` children still start the real
interpreter.
"""
import os
import os.path as osp
import runpy
import sys
import types

import torch

if os.environ.get('OMP_NUM_THREADS'):
    torch.set_num_threads(int(os.environ['OMP_NUM_THREADS']))
if os.environ.get('PYTHONUNBUFFERED'):  # python -u (the shim sets it)
    for stream in (sys.stdout, sys.stderr):
        stream.reconfigure(line_buffering=True, write_through=True)
if os.environ.get('ROBUSTDET_DOCS_SHIM'):
    sys.executable = os.environ['ROBUSTDET_DOCS_SHIM']
script = sys.argv[1]
sys.argv = sys.argv[1:]
if script == '-':  # python - ARGS: the script came on standard input
    code = os.environ.pop('ROBUSTDET_DOCS_STDIN')
    sys.path[0] = ''
    # Its own __main__ module, as python - has: what the script defines
    # can be pickled by reference (a pool's function, a saved class).
    main = types.ModuleType('__main__')
    main.__builtins__ = __builtins__
    sys.modules['__main__'] = main
    exec(compile(code, '<stdin>', 'exec'), main.__dict__)
else:
    sys.path[0] = osp.dirname(osp.abspath(script))
    runpy.run_path(script, run_name='__main__')
