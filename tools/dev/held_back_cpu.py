# Copyright (c) robustdet contributors. All rights reserved.
"""Run a command with the CPU's newest vector kernels held back.

Numbers that depend on the CPU's vector extensions (a trained detector,
a resize, a convolution) must show up on the machine that makes them, not
on the next CI machine. This runs a command with every library the suite
computes with held one generation below what the machine has, so that
one machine computes what an older one would:

======================  =====================  ==========================
this machine            held back to           what is turned off
======================  =====================  ==========================
AVX-512 (x86-64-v4)     ``AVX2`` (x86-64-v3)   every AVX-512 kernel
AVX2 (x86-64-v3)        ``SSE4.2`` (x86-64-v2)  every AVX, AVX2, FMA kernel
older, or not x86-64    nothing                (the command runs as is)
======================  =====================  ==========================

The settings, for ``AVX2`` / ``SSE4.2``:

* torch: ``ATEN_CPU_CAPABILITY`` ``avx2`` / ``default`` (ATen's
  dispatched kernels), ``ONEDNN_MAX_CPU_ISA`` ``AVX2`` / ``SSE41``
  (oneDNN convolutions) and ``MKL_ENABLE_INSTRUCTIONS`` ``AVX2`` /
  ``SSE4_2`` (MKL's GEMM);
* numpy: ``NPY_DISABLE_CPU_FEATURES`` with the dispatch targets above the
  level that this machine has (numpy refuses to disable one it lacks) and
  ``OPENBLAS_CORETYPE`` ``Haswell`` / ``Nehalem`` for its OpenBLAS;
* OpenCV: ``OPENCV_CPU_DISABLE`` with the features above the level that
  this machine has, and for AVX-512 each dispatch target OpenCV was built
  with (``AVX512-SKX``...): disabling ``AVX512F`` alone leaves
  ``AVX512-SKX`` code dispatched. Only names OpenCV accepts for this
  machine are given: it warns on stderr for any other. And
  ``OPENCV_IPP`` ``avx2`` / ``sse42`` for the Intel IPP code that x86
  builds of OpenCV call, which picks its kernels for the CPU on its own;
* numba: ``NUMBA_CPU_NAME`` ``haswell`` / ``nehalem`` and
  ``NUMBA_CPU_FEATURES`` with the host's features less those above the
  level (turned off last: in LLVM a feature such as ``sha512`` implies
  AVX2 and would turn it back on), and ``NUMBA_CACHE_DIR`` a folder of
  its own for the kernels it compiles so (:func:`numba_cache_dir`);
* libjpeg-turbo (Pillow's): ``JSIMD_FORCESSE2=1`` for ``SSE4.2`` (it has
  no AVX-512 code).

``tests/test_utils/test_held_back_cpu.py`` checks in a process started
with these settings what torch's ATen, oneDNN, numpy, OpenBLAS, OpenCV and
numba then compute with; MKL's, IPP's and libjpeg-turbo's settings are
not read back. FFmpeg and its codecs (PyAV) choose their kernels at run
time too and are not held back here. robustdet's ``h264_crf`` runs libx264
at most with its AVX2 kernels (``x264-params asm=AVX2`` on AVX-512 CPUs,
whose macroblock-tree kernel reads memory it has not written); x264's
SSSE3, AVX and AVX2 kernels gave the same bytes on a 16-frame 240x160
clip, its C code (``asm=0``) did not.

``ROBUSTDET_CPU_HELD_BACK`` is set to the level (``AVX2``, ``SSE4.2``, or
empty when nothing is held back), so that the suite checks that the
settings took effect (``tests/test_utils/test_held_back_cpu.py``).

Example:
    python tools/dev/held_back_cpu.py -- python -m pytest -m cpu_sensitive
    eval "$(python tools/dev/held_back_cpu.py --print)"
"""
import argparse
import os
import os.path as osp
import re
import shlex
import sys
from typing import Dict, List

FLAG = 'ROBUSTDET_CPU_HELD_BACK'
# cv2.checkHardwareSupport ids (CV_CPU_*).
CV_FP16, CV_AVX, CV_AVX2, CV_FMA3, CV_AVX_512F = 9, 10, 11, 12, 13

