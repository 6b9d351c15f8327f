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
from numba import njit, types

_OPTS = dict(cache=True, nogil=True)
# A read-only C-contiguous uint8 image (the caller's own array).
_U8_RO = types.Array(types.uint8, 3, 'C', readonly=True)


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


@njit('void(uint8[::1], uint64[::1], uint32[:, ::1], float64[:, ::1], '
      'uint8[:, ::1], uint8[::1])', **_OPTS)
def sample_levels(levels, raw, upper, prob, alias, out):  # pragma: no cover
    """Draw each output level from the alias tables of its input level.

    One 64-bit draw per value, read as numpy's ``Generator.random()``
    reads it: ``u = (raw >> 11) / 2**53``. The integer part of ``256 u``
    (the draw's top 8 bits) picks a column; its fraction ``m / 2**45``
    (the next 45 bits) keeps the column when ``m / 2**45 < prob``, that
    is when ``m < ceil(prob * 2**45)``. ``upper`` holds the top 32 of
    those 46-bit thresholds, a quarter of ``prob``'s bytes, so the tables
    stay in cache; the float64 ``prob`` is read only when the top bits
    tie (2**-32 of the draws), which keeps the comparison exact.
    """
    fraction_bits = np.uint64(45)
    mask = np.uint64((1 << 45) - 1)
    drop = np.uint64(13)  # 45 + 1 - 32: the bits ``upper`` leaves out
    scale = 2.0**-45
    for i in range(levels.shape[0]):
        v = levels[i]
        x = raw[i] >> np.uint64(11)
        col = x >> fraction_bits
        m = x & mask
        top = np.uint32(m >> drop)
        bound = upper[v, col]
        if top != bound:
            keep = np.int64(top < bound)
        else:
            keep = np.int64(np.float64(m) * scale < prob[v, col])
        other = np.int64(alias[v, col])
        # Branch-free select: the comparison is a coin flip per value.
        out[i] = other + keep * (np.int64(col) - other)


@njit('void(float32[:, ::1], int64, float64, float64[::1])', **_OPTS)
def plasma_level(grid, step, wibble, uniform):  # pragma: no cover
    """One diamond-square level of :func:`.common.plasma_fractal`.

    ``uniform`` holds the level's ``3 n²`` draws of ``random_sample`` in
    the reference's order (centres, then the diamonds on the corners'
    rows, then those on their columns; row-major, ``n = side / step``),
    turned into ``uniform(-wibble, wibble)`` as numpy does
    (``low + (high - low) * u``). Every value is computed as the
    reference's numpy expression computes it: the neighbour sums in
    float32 in its order, ``/ 4`` in float32, the noise in float64, the
    sum rounded to the float32 grid.
    """
    n = grid.shape[0] // step
    half = step // 2
    low = -wibble
    span = wibble - low
    four = np.float32(4)
    for i in range(n):
        i1 = (i + 1) % n
        for j in range(n):
            j1 = (j + 1) % n
            acc = (grid[i * step, j * step] + grid[i1 * step, j * step]) + (
                grid[i * step, j1 * step] + grid[i1 * step, j1 * step])
            noise = wibble * (low + span * uniform[i * n + j])
            grid[half + i * step, half + j * step] = np.float32(
                np.float64(acc / four) + noise)
    for i in range(n):
        i0 = (i - 1) % n
        i1 = (i + 1) % n
        for j in range(n):
            j0 = (j - 1) % n
            j1 = (j + 1) % n
            centre = grid[half + i * step, half + j * step]
            corner = grid[i * step, j * step]
            total = (centre + grid[half + i0 * step, half + j * step]) + (
                corner + grid[i * step, j1 * step])
            noise = wibble * (low + span * uniform[(n + i) * n + j])
            grid[i * step, half + j * step] = np.float32(
                np.float64(total / four) + noise)
            total = (centre + grid[half + i * step, half + j0 * step]) + (
                corner + grid[i1 * step, j * step])
            noise = wibble * (low + span * uniform[(2 * n + i) * n + j])
            grid[half + i * step, j * step] = np.float32(
                np.float64(total / four) + noise)


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


