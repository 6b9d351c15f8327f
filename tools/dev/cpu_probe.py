# Copyright (c) robustdet contributors. All rights reserved.
"""Which corruption cells change with the CPU's vector code held back?

Runs the 19 corruptions at severities 1-5, with the fast and the reference
backend, on four images (the small test image of
``tests/test_corruptions/test_cpu_identical.py``, scikit-image's
astronaut and coffee photos, uniform noise), and numpy's transcendental
functions on a million values, in three fresh processes:

* ``default``: everything this machine has;
* ``no_avx512``: numpy's and OpenCV's AVX-512 code turned off (on a
  machine without AVX-512 the same as ``default``);
* ``held_back``: the whole CPU held back a generation
  (``tools/dev/held_back_cpu.py``),

and prints every cell that differs from ``default``, with the largest
difference and the fraction of values that differ. The test covers three
severities of one image on every run of the suite; this is the wider
survey to run once on a new kind of machine (docs/distributed.md has
what it printed on an AVX-512 machine)::

    python tools/dev/cpu_probe.py [--json OUT.json]

The corruption modules are imported without the package's ``__init__``
(which imports torch and the OpenMMLab stack), so it runs where only the
corruptions' requirements are installed.
"""
import argparse
import importlib.util
import json
import os
import os.path as osp
import subprocess
import sys
import tempfile
import types

REPO = osp.dirname(osp.dirname(osp.dirname(osp.abspath(__file__))))
TOOL = osp.join(REPO, 'tools', 'dev', 'held_back_cpu.py')
UFUNCS = ('exp', 'expm1', 'log', 'log1p', 'power', 'sin', 'cos', 'tan',
          'arctan', 'tanh')


def _corruptions():
    """``robustdet.corruptions`` without the package's ``__init__``."""
    for name in ('robustdet', 'robustdet.utils'):
        module = types.ModuleType(name)
        module.__path__ = [osp.join(REPO, *name.split('.'))]
        sys.modules[name] = module
    import robustdet.corruptions as corruptions
    return corruptions


def _images(np):
    from skimage import data
    test = np.empty((128, 128, 3), np.uint8)
    colours = np.random.RandomState(0).randint(0, 256, (2, 4, 3))
    test[:64] = np.repeat(np.repeat(colours, 32, axis=0), 32, axis=1)
    test[64:] = data.astronaut()[::4, ::4][32:96]
    noise = np.random.RandomState(1).randint(0, 256, (96, 128, 3),
                                             np.uint8)
    return dict(
        test=test,
        astronaut=np.ascontiguousarray(data.astronaut()[::2, ::2]),
        coffee=np.ascontiguousarray(data.coffee()[::3, ::3]),
        noise=noise)


def worker(path):
    """Compute every cell in this process and save them to ``path``."""
    import numpy as np
    corruptions = _corruptions()
    cells = {}
    values = np.linspace(-50, 50, 1_000_003)
    for dtype in ('float64', 'float32'):
        x = values.astype(dtype)
        for fn in UFUNCS:
            arg = {'log': np.abs(x) + 1, 'log1p': np.abs(x),
                   'exp': x / 2, 'expm1': x / 2}.get(fn, x)
            if fn == 'power':
                cells[f'numpy/{dtype}/power'] = np.power(
                    np.abs(x), x.dtype.type(0.37))
            else:
                cells[f'numpy/{dtype}/{fn}'] = getattr(np, fn)(arg)
    for key, img in _images(np).items():
        for backend in ('fast', 'reference'):
            for name in corruptions.CORRUPTION_NAMES:
                # Near at the bottom, far at the top.
                depth = (np.linspace(40.0, 2.0, img.shape[0])[:, None].repeat(
                    img.shape[1], axis=1)
                         if name in corruptions.NEEDS_DEPTH else None)
                for severity in range(1, 6):
                    cells[f'{key}/{backend}/{name}/{severity}'] = (
                        corruptions.corrupt(img, name, severity,
                                            seed=severity, backend=backend,
                                            depth=depth))
    np.savez(path, **cells)


def _settings():
    spec = importlib.util.spec_from_file_location('held_back_cpu', TOOL)
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    full = {k: v for k, v in os.environ.items() if k not in tool.VARIABLES}
    return dict(
        default=full,
        no_avx512=dict(
            full,
            NPY_DISABLE_CPU_FEATURES=' '.join(tool.numpy_targets('AVX2')),
            OPENCV_CPU_DISABLE=','.join(tool.opencv_names('AVX2'))),
        held_back=dict(full, **tool.held_back_env()))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--json', help='also write the differences here')
    args = parser.parse_args()
    import numpy as np
    tmp = tempfile.mkdtemp(prefix='cpu_probe_')
    procs = {
        setting: subprocess.Popen(
            [sys.executable, __file__, '--worker',
             osp.join(tmp, f'{setting}.npz')],
            env=env, stderr=subprocess.PIPE, text=True)
        for setting, env in _settings().items()
    }
    for setting, proc in procs.items():
        _, err = proc.communicate()
        if proc.returncode:
            sys.exit(f'{setting} failed:\n{err[-3000:]}')
    base = dict(np.load(osp.join(tmp, 'default.npz')))
    report = {}
    for setting in ('no_avx512', 'held_back'):
        other = np.load(osp.join(tmp, f'{setting}.npz'))
        diffs = {}
        for cell, a in base.items():
            b = other[cell]
            if not np.array_equal(a, b):
                d = np.abs(a.astype(np.float64) - b)
                diffs[cell] = (float(d.max()), float(np.mean(d > 0)))
        report[setting] = diffs
        print(f'{setting}: {len(diffs)} of {len(base)} cells differ')
        for cell, (largest, fraction) in sorted(diffs.items()):
            print(f'  {cell}: up to {largest:.3g} in {fraction:.3%} of '
                  'values')
    if args.json:
        with open(args.json, 'w') as f:
            json.dump(report, f, indent=1)


if __name__ == '__main__':
    if sys.argv[1:2] == ['--worker']:
        worker(sys.argv[2])
    else:
        main()
