# Copyright (c) robustdet contributors. All rights reserved.
"""Compiled per-pixel patterns of the C-bar corruptions that need sines,
arctangents and powers (see :mod:`.cbar`).

Each kernel evaluates the source's formula in float64, as the source does
(numpy float64 arrays), with the functions of :mod:`.portable`, so the
pattern has the same bits on every CPU. They work a row at a time, the
innermost loop running over the columns with no branches, so that LLVM
vectorises it; no whole-image temporaries are made. Compiled once per
machine and cached on disk, as :mod:`.kernels`.
"""
import math

import numpy as np
from numba import njit

from . import portable as pm

_OPTS = dict(cache=True, nogil=True, error_model='numpy')


@njit('void(float64[::1], float64[::1], float64, float32[:, ::1])',
      **_OPTS)
def caustic_pattern(p0, p1, time, out):  # pragma: no cover
    """The source's caustic kernel, H×W in [0, 1], into ``out``.

    ``p`` is ``((row, column) / size mod 1) * 6.28318530718 - 250`` (the
    caller's ``p0`` per row, ``p1`` per column); five iterations ``i <- p
    + (cos(t - i0) + sin(t + i1), sin(t - i1) + cos(t + i0))`` with ``t =
    time (1 - 3.5 / (n + 1))`` add ``1 / |(p0 / (sin(i0 + t) / 0.005), p1
    / (cos(i1 + t) / 0.005))|`` to ``c = 1``; the colour is ``clip(|1.17 -
    (c / 5)**1.4|**8, 0, 1)``.
    """
    height, width = out.shape
    i0 = np.empty(width)
    i1 = np.empty(width)
    c = np.empty(width)
    for r in range(height):
        a0 = p0[r]
        for col in range(width):
            i0[col] = a0
            i1[col] = p1[col]
            c[col] = 1.0
        for n in range(5):
            t = time * (1.0 - 3.5 / (n + 1))
            for col in range(width):
                a1 = p1[col]
                j0 = a0 + (pm.cos(t - i0[col]) + pm.sin(t + i1[col]))
                j1 = a1 + (pm.sin(t - i1[col]) + pm.cos(t + i0[col]))
                i0[col] = j0
                i1[col] = j1
                u = a0 / (pm.sin(j0 + t) / 0.005)
                v = a1 / (pm.cos(j1 + t) / 0.005)
                c[col] += 1.0 / math.sqrt(u * u + v * v)
        for col in range(width):
            c[col] = c[col] / 5.0
        pm.power_inplace(c, 1.4)
        for col in range(width):
            v = 1.17 - c[col]
            v = v * v
            v = v * v
            v = v * v
            out[r, col] = min(v, 1.0)


@njit('void(float64, int64, float64, float64, float32[:, :, ::1])',
      **_OPTS)
def plasma_pattern(time, iterations, sharpness, scale,
                   out):  # pragma: no cover
    """The source's plasma kernel, H×W×3 in [-1, 1], into ``out``.

    ``(x, y) = (column, row) / scale`` are pushed ``iterations`` times
    by ``r = (cos(y f + time / d), sin(x f + time / d)) / m``, ``(x, y) +=
    r + 0.3 (-r1, r0)``, with ``f``, ``d`` and ``m`` starting at 1 and
    multiplied by 1.93, 1.15 and ``2.25 - sharpness`` per step; the
    colour is ``(sin(x - time), sin((x + y + sin time) / 2), sin(y +
    time))``. The source's fourth accumulator starts at 0 and is only
    ever multiplied, so it stays 0 and is left out.
    """
    height, width = out.shape[:2]
    sin_time = pm.sin(time)
    x = np.empty(width)
    y = np.empty(width)
    for row in range(height):
        for col in range(width):
            x[col] = col / scale
            y[col] = row / scale
        f, d, m = 1.0, 1.0, 1.0
        for _ in range(iterations):
            shift = time / d
            for col in range(width):
                r0 = pm.cos(y[col] * f + shift) / m
                r1 = pm.sin(x[col] * f + shift) / m
                x[col] += r0 + (-r1) * 0.3
                y[col] += r1 + r0 * 0.3
            f *= 1.93
            d *= 1.15
            m *= 2.25 - sharpness
        for col in range(width):
            out[row, col, 0] = pm.sin(x[col] - time)
            out[row, col, 1] = pm.sin((x[col] + y[col] + sin_time) * 0.5)
            out[row, col, 2] = pm.sin(y[col] + time)


@njit('void(float64, float64, float64[::1], float64, float64, '
      'float64[:, ::1])', **_OPTS)
def star_weight(cy, cx, lengths, exponent, eps, out):  # pragma: no cover
    """The source's sparkle weight ``f`` of one star, H×W, into ``out``.

    ``lengths`` are the star's ray lengths with the first two repeated at
    the end. The ray length at the pixel's angle ``arctan2(dx, dy) + pi``
    is interpolated between two rays; ``g = (length**2 / (dist**2 +
    eps))**exponent`` and ``f = clip((1 - (frac - 1/2)**2) g, 0, 1)``
    with ``frac`` the angular position between the two rays.
    """
    height, width = out.shape
    rays = lengths.size - 2
    per_radian = rays / (2.0 * math.pi)
    d = np.empty(width)
    g = np.empty(width)
    for row in range(height):
        dy = row - cy
        for col in range(width):
            d[col] = (pm.atan2(col - cx, dy) + math.pi) * per_radian
        for col in range(width):  # a gather: not vectorised
            dx = col - cx
            cell = math.floor(d[col])  # d >= 0: int() of the source
            frac = d[col] - cell
            d[col] = frac
            length = lengths[cell] + frac * (lengths[cell + 1] -
                                             lengths[cell])
            g[col] = length * length / (dx * dx + dy * dy + eps)
        if exponent != 1.0:
            pm.power_inplace(g, exponent)
        line = out[row]
        for col in range(width):
            frac = d[col] - 0.5
            line[col] = min(max((1.0 - frac * frac) * g[col], 0.0), 1.0)


@njit('void(float64, float64, float64, float64, float64, '
      'float64[:, ::1])', **_OPTS)
def cocentric_noise(x0, y0, freq, amplitude, ring_width,
                    out):  # pragma: no cover
    """The source's rings around ``(x0, y0)``, H×W in [-1/2, 1/2).

    A sawtooth ``((r + amplitude sin(freq angle)) mod ring_width) /
    ring_width - 1/2`` with ``r`` the distance to the centre and the
    angle the source's ``arctan2(x - x0, y - y0)``.
    """
    height, width = out.shape
    for row in range(height):
        dy = row - y0
        line = out[row]
        for col in range(width):
            dx = col - x0
            angle = pm.atan2(dx, dy)
            radius = math.sqrt(dx * dx + dy * dy)
            v = (radius + pm.sin(angle * freq) * amplitude) / ring_width
            line[col] = v - np.floor(v) - 0.5
