# Copyright (c) robustdet contributors. All rights reserved.
"""robustdet.corruptions.portable: elementary functions with the same bits
on every CPU, and the C-bar kernels built on them.

The compiled functions must equal, bit for bit, the same source run by
CPython (``NUMBA_DISABLE_JIT=1`` in a fresh process): CPython's floats
are IEEE doubles with no fused multiply-add and no reordering, so any
contraction or vector reassociation LLVM made on this CPU would show
here. Accuracy is held against numpy.
"""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

from robustdet.corruptions import cbar_kernels
from robustdet.corruptions import portable as pm
from tests.conftest import REPO

# Loads the two modules without the package's __init__ (torch, mmdet: 6
# s), with numba's JIT off, and prints the bits of every function and
# kernel on the inputs of stdin.
PYTHON_TWIN = r"""
import json, os, sys, types
for name in ('robustdet', 'robustdet.corruptions'):
    module = types.ModuleType(name)
    module.__path__ = [os.path.join(os.getcwd(), *name.split('.'))]
    sys.modules[name] = module
import numpy as np
from robustdet.corruptions import cbar_kernels as ck
from robustdet.corruptions import portable as pm
inputs = json.load(sys.stdin)
out = {}
for name, args in inputs['scalar'].items():
    fn = getattr(pm, name)
    out[name] = [float(fn(*a)).hex() for a in zip(*args)]
for name, (args, shape, dtype) in inputs['kernels'].items():
    buf = np.zeros(shape, dtype)
    getattr(ck, name)(*[np.array(a) if isinstance(a, list) else a
                        for a in args], buf)
    out[name] = buf.astype(np.float64).ravel().tolist()
print(json.dumps(out))
"""


def _scalar_inputs():
    rng = np.random.default_rng(17)
    angles = np.concatenate([
        rng.uniform(-7, 7, 300),
        rng.uniform(-3000, 3000, 200),
        np.arange(-8, 9) * np.pi / 4,  # the reduction's boundaries
        [0.0, 1e-300, 5e-324, 1e5, -2e6],
    ])
    ys = np.concatenate([rng.standard_normal(300) * 50, [0, 0, 1, -1, 0]])
    xs = np.concatenate([rng.standard_normal(300) * 50, [0, -1, 0, 0, 3]])
    exps = np.concatenate([rng.uniform(-745, 709, 200),
                           rng.uniform(-3, 3, 200), [0.0, -0.0, 709.7]])
    logs = np.exp(rng.uniform(-700, 700, 300))
    bases = np.exp(rng.uniform(-30, 30, 200))
    powers = rng.uniform(0.1, 3, 200)
    return dict(sin=[angles], cos=[angles], atan2=[ys, xs], exp=[exps],
                log=[logs], power=[bases, powers])


def _kernel_inputs():
    rows, cols = 5, 7
    p0 = (np.arange(rows) / 3.1 % 1) * 6.28318530718 - 250.0
    p1 = (np.arange(cols) / 3.1 % 1) * 6.28318530718 - 250.0
    lengths = np.concatenate([np.linspace(2.0, 6.0, 9)] * 1)
    lengths = np.concatenate([lengths, lengths[:2]])
    return dict(
        caustic_pattern=([p0, p1, 1.3], (rows, cols), np.float32),
        plasma_pattern=([4.2, 5, 0.7, 2.5], (rows, cols, 3), np.float32),
        star_weight=([2.3, 3.1, lengths, 1.3, 1e-4], (rows, cols),
                     np.float64),
        cocentric_noise=([3.3, 1.7, 6.2, 2.0, 1.9], (rows, cols),
                         np.float64),
    )