# The filters below replace OpenCV's float filters (sepFilter2D, filter2D,
# distanceTransform), whose results depend on the code path OpenCV picks
# for the CPU (AVX-512, AVX2 with FMA, SSE, scalar, IPP). Each output value
# is computed by the same sequence of float operations whatever the
# vector width: the loops vectorise across pixels, never across the taps
# of one pixel, and numba contracts no multiply-add into an FMA (no
# fastmath), so the pixels are the same on every CPU.


@njit([
    'void(uint8[:, :, ::1], float32[::1], float32[::1], intp[::1], '
    'intp[::1], float32[:, :, ::1])',
    types.void(_U8_RO, types.float32[::1], types.float32[::1],
               types.intp[::1], types.intp[::1], types.float32[:, :, ::1]),
    'void(float32[:, :, ::1], float32[::1], float32[::1], intp[::1], '
    'intp[::1], float32[:, :, ::1])',
    'void(float64[:, :, ::1], float64[::1], float64[::1], intp[::1], '
    'intp[::1], float64[:, :, ::1])'
], **_OPTS)
def sep_filter(img, kx, ky, cols, rows, out):  # pragma: no cover
    """Separable correlation with symmetric kernels, borders by index maps.

    Output pixel ``(i, j)`` is ``sum_u kx[u] * sum_v ky[v] * img[rows[i +
    v], cols[j + u]]`` in the output's dtype: the vertical pass first,
    each pair of taps at the same distance from the centre added before it
    is weighted (``k0 * x0 + k1 * (x-1 + x1) + k2 * (x-2 + x2) ...``, in
    that order), then the horizontal pass likewise. One output row at a
    time, so the working set stays in cache; uint8 input is read as is
    (no float copy of the image).

    Args:
        img (np.ndarray): H×W×C array (uint8, or the output's dtype).
        kx (np.ndarray): Horizontal kernel, odd length ``2 rx + 1``,
            symmetric (only its centre and right half are read).
        ky (np.ndarray): Vertical kernel, ``2 ry + 1``, symmetric.
        cols (np.ndarray): Source column of padded column ``j`` (output
            column ``j - rx``), ``W + 2 rx`` entries: the border mode.
        rows (np.ndarray): Source row of padded row ``i``, ``H + 2 ry``.
        out (np.ndarray): H×W×C float output.
    """
    height, width, channels = img.shape
    rx = kx.shape[0] // 2
    ry = ky.shape[0] // 2
    n = width * channels
    flat_in = img.reshape(height, n)
    flat_out = out.reshape(height, n)
    padded = np.empty((width + 2 * rx) * channels, out.dtype)
    acc = padded[rx * channels:rx * channels + n]
    # Sum of two taps in the output's dtype (exact for uint8 input).
    pair = np.empty(n, out.dtype)
    for i in range(height):
        k = ky[ry]
        centre = flat_in[rows[i + ry]]
        for j in range(n):
            acc[j] = centre[j]
            acc[j] *= k
        for t in range(1, ry + 1):
            k = ky[ry + t]
            up = flat_in[rows[i + ry - t]]
            down = flat_in[rows[i + ry + t]]
            for j in range(n):
                pair[j] = up[j] + down[j]
                acc[j] += k * pair[j]
        for j in range(rx):
            right = rx + width + j
            for c in range(channels):
                padded[j * channels + c] = acc[cols[j] * channels + c]
                padded[right * channels + c] = acc[cols[right] * channels +
                                                   c]
        dst = flat_out[i]
        k = kx[rx]
        for j in range(n):
            dst[j] = k * acc[j]
        for t in range(1, rx + 1):
            k = kx[rx + t]
            left = padded[(rx - t) * channels:(rx - t) * channels + n]
            right_taps = padded[(rx + t) * channels:(rx + t) * channels + n]
            for j in range(n):
                dst[j] += k * (left[j] + right_taps[j])


