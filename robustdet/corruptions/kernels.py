# Copyright (c) robustdet contributors. All rights reserved.
"""Compiled loops of the fast backend.

A few steps of the corruptions cannot be written as whole-array numpy or
OpenCV operations without changing what they compute: glass_blur's local
pixel shuffle is sequential (each step reads pixels earlier steps wrote),
and zoom_blur, elastic_transform and the noise samplers gather per pixel.
They are numba kernels with explicit signatures, compiled once per
machine and cached on disk (``cache=True``; numba falls back to a per-user
cache directory when the package directory is read-only), so a fresh
process loads them instead of paying the compile time the reference's
glass_blur pays in every process.
"""
import numpy as np
from numba import njit

_OPTS = dict(cache=True, nogil=True)


@njit([
    'void(float32[:, :, ::1], intp[:, ::1], float32[:, ::1], '
    'float32[:, ::1], intp[:, ::1], float32[:, ::1], float32[:, ::1], '
    'float32[:, :, ::1])',
    'void(float64[:, :, ::1], intp[:, ::1], float64[:, ::1], '
    'float64[:, ::1], intp[:, ::1], float64[:, ::1], float64[:, ::1], '
    'float64[:, :, ::1])'
], **_OPTS)
def zoom_accumulate(img, rows, row_w, row_in, cols, col_w, col_in,
                    out):  # pragma: no cover
    """Add bilinear resamplings of ``img`` to ``out``, one per zoom.

    Zoom ``k`` samples output pixel ``(i, j)`` between source rows
    ``rows[k, i]`` and ``rows[k, i] + 1`` (weight ``row_w[k, i]`` on the
    second) and likewise between columns; ``row_in`` / ``col_in`` (1 or 0)
    zero the samples scipy leaves at its constant 0. Separable, one
    output row at a time, so the working set stays in cache.
    """
    num_zooms, height = rows.shape
    width = cols.shape[1]
    src_width, channels = img.shape[1], img.shape[2]
    line = np.empty(src_width * channels, img.dtype)
    flat = img.reshape(img.shape[0], src_width * channels)
    for i in range(height):
        dst = out[i]
        for k in range(num_zooms):
            a = row_w[k, i]
            g = row_in[k, i]
            # Only the source columns this zoom reads. Slices and range()
            # indices are non-negative, so numba drops its negative-index
            # wrap-around and the loop vectorises.
            lo = cols[k, 0] * channels
            hi = min(cols[k, width - 1] + 2, src_width) * channels
            top = flat[rows[k, i], lo:hi]
            bottom = flat[rows[k, i] + 1, lo:hi]
            seg = line[lo:hi]
            for j in range(hi - lo):
                seg[j] = g * (top[j] + a * (bottom[j] - top[j]))
            for j in range(width):
                s = cols[k, j] * channels
                pair = line[s:s + 2 * channels]
                b = col_w[k, j]
                h = col_in[k, j]
                for c in range(channels):
                    left = pair[c]
                    dst[j, c] += h * (left + b * (pair[channels + c] - left))


@njit('void(uint8[:, :, ::1], int32[::1], int64)', **_OPTS)
def glass_pass(img, offsets, delta):  # pragma: no cover
    """One pass of the reference glass_blur pixel shuffle, in place.

    Scans rows from ``H - delta`` down to ``delta + 1`` and columns
    likewise, takes ``dx`` then ``dy`` from ``offsets`` and copies pixel
    ``(h + dy, w + dx)`` into ``(h, w)``. The reference writes ``x[h, w],
    x[h', w'] = x[h', w'], x[h, w]`` on array views, which copies rather
    than swaps; that is what is measured, so it is kept.
    """
    height, width, channels = img.shape
    t = 0
    for h in range(height - delta, delta, -1):
        for w in range(width - delta, delta, -1):
            sy = h + offsets[t + 1]
            sx = w + offsets[t]
            t += 2
            for c in range(channels):
                img[h, w, c] = img[sy, sx, c]


@njit('void(float64[:, ::1], float64[:, ::1], uint8[:, ::1])', **_OPTS)
def build_alias(pmf, prob, alias):  # pragma: no cover
    """Walker/Vose alias tables, one per row of ``pmf`` (256 outcomes).

    Row ``v`` of ``pmf`` is the distribution of the output grey level given
    input level ``v``. After the call, drawing ``j`` uniformly and keeping
    it with probability ``prob[v, j]`` (else taking ``alias[v, j]``)
    samples that distribution exactly.
    """
    rows, n = pmf.shape
    small = np.empty(n, np.int64)
    large = np.empty(n, np.int64)
    scaled = np.empty(n, np.float64)
    for v in range(rows):
        ns = 0
        nl = 0
        for j in range(n):
            scaled[j] = pmf[v, j] * n
            alias[v, j] = j
            if scaled[j] < 1.0:
                small[ns] = j
                ns += 1
            else:
                large[nl] = j
                nl += 1
        while ns > 0 and nl > 0:
            ns -= 1
            s = small[ns]
            g = large[nl - 1]
            prob[v, s] = scaled[s]
            alias[v, s] = g
            scaled[g] = (scaled[g] + scaled[s]) - 1.0
            if scaled[g] < 1.0:
                nl -= 1
                small[ns] = g
                ns += 1
        for i in range(nl):
            prob[v, large[i]] = 1.0
        for i in range(ns):
            prob[v, small[i]] = 1.0