def test_compiled_functions_equal_their_python_twins_bit_for_bit():
    scalar = _scalar_inputs()
    kernels = _kernel_inputs()
    payload = dict(
        scalar={k: [v.tolist() for v in args]
                for k, args in scalar.items()},
        kernels={k: ([a.tolist() if isinstance(a, np.ndarray) else a
                      for a in args], shape, np.dtype(dtype).name)
                 for k, (args, shape, dtype) in kernels.items()})
    env = dict(os.environ, NUMBA_DISABLE_JIT='1')
    proc = subprocess.run([sys.executable, '-c', PYTHON_TWIN],
                          input=json.dumps(payload), capture_output=True,
                          text=True, cwd=REPO, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    twin = json.loads(proc.stdout)
    for name, args in scalar.items():
        fn = getattr(pm, name)
        compiled = [float(fn(*a)).hex() for a in zip(*args)]
        differ = [(a, c, t) for a, c, t in zip(zip(*args), compiled,
                                                twin[name]) if c != t]
        assert not differ, (name, differ[:5])
    for name, (args, shape, dtype) in kernels.items():
        buf = np.zeros(shape, dtype)
        getattr(cbar_kernels, name)(*args, buf)
        assert buf.astype(np.float64).ravel().tolist() == twin[name], name


def _ulps(got, want):
    got = np.asarray(got, np.float64)
    want = np.asarray(want, np.float64)
    return np.abs(got - want) / np.spacing(np.abs(want))


@pytest.mark.parametrize('name', ['sin', 'cos'])
def test_sine_and_cosine_within_three_ulp(name):
    x = np.random.default_rng(1).uniform(-1e4, 1e4, 20000)
    x = np.concatenate([x, np.random.default_rng(2).uniform(-4, 4, 20000)])
    array = pm.sin_array if name == 'sin' else pm.cos_array
    got = array(x)
    want = getattr(np, name)(x)
    # Near a zero of the function the absolute error is what counts.
    err = np.abs(got - want) / np.maximum(np.spacing(np.abs(want)),
                                          np.spacing(0.5))
    assert err.max() <= 3, x[err.argmax()]
    # The array forms are the scalar functions, any shape and dtype.
    grid = x[:12].reshape(3, 4).astype(np.float32)
    out = array(grid)
    assert out.shape == (3, 4) and out.dtype == np.float64
    assert out[1, 2] == getattr(pm, name)(float(grid[1, 2]))


def test_atan2_within_four_ulp_and_its_quadrants():
    rng = np.random.default_rng(3)
    y = rng.standard_normal(20000) * np.exp(rng.uniform(-8, 8, 20000))
    x = rng.standard_normal(20000) * np.exp(rng.uniform(-8, 8, 20000))
    got = np.array([pm.atan2(a, b) for a, b in zip(y, x)])
    assert _ulps(got, np.arctan2(y, x)).max() <= 4
    inf = np.inf
    for a, b in [(0.0, 0.0), (0.0, -1.0), (-1.0, 0.0), (1.0, 0.0),
                 (1.0, -1.0), (-1.0, -1.0), (inf, inf), (-inf, -inf),
                 (inf, 1.0), (1.0, -inf), (1.0, inf)]:
        assert pm.atan2(a, b) == pytest.approx(np.arctan2(a, b),
                                               rel=1e-15), (a, b)
    assert np.isnan(pm.atan2(np.nan, 1.0))
    assert np.isnan(pm.atan2(1.0, np.nan))


def test_exp_log_power():
    rng = np.random.default_rng(4)
    x = np.concatenate([rng.uniform(-740, 709, 5000), rng.uniform(-2, 2,
                                                                  5000)])
    assert _ulps([pm.exp(v) for v in x], np.exp(x)).max() <= 1
    pos = np.exp(rng.uniform(-700, 700, 5000))
    assert _ulps([pm.log(v) for v in pos], np.log(pos)).max() <= 1
    base = np.exp(rng.uniform(-20, 20, 5000))
    expo = rng.uniform(0, 3, 5000)
    got = np.array([pm.power(b, e) for b, e in zip(base, expo)])
    assert np.allclose(got, base**expo, rtol=1e-14, atol=0)
    assert pm.exp(800.0) == np.inf and pm.exp(-800.0) == 0.0
    assert pm.exp(-np.inf) == 0.0 and np.isnan(pm.exp(np.nan))
    assert pm.log(0.0) == -np.inf and np.isnan(pm.log(-1.0))
    assert pm.log(np.inf) == np.inf
    assert pm.power(0.0, 1.4) == 0.0 and pm.power(np.inf, 1.4) == np.inf
    assert pm.power(0.0, -1.0) == np.inf and pm.power(np.inf, -1) == 0.0
    assert pm.power(5.0, 0.0) == 1.0 and pm.power(1.0, np.inf) == 1.0