@njit([
    types.void(a, _U8_RO, types.intp, types.intp, types.float64,
               types.float64, types.uint8[:, :, ::1])
    for a in (types.uint8[:, :, ::1], _U8_RO)
], **_OPTS)
def blend(a, b, top, left, wa, wb, out):  # pragma: no cover
    """``out = uint8(clip(wa * a + wb * b[top:, left:], 0, 255))``.

    In float64, numpy's expression exactly (two products and a sum, each
    rounded, then the truncation of the clipped value), as the reference
    computes frost; ``b`` (read-only) is cropped to ``a``'s size.
    """
    height, width, channels = a.shape
    n = width * channels
    for i in range(height):
        a_row = a[i].reshape(n)
        b_row = b[top + i, left:left + width].reshape(n)
        out_row = out[i].reshape(n)
        for j in range(n):
            v = wa * np.float64(a_row[j]) + wb * np.float64(b_row[j])
            # int32 truncates as uint8 does on [0, 255], and vectorises.
            out_row[j] = np.int32(min(max(v, 0.0), 255.0))


@njit('void(float32[:, :, ::1], float32[:, ::1], intp[::1], intp[::1], '
      'float32[:, :, ::1])', **_OPTS)
def symmetric_filter(img, quarter, cols, rows, out):  # pragma: no cover
    """2-D correlation with a kernel symmetric about both axes.

    ``quarter[a, b]`` is the weight of the four taps at ``(±a, ±b)``.
    Output pixel ``(i, j)`` is the sum over ``a`` (outer, ascending) and
    ``b`` (inner, ascending) of ``quarter[a, b] * (s[j - b] + s[j + b])``
    (``s[j]`` alone for ``b = 0``), where ``s`` is the sum of the rows at
    ``i ± a`` (the row alone for ``a = 0``), added before weighting; zero
    weights are skipped. Rows are processed in blocks of columns that fit
    in the L1 cache.

    Args:
        img (np.ndarray): H×W×C float32 array.
        quarter (np.ndarray): ``(r + 1)×(r + 1)`` weights, float32.
        cols (np.ndarray): Source column of padded column ``j``, ``W + 2
            r`` entries (the border mode).
        rows (np.ndarray): Source row of padded row ``i``, ``H + 2 r``.
        out (np.ndarray): H×W×C float32 output.
    """
    height, width, channels = img.shape
    radius = quarter.shape[0] - 1
    n = width * channels
    pad = radius * channels
    flat_in = img.reshape(height, n)
    flat_out = out.reshape(height, n)
    # Flat source index of each flat position of a padded row.
    src = np.empty(n + 2 * pad, np.intp)
    for j in range(width + 2 * radius):
        for c in range(channels):
            src[j * channels + c] = cols[j] * channels + c
    block = 1024
    pair = np.empty(block + 2 * pad, img.dtype)
    acc = np.empty(block, img.dtype)
    for i in range(height):
        dst = flat_out[i]
        for j0 in range(0, n, block):
            m = min(block, n - j0)
            seg = src[j0:j0 + m + 2 * pad]
            a = acc[:m]
            a[:] = 0
            for dr in range(radius + 1):
                up = flat_in[rows[i + radius - dr]]
                if dr == 0:
                    for j in range(seg.shape[0]):
                        pair[j] = up[seg[j]]
                else:
                    down = flat_in[rows[i + radius + dr]]
                    for j in range(seg.shape[0]):
                        pair[j] = up[seg[j]] + down[seg[j]]
                for dc in range(radius + 1):
                    w = quarter[dr, dc]
                    if w == 0:
                        continue
                    left = pair[pad - dc * channels:pad - dc * channels + m]
                    if dc == 0:
                        for j in range(m):
                            a[j] += w * left[j]
                    else:
                        right = pair[pad + dc * channels:pad +
                                     dc * channels + m]
                        for j in range(m):
                            a[j] += w * (left[j] + right[j])
            dst[j0:j0 + m] = a