@njit('void(uint8[::1], float64[::1], float64[:, ::1], uint8[:, ::1], '
      'uint8[::1])', **_OPTS)
def sample_levels(levels, uniform, prob, alias, out):  # pragma: no cover
    """Draw each output level from the alias tables of its input level.

    One uniform number per value: its integer part (×256) picks a column,
    its fraction decides between the column and its alias.
    """
    n = prob.shape[1]
    for i in range(levels.shape[0]):
        v = levels[i]
        t = uniform[i] * n
        j = min(np.int64(t), n - 1)
        col = np.uint64(j)  # unsigned: no negative-index wrap-around
        # Branch-free select: the comparison is a coin flip per value.
        keep = np.int64(t - j < prob[v, col])
        other = np.int64(alias[v, col])
        out[i] = other + keep * (j - other)


@njit('int64(int64, int64)', **_OPTS)
def _reflect(idx, size):  # pragma: no cover
    period = 2 * size
    idx = idx % period
    if idx >= size:
        idx = period - 1 - idx
    return idx


@njit('UniTuple(uint64, 2)(int64, int64)', **_OPTS)
def _tap_pair(idx, size):  # pragma: no cover
    """Indices ``idx`` and ``idx + 1``, reflected about the border.

    The modulo of the reflection is the slow part, so it runs only near
    the border; unsigned, so numba skips its negative-index wrap-around.
    """
    if 0 <= idx and idx + 1 < size:
        return np.uint64(idx), np.uint64(idx + 1)
    return np.uint64(_reflect(idx, size)), np.uint64(_reflect(idx + 1, size))


@njit(['void(float32[:, :, ::1], float32[:, ::1], float32[:, ::1], '
       'float32[:, :, ::1])'], **_OPTS)
def remap_reflect(img, dy, dx, out):  # pragma: no cover
    """Bilinear sampling at ``(i + dy, j + dx)``, half-sample reflection.

    Matches ``scipy.ndimage.map_coordinates(order=1, mode='reflect')``:
    each of the two taps per axis is reflected about the border
    (``-1 -> 0``, ``n -> n - 1``) before interpolating.
    """
    height, width, channels = img.shape
    for i in range(height):
        for j in range(width):
            y = i + np.float64(dy[i, j])
            x = j + np.float64(dx[i, j])
            y0 = np.int64(np.floor(y))
            x0 = np.int64(np.floor(x))
            fy = y - y0
            fx = x - x0
            ya, yb = _tap_pair(y0, height)
            xa, xb = _tap_pair(x0, width)
            for c in range(channels):
                top = img[ya, xa, c] + fx * (img[ya, xb, c] - img[ya, xa, c])
                bot = img[yb, xa, c] + fx * (img[yb, xb, c] - img[yb, xa, c])
                out[i, j, c] = top + fy * (bot - top)


@njit([
    'void(float32[:, :, ::1], float32[::1], int64[::1], int64[::1], '
    'float32[:, :, ::1])', 'void(float64[:, :, ::1], float64[::1], '
    'int64[::1], int64[::1], float64[:, :, ::1])'
], **_OPTS)
def shift_sum(img, weights, dxs, dys, out):  # pragma: no cover
    """``out[y, x] += sum_k w_k * img[clamp(y - dy_k), clamp(x - dx_k)]``.

    The reference motion blur: shifted copies with the edge repeated. Rows
    are processed flat (``W * C`` values) so the inner loop is contiguous.
    """
    height, width, channels = img.shape
    flat_in = img.reshape(height, width * channels)
    flat_out = out.reshape(height, width * channels)
    for y in range(height):
        dst = flat_out[y]
        for k in range(weights.shape[0]):
            w = weights[k]
            dx = dxs[k]
            src = flat_in[min(max(y - dys[k], 0), height - 1)]
            # Columns whose source x - dx is inside the image: slices, so
            # the indices are non-negative and the loop vectorises.
            lo = min(max(dx, 0), width)
            hi = max(min(width + dx, width), 0)
            inner = dst[lo * channels:hi * channels]
            shifted = src[(lo - dx) * channels:(hi - dx) * channels]
            for i in range(inner.shape[0]):
                inner[i] += w * shifted[i]
            for x in range(0, lo):
                for c in range(channels):
                    dst[x * channels + c] += w * src[c]
            for x in range(hi, width):
                for c in range(channels):
                    dst[x * channels + c] += w * src[(width - 1) * channels +
                                                    c]
