# Copyright (c) robustdet contributors. All rights reserved.
"""The corruption table gives the same pixels whatever the CPU computes
with (issue 17: the same numbers on any CPU a rank lands on).

Every corruption of the table (the 19, C-bar and 3DCC) at severities 1, 3
and 5, with the fast and the reference backend, run in fresh processes
under four settings:

* ``default``: everything this machine has;
* ``held_back``: numpy, OpenCV, numba and torch held back one generation
  (``tools/dev/held_back_cpu.py``: AVX-512 to AVX2, AVX2 to SSE4.2);
* ``no_avx512``: numpy's and OpenCV's AVX-512 code turned off
  (``NPY_DISABLE_CPU_FEATURES``, ``OPENCV_CPU_DISABLE``); the same
  process as ``default`` on a machine without AVX-512, so not run there;
* ``unoptimized``: ``cv2.setUseOptimized(False)``, which turns off
  OpenCV's vector code and Intel IPP (what OpenCV builds without them
  run).

Every cell must give the pixels of ``default``, except those of the
reference backend's corruptions in
:data:`robustdet.corruptions.CPU_DEPENDENT` (imagecorruptions' own calls
to OpenCV's float code and to numpy's AVX-512 ``exp``), where whether
this small image shows the difference is chance. Every other cell must
match under every setting: the fast backend's all, and the newer
families' with both backends (one definition, whose trigonometry is
``robustdet.corruptions.portable``'s).

The image is half flat patches, half photo. In a flat patch a blur's exact
result is a whole grey level, so the last bit of the float sum decides the
truncation to uint8: a filter whose summation order depends on the CPU
shows there in most patches, where a photo shows it in a pixel in 10**5.

Not ``cpu_sensitive``: each process sets its own CPU settings, so the
held-back second run of ``make test`` would compute the same thing.
"""
import importlib.util
import json
import os
import os.path as osp
import subprocess
import sys

import numpy as np
import pytest

from robustdet.corruptions import CORRUPTION_NAMES, CPU_DEPENDENT
from tests.conftest import REPO

TOOL = osp.join(REPO, 'tools', 'dev', 'held_back_cpu.py')
SEVERITIES = (1, 3, 5)
BACKENDS = ('fast', 'reference')
# Backend -> corruption name -> settings under which its pixels may
# differ.
ALLOWED = {
    backend: {
        name: ('held_back', 'no_avx512', 'unoptimized')
        for name in CPU_DEPENDENT[backend]
    }
    for backend in BACKENDS
}
# Runs the table and saves the pixels. It imports the corruption modules
# without the package's __init__ (which imports torch, mmengine and mmdet
# to register modules: 6 s a process); corruptions need none of it.
WORKER = r"""
import importlib.util, json, os, sys, types
out_path, optimized, tool_path = sys.argv[1], sys.argv[2] == '1', sys.argv[3]
for name in ('robustdet', 'robustdet.utils'):
    module = types.ModuleType(name)
    module.__path__ = [os.path.join(os.getcwd(), *name.split('.'))]
    sys.modules[name] = module
import cv2
cv2.setUseOptimized(optimized)
import numpy as np
from skimage import data
from robustdet.corruptions import CORRUPTION_NAMES, NEEDS_DEPTH, corrupt
try:
    from numpy._core import _multiarray_umath as umath
except ImportError:  # numpy 1.x
    from numpy.core import _multiarray_umath as umath

img = np.empty((128, 128, 3), np.uint8)
colours = np.random.RandomState(0).randint(0, 256, (2, 4, 3))
img[:64] = np.repeat(np.repeat(colours, 32, axis=0), 32, axis=1)
img[64:] = data.astronaut()[::4, ::4][32:96]
# Near at the bottom, far at the top, unknown (0) in a corner.
depth = np.linspace(40.0, 2.0, 128 * 128).reshape(128, 128)
depth[:8, :8] = 0
cells = {
    f'{backend}/{name}/{severity}': corrupt(
        img, name, severity, seed=severity, backend=backend,
        depth=depth if name in NEEDS_DEPTH else None)
    for backend in sys.argv[4].split(',') for name in CORRUPTION_NAMES
    for severity in map(int, sys.argv[5].split(','))
}
np.savez(out_path, **cells)
spec = importlib.util.spec_from_file_location('held_back_cpu', tool_path)
tool = importlib.util.module_from_spec(spec)
spec.loader.exec_module(tool)
avx512 = bool(cv2.checkHardwareSupport(tool.CV_AVX_512F))
print(json.dumps(dict(
    optimized=cv2.useOptimized(),
    opencv=[name for name, cv_id in [('AVX', tool.CV_AVX),
                                     ('AVX2', tool.CV_AVX2),
                                     ('AVX512F', tool.CV_AVX_512F)]
            if cv2.checkHardwareSupport(cv_id)],
    numpy=[t for t in umath.__cpu_dispatch__
           if umath.__cpu_features__.get(t)],
    no_avx512=dict(
        NPY_DISABLE_CPU_FEATURES=' '.join(tool.numpy_targets('AVX2')),
        OPENCV_CPU_DISABLE=','.join(tool.opencv_names('AVX2')))
    if avx512 else None)))
"""