# Per level: torch's, oneDNN's, MKL's, OpenBLAS's and numba's name for it,
# and other variables.
LEVELS = {
    'AVX2':
    dict(aten='avx2', onednn='AVX2', mkl='AVX2', openblas='Haswell',
         numba='haswell', extra=dict(OPENCV_IPP='avx2')),
    'SSE4.2':
    dict(aten='default', onednn='SSE41', mkl='SSE4_2', openblas='Nehalem',
         numba='nehalem',
         extra=dict(OPENCV_IPP='sse42', JSIMD_FORCESSE2='1')),
}


def _avx512(name: str) -> bool:
    name = name.lower().replace('-', '_')
    return 'avx512' in name or name.startswith('avx10') or name == 'x86_v4'


def _above_sse42(name: str) -> bool:
    """Features of x86-64-v3 and later, in numpy's, OpenCV's or LLVM's
    spelling (AVX, AVX2, FMA3/fma, FP16/F16C, VAES, X86_V3...)."""
    lower = name.lower().replace('-', '_')
    return (_avx512(name) or lower.startswith(('avx', 'amx', 'fma'))
            or lower in ('f16c', 'fp16', 'vaes', 'vpclmulqdq', 'xop',
                         'x86_v3', 'sha512', 'sm3', 'sm4'))


ABOVE = {'AVX2': _avx512, 'SSE4.2': _above_sse42}


def _numpy_features():
    try:
        from numpy._core import _multiarray_umath as umath
    except ImportError:  # numpy 1.x
        from numpy.core import _multiarray_umath as umath
    return umath.__cpu_dispatch__, umath.__cpu_features__


def machine_level() -> str:
    """The level this machine is held back to.

    Returns:
        str: ``'AVX2'`` on an AVX-512 machine, ``'SSE4.2'`` on an AVX2 one,
        ``''`` otherwise (nothing to hold back).
    """
    _, features = _numpy_features()
    if features.get('AVX512F', False):
        return 'AVX2'
    if features.get('AVX2', False) and features.get('FMA3', False):
        return 'SSE4.2'
    return ''


def numpy_targets(level: str) -> List[str]:
    """numpy's dispatch targets above ``level`` that this machine has.

    Args:
        level (str): ``'AVX2'`` or ``'SSE4.2'``.

    Returns:
        list[str]: For example ``['X86_V4', 'AVX512_ICL']`` for ``AVX2``
        or ``['X86_V3']`` for ``SSE4.2`` (numpy 2.4).
    """
    dispatch, features = _numpy_features()
    return [
        name for name in dispatch
        if ABOVE[level](name) and features.get(name, False)
    ]


def opencv_names(level: str) -> List[str]:
    """The names above ``level`` that OpenCV accepts in
    ``OPENCV_CPU_DISABLE`` on this machine.

    Args:
        level (str): ``'AVX2'`` or ``'SSE4.2'``.

    Returns:
        list[str]: ``AVX512F`` and the AVX-512 targets that OpenCV
        dispatches to (starred in ``cv2.getCPUFeaturesLine()``, e.g.
        ``*AVX512-SKX``) where the machine has AVX-512F; for ``SSE4.2``
        also ``AVX``, ``FP16``, ``AVX2`` and ``FMA3`` where it has them.
    """
    import cv2
    names = []
    if level == 'SSE4.2':
        names += [
            name for name, cv_id in (('AVX', CV_AVX), ('FP16', CV_FP16),
                                     ('AVX2', CV_AVX2), ('FMA3', CV_FMA3))
            if cv2.checkHardwareSupport(cv_id)
        ]
    if cv2.checkHardwareSupport(CV_AVX_512F):
        dispatched = re.findall(r'\*(AVX512[-_A-Z0-9]*)(?=\s|$)',
                                cv2.getCPUFeaturesLine())
        names += ['AVX512F'] + [n for n in dispatched if n != 'AVX512F']
    return names


def numba_features(level: str) -> str:
    """The host's LLVM features with every one above ``level`` off.

    The features turned off come last: LLVM reads the list in order, and
    turning on a feature turns on those it implies.

    Args:
        level (str): ``'AVX2'`` or ``'SSE4.2'``.

    Returns:
        str: For example ``'+avx2,+fma,...,-avx512f,...'``.
    """
    from llvmlite import binding
    feats = binding.get_host_cpu_features()
    on = [f'+{n}' for n, has in sorted(feats.items())
          if has and not ABOVE[level](n)]
    off = [f'-{n}' for n, has in sorted(feats.items())
           if not has or ABOVE[level](n)]
    return ','.join(on + off)