@njit('void(uint8[:, ::1], float32[::1], float32[:, ::1])', **_OPTS)
def chamfer_5x5(img, costs, out):  # pragma: no cover
    """``cv2.distanceTransform(img, DIST_L2, 5)``, as IPP computes it.

    The two-pass 5×5 chamfer distance of every non-zero pixel to the
    nearest zero one (outside the image is far), with the costs
    (horizontal/vertical, diagonal, knight's move) added in float32 along
    the scan. OpenCV's own code sums them in 16-bit fixed point instead;
    IPP, which OpenCV calls where it has it, sums in float32 as here: the
    distances of ``cv2.distanceTransform`` with IPP, bit for bit up to 30
    at least (spatter caps them at 20; beyond, the last bit of a long
    path's sum can differ). No zero pixel: everything is 1e20.

    Args:
        img (np.ndarray): H×W uint8 array.
        costs (np.ndarray): float32 ``(1, 1.4, 2.1969)``.
        out (np.ndarray): H×W float32 distances.
    """
    height, width = img.shape
    hv = costs[0]
    diag = costs[1]
    knight = costs[2]
    d = np.full((height + 4, width + 4), np.float32(1e20), np.float32)
    for i in range(height):
        y = i + 2
        for j in range(width):
            x = j + 2
            if img[i, j] == 0:
                d[y, x] = 0
                continue
            t0 = d[y - 2, x - 1] + knight
            t0 = min(t0, d[y - 2, x + 1] + knight)
            t0 = min(t0, d[y - 1, x - 2] + knight)
            t0 = min(t0, d[y - 1, x - 1] + diag)
            t0 = min(t0, d[y - 1, x] + hv)
            t0 = min(t0, d[y - 1, x + 1] + diag)
            t0 = min(t0, d[y - 1, x + 2] + knight)
            t0 = min(t0, d[y, x - 1] + hv)
            d[y, x] = t0
    for i in range(height - 1, -1, -1):
        y = i + 2
        for j in range(width - 1, -1, -1):
            x = j + 2
            t0 = d[y, x]
            if t0 > hv:
                t0 = min(t0, d[y + 2, x + 1] + knight)
                t0 = min(t0, d[y + 2, x - 1] + knight)
                t0 = min(t0, d[y + 1, x + 2] + knight)
                t0 = min(t0, d[y + 1, x + 1] + diag)
                t0 = min(t0, d[y + 1, x] + hv)
                t0 = min(t0, d[y + 1, x - 1] + diag)
                t0 = min(t0, d[y + 1, x - 2] + knight)
                t0 = min(t0, d[y, x + 1] + hv)
                d[y, x] = t0
            out[i, j] = t0


@njit([
    types.void(a, types.int32[:, ::1], types.float64[:, ::1],
               types.intp[:, ::1], types.float64[:, ::1],
               types.uint8[:, :, ::1])
    for a in (types.uint8[:, :, ::1], _U8_RO)
], **_OPTS)
def resize_cubic(img, taps, tap_w, rows, row_w, out):  # pragma: no cover
    """Separable 4-tap resize of a uint8 image, exact in integers.

    Rows first: ``h[r, k] = sum_t tap_w[t, k] * img[r].ravel()[taps[t, k]]``
    for each output value ``k`` of a row (``taps`` index the flattened
    row, channels included), then ``out[i] = sum_t row_w[i, t] *
    h[rows[i, t]]``, shifted right by 22 bits (rounding half up) and
    clipped to [0, 255]. The weights are integers (11 fractional bits
    each) held in float64: every product and sum is an integer below
    2**53, so exact whatever the order or FMA, and the pixels do not
    depend on the CPU. OpenCV's own uint8 bicubic rounds its last step in
    float, IPP's in its own way.
    """
    src_h = img.shape[0]
    height = out.shape[0]
    n = taps.shape[1]
    horizontal = np.empty((src_h, n), np.float64)
    flat = img.reshape(src_h, img.shape[1] * img.shape[2])
    for r in range(src_h):
        src = flat[r]
        dst = horizontal[r]
        for k in range(n):
            dst[k] = tap_w[0, k] * src[taps[0, k]]
        for t in range(1, 4):
            tt, tw = taps[t], tap_w[t]
            for k in range(n):
                dst[k] += tw[k] * src[tt[k]]
    flat_out = out.reshape(height, n)
    scale = 1.0 / (1 << 22)
    for i in range(height):
        dst = flat_out[i]
        h0, h1 = horizontal[rows[i, 0]], horizontal[rows[i, 1]]
        h2, h3 = horizontal[rows[i, 2]], horizontal[rows[i, 3]]
        w0, w1, w2, w3 = row_w[i, 0], row_w[i, 1], row_w[i, 2], row_w[i, 3]
        for k in range(n):
            v = np.floor((w0 * h0[k] + w1 * h1[k] + w2 * h2[k] + w3 * h3[k] +
                          2097152.0) * scale)
            dst[k] = np.int32(min(max(v, 0.0), 255.0))