def _tool():
    spec = importlib.util.spec_from_file_location('held_back_cpu', TOOL)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _start(tmp_path, setting, env, optimized=True):
    path = tmp_path / f'{setting}.npz'
    proc = subprocess.Popen(
        [
            sys.executable, '-c', WORKER,
            str(path), '1' if optimized else '0', TOOL,
            ','.join(BACKENDS), ','.join(map(str, SEVERITIES))
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=REPO,
        env=env)
    return proc, path


def _finish(run):
    proc, path = run
    stdout, stderr = proc.communicate(timeout=600)
    assert proc.returncode == 0, stderr
    with np.load(path) as cells:
        return json.loads(stdout.strip().splitlines()[-1]), dict(cells)


def _differences(base, other):
    """``{cell: (max |diff|, fraction of values that differ)}``."""
    out = {}
    for cell, pixels in base.items():
        diff = np.abs(pixels.astype(np.int16) - other[cell])
        if diff.any():
            out[cell] = (int(diff.max()), float(np.mean(diff > 0)))
    return out


def test_same_pixels_under_every_cpu_setting(tmp_path):
    tool = _tool()
    # This machine at full capability, even in a held-back run of the suite.
    full = {k: v for k, v in os.environ.items() if k not in tool.VARIABLES}
    held_back = dict(full, **tool.held_back_env())
    level = held_back[tool.FLAG]
    runs = {
        'default': _start(tmp_path, 'default', full),
        'held_back': _start(tmp_path, 'held_back', held_back),
        'unoptimized': _start(tmp_path, 'unoptimized', full, False),
    }
    caps, cells = {}, {}
    for setting, run in runs.items():
        caps[setting], cells[setting] = _finish(run)
    # Each setting took effect.
    assert caps['default']['optimized'] and not caps['unoptimized'][
        'optimized']
    if level:
        above = tool.ABOVE[level]
        assert not [n for n in caps['held_back']['opencv'] if above(n)]
        assert not [n for n in caps['held_back']['numpy'] if above(n)]
        assert [n for n in caps['default']['opencv'] if above(n)]
    no_avx512 = caps['default']['no_avx512']
    if no_avx512:
        caps['no_avx512'], cells['no_avx512'] = _finish(
            _start(tmp_path, 'no_avx512', dict(full, **no_avx512)))
        assert 'AVX512F' not in caps['no_avx512']['opencv']
        assert not [
            n for n in caps['no_avx512']['numpy'] if tool.ABOVE['AVX2'](n)
        ]
    assert len(cells['default']) == len(BACKENDS) * len(
        CORRUPTION_NAMES) * len(SEVERITIES)

    unexpected = []
    for setting in sorted(cells.keys() - {'default'}):
        diffs = _differences(cells['default'], cells[setting])
        for cell, (max_diff, fraction) in sorted(diffs.items()):
            backend, name, _ = cell.split('/')
            if setting not in ALLOWED[backend].get(name, ()):
                unexpected.append(f'{setting}: {cell} differs by up to '
                                  f'{max_diff} in {fraction:.3%} of values')
    assert not unexpected, '\n'.join(unexpected)


@pytest.mark.parametrize('backend', BACKENDS)
def test_the_lists_name_corruptions(backend):
    names = CPU_DEPENDENT[backend]
    assert set(names) <= set(CORRUPTION_NAMES)
    assert list(names) == [n for n in CORRUPTION_NAMES if n in names]


@pytest.mark.parametrize('mode, cv_mode', [
    ('replicate', 'BORDER_REPLICATE'),
    ('reflect', 'BORDER_REFLECT'),
    ('reflect101', 'BORDER_REFLECT_101'),
])
def test_border_maps_are_opencvs(mode, cv_mode):
    """The index maps that replace OpenCV's borders in the fast backend's
    filters, also for a radius beyond the image size."""
    import cv2

    from robustdet.corruptions.fast import _border
    for size in (1, 2, 5, 8):
        for radius in (0, 1, 3, 7, 20):
            line = np.arange(size, dtype=np.int32)[None]
            padded = cv2.copyMakeBorder(line, 0, 0, radius, radius,
                                        getattr(cv2, cv_mode))[0]
            assert list(_border(size, radius, mode)) == list(padded)


@pytest.mark.parametrize('index, size', [(0, (480, 640)), (3, (33, 47)),
                                         (5, (700, 300))])
def test_frost_texture_resize_is_bicubic_in_integers(index, size):
    """frost's texture enlargement is OpenCV's uint8 bicubic formula
    computed exactly (the fast backend's one step that IPP and OpenCV's
    vector code rounded their own ways): equal to the formula evaluated in
    int64 numpy, with OpenCV's coefficients, and within a grey level of
    ``cv2.resize``."""
    import cv2

    from robustdet.corruptions import common
    common.frost_rescaled.cache_clear()
    out = common.frost_rescaled(index, *size)[..., ::-1]  # to BGR
    texture = common.frost_texture(index).astype(np.int64)
    height, width = out.shape[:2]
    rows, row_w = common.cubic_taps(texture.shape[0], height)
    cols, col_w = common.cubic_taps(texture.shape[1], width)
    horizontal = sum(texture[:, cols[:, t]] * col_w[None, :, t, None]
                     for t in range(4))
    vertical = sum(horizontal[rows[:, t]] * row_w[:, t, None, None]
                   for t in range(4))
    assert np.array_equal(out, np.clip((vertical + 2**21) >> 22, 0, 255))

    source = common.frost_texture(index)
    diff = np.abs(out - cv2.resize(
        source, (width, height), interpolation=cv2.INTER_CUBIC).astype(int))
    assert diff.max() <= 1 and diff.mean() < 0.1
    optimized = cv2.useOptimized()
    cv2.setUseOptimized(False)
    try:
        # OpenCV's own code (no IPP): the same coefficients, so all but a
        # few pixels that its vector code rounds in float.
        plain = cv2.resize(source, (width, height),
                           interpolation=cv2.INTER_CUBIC)
    finally:
        cv2.setUseOptimized(optimized)
    assert np.mean(out != plain) < 1e-3


def test_the_old_name_still_answers():
    """OPENCV_DEPENDENT, the list's name before numpy joined OpenCV as a
    cause, works for one release with a DeprecationWarning."""
    import robustdet.corruptions as corruptions
    with pytest.warns(DeprecationWarning, match='use CPU_DEPENDENT'):
        assert corruptions.OPENCV_DEPENDENT is CPU_DEPENDENT
    with pytest.raises(AttributeError):
        assert corruptions.NO_SUCH_NAME is None
