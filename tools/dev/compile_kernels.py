# Copyright (c) robustdet contributors. All rights reserved.
"""Compile robustdet's corruption kernels into numba's cache, once, before
processes that import them run side by side.

The kernels are compiled where they are defined (each has its types), so
every process that imports them before they are cached compiles them all
itself: about 27 s of CPU a process on this project's 2-core Zen 3 EPYC.
`make test` starts three pytest workers at once (two for the suite, one
for its held-back run), and their tools and fresh interpreters after
them; from a fresh clone each of those compiled them anew. This compiles
them once for this CPU and, with ``--held-back``, at the same time in a
second process for the CPU held back a generation (``held_back_cpu.py``,
whose kernels numba keeps in a folder of their own): 28.5 s (55 s of
CPU) there, and 2.5 s with the cache filled, most of it importing numpy
and numba.

It imports the kernel modules without the package's ``__init__`` (which
imports torch, mmengine and mmdet to register modules: seconds a
process), and calls the two that checkerboard_cutout calls from Python
(``portable.sin`` and ``portable.cos``, typed at their first call).
RoIAlign's one kernel (``robustdet.models.roi_align``) needs torch and
mmcv, and is left to its first process::

    python tools/dev/compile_kernels.py [--held-back]
"""
import argparse
import importlib
import os
import os.path as osp
import subprocess
import sys
import types

REPO = osp.dirname(osp.dirname(osp.dirname(osp.abspath(__file__))))
# Every module with numba kernels cached on disk (``cache=True``) but
# robustdet.models.roi_align.
MODULES = ('robustdet.corruptions.kernels', 'robustdet.corruptions.portable',
           'robustdet.corruptions.cbar_kernels')


def compile_here() -> str:
    """Import :data:`MODULES` (compiling what numba's cache lacks).

    Returns:
        str: How many kernels, and how many of their signatures came from
        the cache or were compiled.
    """
    from numba.core.registry import CPUDispatcher
    for name in ('robustdet', 'robustdet.corruptions'):
        if name not in sys.modules:
            module = types.ModuleType(name)
            module.__path__ = [osp.join(REPO, *name.split('.'))]
            sys.modules[name] = module
    modules = [importlib.import_module(name) for name in MODULES]
    portable = sys.modules['robustdet.corruptions.portable']
    portable.sin(0.0)
    portable.cos(0.0)
    kernels, hits, misses = 0, 0, 0
    for module in modules:
        for value in vars(module).values():
            if isinstance(value, CPUDispatcher) and \
                    value.__module__ == module.__name__:
                kernels += 1
                hits += sum(value.stats.cache_hits.values())
                misses += sum(value.stats.cache_misses.values())
    return (f'{kernels} kernels: {hits} signatures from the cache, '
            f'{misses} compiled')


def main() -> int:
    """Compile here and, with ``--held-back``, held back beside it.

    Returns:
        int: 0, or the held-back process's exit status.
    """
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument(
        '--held-back', action='store_true',
        help='also compile them for the CPU held back a generation, in a '
        'second process at the same time')
    args = parser.parse_args()
    held = None
    if args.held_back:
        sys.path.insert(0, osp.dirname(osp.abspath(__file__)))
        from held_back_cpu import FLAG, held_back_env
        env = held_back_env()
        # Nothing to hold back, or this process already is: the same
        # kernels.
        if env[FLAG] and not os.environ.get(FLAG):
            held = subprocess.Popen([sys.executable, __file__],
                                    env={**os.environ, **env},
                                    stdout=subprocess.PIPE, text=True)
    try:
        print(f'compile_kernels: {compile_here()}', flush=True)
    except BaseException:
        if held is not None:
            held.kill()
        raise
    if held is None:
        return 0
    out, _ = held.communicate()
    done = out.split(': ', 1)[-1].strip() if held.returncode == 0 else \
        f'failed (exit status {held.returncode})'
    print(f'compile_kernels, held back to {env[FLAG]}: {done}')
    return held.returncode


if __name__ == '__main__':
    sys.exit(main())