def numba_cache_dir(level: str) -> str:
    """Where numba keeps the kernels it compiles held back to ``level``.

    Apart from the machine's own (beside the sources in ``__pycache__``,
    or under ``NUMBA_CACHE_DIR``): numba records every CPU target's kernel
    of a function in one index file, rewritten without a lock, so a
    held-back run beside a full one (`make test`) could record the other's
    kernel under its own target, or drop it (then compiled again).

    Args:
        level (str): ``'AVX2'`` or ``'SSE4.2'``.

    Returns:
        str: ``held-back-LEVEL`` under ``NUMBA_CACHE_DIR`` if set, else
        under ``robustdet/numba`` in the user's cache folder
        (``XDG_CACHE_HOME``, by default ``~/.cache``).
    """
    base = os.environ.get('NUMBA_CACHE_DIR') or osp.join(
        os.environ.get('XDG_CACHE_HOME') or osp.expanduser('~/.cache'),
        'robustdet', 'numba')
    return osp.join(base, f'held-back-{level}')


# Every variable held_back_env() may set.
VARIABLES = (FLAG, 'ATEN_CPU_CAPABILITY', 'ONEDNN_MAX_CPU_ISA',
             'MKL_ENABLE_INSTRUCTIONS', 'NPY_DISABLE_CPU_FEATURES',
             'OPENBLAS_CORETYPE', 'OPENCV_CPU_DISABLE', 'NUMBA_CPU_NAME',
             'NUMBA_CPU_FEATURES', 'NUMBA_CACHE_DIR', 'OPENCV_IPP',
             'JSIMD_FORCESSE2')


def held_back_env() -> Dict[str, str]:
    """The environment variables that hold this machine back a level.

    In a process that is already held back (``ROBUSTDET_CPU_HELD_BACK``
    set), the libraries no longer report what the machine has: the
    settings in force are returned, so that a command started from a
    held-back run is held back alike.

    Returns:
        dict[str, str]: Variables to add to the environment; only
        ``ROBUSTDET_CPU_HELD_BACK`` (set to ``''``) on a machine with
        nothing to hold back.
    """
    if os.environ.get(FLAG):
        return {key: os.environ[key] for key in VARIABLES
                if key in os.environ}
    level = machine_level()
    if not level:
        return {FLAG: ''}
    names = LEVELS[level]
    env = {
        FLAG: level,
        'ATEN_CPU_CAPABILITY': names['aten'],
        'ONEDNN_MAX_CPU_ISA': names['onednn'],
        'MKL_ENABLE_INSTRUCTIONS': names['mkl'],
        'NPY_DISABLE_CPU_FEATURES': ' '.join(numpy_targets(level)),
        'OPENBLAS_CORETYPE': names['openblas'],
        'OPENCV_CPU_DISABLE': ','.join(opencv_names(level)),
        **names['extra'],
    }
    try:
        env['NUMBA_CPU_FEATURES'] = numba_features(level)
        env['NUMBA_CPU_NAME'] = names['numba']
        env['NUMBA_CACHE_DIR'] = numba_cache_dir(level)
    except ImportError:  # no numba (llvmlite) installed
        pass
    return env


def main() -> int:
    parser = argparse.ArgumentParser(
        description='Run COMMAND with the CPU held back one generation '
        '(AVX-512 to AVX2, AVX2 to SSE4.2) in torch, numpy, OpenCV and '
        'numba (see the module docstring).')
    parser.add_argument(
        '--print', action='store_true',
        help='print the variables as shell exports (for eval) and exit')
    parser.add_argument('command', nargs=argparse.REMAINDER,
                        help='the command, after --')
    args = parser.parse_args()
    env = held_back_env()
    if args.print:
        for key, value in env.items():
            print(f'export {key}={shlex.quote(value)}')
        return 0
    command = args.command[1:] if args.command[:1] == ['--'] else \
        args.command
    if not command:
        parser.error('give a command after --, or --print')
    if not env[FLAG]:  # held back, it prints nothing: tests read stderr
        print('held_back_cpu: neither AVX-512 nor AVX2 here; running as is',
              file=sys.stderr)
    sys.stdout.flush()
    sys.stderr.flush()
    try:
        os.execvpe(command[0], command, {**os.environ, **env})
    except OSError as e:
        print(f'error: cannot run {command[0]}: {e.strerror}',
              file=sys.stderr)
        return 127


if __name__ == '__main__':
    sys.exit(main())
