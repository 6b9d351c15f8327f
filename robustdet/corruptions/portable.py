# Copyright (c) robustdet contributors. All rights reserved.
"""Elementary functions whose every bit is the same on every CPU.

numpy dispatches ``sin``, ``cos``, ``arctan2``, ``exp`` and ``power`` to
AVX-512, AVX2 or SSE kernels (and the C library to FMA or plain
variants) that round the last bit differently, so a corruption computed
with them can differ by a grey level between two machines (issue 17).
The functions here are written with the four basic operations, ``sqrt``,
``floor`` and exact scaling by powers of two only, each of which IEEE 754
rounds correctly; numba compiles them without fast-math, so LLVM neither
contracts a multiply and an add into an FMA nor reorders a sum, and the
result is one IEEE double whatever the vector width. The tests run each
compiled function against its own Python twin (``.py_func``, CPython's
doubles) bit for bit, and the whole corruption table under held-back
CPU settings.

Accuracy, float64, against numpy on this machine: ``sin`` / ``cos`` within
3 ulp (of 0.5 near a zero) for ``|x| < 2**20 * pi`` (Cody-Waite reduction
by a three-part pi, then one Taylor polynomial on [-pi/2, pi/2]); beyond
that the reduction loses bits (still the same bits everywhere; no
corruption gets there). ``atan2`` within 4 ulp (two argument halvings,
then the series), ``exp`` / ``log`` within 1 ulp, ``power`` (``exp(y log
x)``) within 1e-14 of numpy's relative to it for ``|y ln x| < 90``
(its error grows with ``|y ln x|``). Signed zeros count as +0
and ``atan2(y, x)`` follows numpy elsewhere, including NaN in, NaN out.

Scalar functions, called from the corruption kernels (numba inlines
most of them); :func:`sin_array` and :func:`cos_array` apply them to arrays.
numba's on-disk cache keys a kernel on its own file only: after editing
this module, delete the ``__pycache__`` entries of the modules that call
it (an installed package's files all change together).
"""
import math

import numpy as np
from numba import njit

_OPTS = dict(cache=True, nogil=True, error_model='numpy')
# The scalar functions are inlined by numba itself into their callers:
# LLVM leaves the larger ones (the exponent searches) as calls, which
# also stops the loop around them from vectorising. The searches' steps
# (_halve_towards_one, _scale_step) are left to LLVM, which inlines them:
# numba inlining them too made power_inplace take 17 s to compile instead
# of 3 s, for the same bits at the same speed.
_SCALAR = dict(_OPTS, inline='always')

# pi in three parts of 32, 32 and 53 bits: h * _PI_1 and h * _PI_2 are
# exact for an integer or half-integer |h| < 2**20.
_PI_1 = float.fromhex('0x1.921fb54400000p+1')
_PI_2 = float.fromhex('0x1.0b4611a600000p-33')
_PI_3 = float.fromhex('0x1.3198a2e037073p-68')
_INV_PI = float.fromhex('0x1.45f306dc9c883p-2')
_PI = float.fromhex('0x1.921fb54442d18p+1')
_PIO2 = float.fromhex('0x1.921fb54442d18p+0')
# ln 2 in a 32-bit and a 53-bit part: k * _LN2_HI is exact for |k| <
# 2**21.
_LN2_HI = float.fromhex('0x1.62e42fee00000p-1')
_LN2_LO = float.fromhex('0x1.a39ef35793c76p-33')
_INV_LN2 = float.fromhex('0x1.71547652b82fep+0')
_SQRT_HALF = math.sqrt(0.5)
_INF = math.inf
# Powers of two as constants (numba freezes module floats; ``2.0**s``
# in a kernel would call pow at run time).
_P512, _M512 = 2.0**512, 2.0**-512
_P256, _M256 = 2.0**256, 2.0**-256
_P128, _M128 = 2.0**128, 2.0**-128
_P64, _M64 = 2.0**64, 2.0**-64
_P32, _M32 = 2.0**32, 2.0**-32
_P16, _M16 = 2.0**16, 2.0**-16
_P8, _M8 = 2.0**8, 2.0**-8
_P4, _M4 = 2.0**4, 2.0**-4
_P2, _M2 = 2.0**2, 2.0**-2
_P1, _M1 = 2.0, 0.5
_P100, _M1000 = 2.0**100, 2.0**-1000


# 1 / (2n + 1)! with the sign of (-1)**n, n = 1...11: the Taylor
# coefficients of (sin r - r) / r**3 in r**2.
_S = [(-1.0)**n / math.factorial(2 * n + 1) for n in range(1, 12)]
_S1, _S2, _S3, _S4, _S5, _S6, _S7, _S8, _S9, _S10, _S11 = _S


@njit(**_SCALAR)
def _sin_poly(r):
    """sin r for |r| <= pi / 2: Taylor to r**23 (error < 2e-18).

    Estrin's scheme (pairs, then pairs of pairs) rather than Horner's:
    the chain of dependent operations is 4 deep instead of 10, which
    the out-of-order core needs to keep its vector units busy.
    """
    z = r * r
    z2 = z * z
    z4 = z2 * z2
    z8 = z4 * z4
    a = (_S1 + _S2 * z) + (_S3 + _S4 * z) * z2
    b = (_S5 + _S6 * z) + (_S7 + _S8 * z) * z2
    c = (_S9 + _S10 * z) + _S11 * z2
    p = (a + b * z4) + c * z8
    return r + r * (z * p)


@njit(**_SCALAR)
def _reduced_sine(h, x):
    """``+-sin(x - h pi)`` for the integer or half-integer ``h`` nearest
    below ``x / pi``: ``h`` pi taken off in three parts, one polynomial
    and no branch (a loop over it vectorises), the sign that of
    ``(-1)**floor(h)``."""
    r = ((x - h * _PI_1) - h * _PI_2) - h * _PI_3
    s = _sin_poly(r)
    k = np.floor(h)
    return -s if k - 2.0 * np.floor(k * 0.5) == 1.0 else s


@njit(**_SCALAR)
def sin(x):
    """sin x, float64, the same bits on every CPU.

    ``sin x = (-1)**k sin(x - k pi)`` with ``k`` the integer nearest to
    ``x / pi``.

    Args:
        x (float): The angle in radians.

    Returns:
        float: Its sine.
    """
    return _reduced_sine(np.floor(x * _INV_PI + 0.5), x)


@njit(**_SCALAR)
def cos(x):
    """cos x, float64, the same bits on every CPU.

    ``cos x = -(-1)**k sin(x - (k + 1/2) pi)`` with ``k = floor(x /
    pi)``.

    Args:
        x (float): The angle in radians.

    Returns:
        float: Its cosine.
    """
    return -_reduced_sine(np.floor(x * _INV_PI) + 0.5, x)


@njit(**_SCALAR)
def _atan_unit(t):
    """atan t for 0 <= t <= 1: two halvings ``atan t = 2 atan(t / (1 +
    sqrt(1 + t**2)))`` bring t below tan(pi / 16), then the series to
    t**25 (error < 1e-19)."""
    t = t / (1.0 + math.sqrt(1.0 + t * t))
    t = t / (1.0 + math.sqrt(1.0 + t * t))
    z = t * t
    p = (1.0 / 25.0) * z - 1.0 / 23.0
    p = p * z + 1.0 / 21.0
    p = p * z - 1.0 / 19.0
    p = p * z + 1.0 / 17.0
    p = p * z - 1.0 / 15.0
    p = p * z + 1.0 / 13.0
    p = p * z - 1.0 / 11.0
    p = p * z + 1.0 / 9.0
    p = p * z - 1.0 / 7.0
    p = p * z + 1.0 / 5.0
    p = p * z - 1.0 / 3.0
    return 4.0 * (t + t * (z * p))


@njit(**_SCALAR)
def atan2(y, x):
    """The angle of the point (x, y), in [-pi, pi], as ``np.arctan2``.

    Without branches, so that a loop over it vectorises.

    Args:
        y (float): The ordinate.
        x (float): The abscissa.

    Returns:
        float: The angle in radians (0 at the origin).
    """
    ax = abs(x)
    ay = abs(y)
    big = max(ax, ay)
    # 0 / 1 at the origin; inf / inf gives NaN, replaced below.
    a = _atan_unit(min(ax, ay) / (big if big > 0.0 else 1.0))
    a = _PIO2 - a if ay > ax else a
    a = 0.5 * _PIO2 if (ax == _INF) & (ay == _INF) else a
    a = _PI - a if x < 0.0 else a
    a = -a if y < 0.0 else a
    return math.nan if (x != x) | (y != y) else a


@njit(**_OPTS)
def _halve_towards_one(x, e, s, big, small):
    """One step of an exact binary search for the exponent: ``x`` times
    ``small = 2**-s`` if it is at least ``big = 2**s``, times ``big`` if
    it is below ``small``; ``e`` counts the powers taken off."""
    up = x >= big
    down = x < small
    x = x * small if up else x
    x = x * big if down else x
    e = e + s if up else e
    return x, (e - s if down else e)


@njit(**_SCALAR)
def _split_exponent(x):
    """``(m, e)`` with ``x = m 2**e`` and ``m`` in [sqrt(1/2), sqrt(2))
    for a positive finite ``x``, by exact multiplications and selects
    (what ``frexp`` does with bits, but vectorisable)."""
    tiny = x < _M1000  # subnormals: one more step up
    x = x * _P100 if tiny else x
    e = -100.0 if tiny else 0.0
    x, e = _halve_towards_one(x, e, 512.0, _P512, _M512)
    x, e = _halve_towards_one(x, e, 256.0, _P256, _M256)
    x, e = _halve_towards_one(x, e, 128.0, _P128, _M128)
    x, e = _halve_towards_one(x, e, 64.0, _P64, _M64)
    x, e = _halve_towards_one(x, e, 32.0, _P32, _M32)
    x, e = _halve_towards_one(x, e, 16.0, _P16, _M16)
    x, e = _halve_towards_one(x, e, 8.0, _P8, _M8)
    x, e = _halve_towards_one(x, e, 4.0, _P4, _M4)
    x, e = _halve_towards_one(x, e, 2.0, _P2, _M2)
    x, e = _halve_towards_one(x, e, 1.0, _P1, _M1)
    # x is in [1/2, 2) now.
    low = x < _SQRT_HALF
    high = x >= 2.0 * _SQRT_HALF
    x = x * 2.0 if low else x
    x = x * 0.5 if high else x
    e = e - 1.0 if low else e
    return x, (e + 1.0 if high else e)


@njit(**_OPTS)
def _scale_step(p, k, s, big, small):
    """``p`` times ``big = 2**s`` or ``small = 2**-s`` while ``|k| >= s``,
    exactly."""
    up = k >= s
    down = k <= -s
    p = p * big if up else p
    p = p * small if down else p
    k = k - s if up else k
    return p, (k + s if down else k)


@njit(**_SCALAR)
def _times_power_of_two(p, k):
    """``p * 2**k`` for an integer-valued float ``|k| <= 1100`` (as
    ``ldexp``, but vectorisable): exact unless the result is subnormal,
    where the last steps may round twice (the same on every CPU)."""
    p, k = _scale_step(p, k, 512.0, _P512, _M512)
    p, k = _scale_step(p, k, 512.0, _P512, _M512)
    p, k = _scale_step(p, k, 256.0, _P256, _M256)
    p, k = _scale_step(p, k, 128.0, _P128, _M128)
    p, k = _scale_step(p, k, 64.0, _P64, _M64)
    p, k = _scale_step(p, k, 32.0, _P32, _M32)
    p, k = _scale_step(p, k, 16.0, _P16, _M16)
    p, k = _scale_step(p, k, 8.0, _P8, _M8)
    p, k = _scale_step(p, k, 4.0, _P4, _M4)
    p, k = _scale_step(p, k, 2.0, _P2, _M2)
    p, k = _scale_step(p, k, 1.0, _P1, _M1)
    return p


@njit(**_SCALAR)
def exp(x):
    """e ** x, float64, the same bits on every CPU.

    Args:
        x (float): The exponent.

    Returns:
        float: Its exponential (inf above 709.78, 0 below about -745.1;
        a subnormal result may be an ulp off, the same on every CPU).
    """
    xc = min(max(x, -746.0), 710.0)
    k = np.floor(xc * _INV_LN2 + 0.5)
    r = (xc - k * _LN2_HI) - k * _LN2_LO
    p = r * (1.0 / 6227020800.0) + 1.0 / 479001600.0
    p = p * r + 1.0 / 39916800.0
    p = p * r + 1.0 / 3628800.0
    p = p * r + 1.0 / 362880.0
    p = p * r + 1.0 / 40320.0
    p = p * r + 1.0 / 5040.0
    p = p * r + 1.0 / 720.0
    p = p * r + 1.0 / 120.0
    p = p * r + 1.0 / 24.0
    p = p * r + 1.0 / 6.0
    p = p * r + 0.5
    v = _times_power_of_two(1.0 + (r + r * (r * p)), k)
    v = _INF if x > 709.782712893384 else v
    v = 0.0 if x < -745.2 else v
    return x if x != x else v


@njit(**_SCALAR)
def log(x):
    """Natural logarithm, float64, the same bits on every CPU.

    Args:
        x (float): A non-negative number.

    Returns:
        float: ln x (-inf at 0, NaN below 0, inf at inf).
    """
    finite = (x > 0.0) & (x < _INF)
    m, e = _split_exponent(x if finite else 1.0)
    # ln m = 2 atanh s, |s| <= 0.172: the series to s**23.
    s = (m - 1.0) / (m + 1.0)
    z = s * s
    p = (1.0 / 23.0) * z + 1.0 / 21.0
    p = p * z + 1.0 / 19.0
    p = p * z + 1.0 / 17.0
    p = p * z + 1.0 / 15.0
    p = p * z + 1.0 / 13.0
    p = p * z + 1.0 / 11.0
    p = p * z + 1.0 / 9.0
    p = p * z + 1.0 / 7.0
    p = p * z + 1.0 / 5.0
    p = p * z + 1.0 / 3.0
    v = e * _LN2_HI + (e * _LN2_LO + 2.0 * (s + s * (z * p)))
    v = v if finite else x  # inf and NaN stay
    v = -_INF if x == 0.0 else v
    return math.nan if x < 0.0 else v


@njit(**_SCALAR)
def power(x, y):
    """x ** y for x >= 0, float64, the same bits on every CPU.

    Args:
        x (float): The base, >= 0 (a negative base gives NaN).
        y (float): The exponent.

    Returns:
        float: ``exp(y ln x)``; 1 for y = 0, and 0 or inf at x = 0 and
        x = inf as ``np.power``.
    """
    v = exp(y * log(x))
    v = 1.0 if x == 1.0 else v  # also for y = inf, as np.power
    v = (0.0 if y > 0.0 else _INF) if x == 0.0 else v
    v = (_INF if y > 0.0 else 0.0) if x == _INF else v
    return 1.0 if y == 0.0 else v


@njit(['void(float64[::1], float64)'], **_OPTS)
def power_inplace(x, y):  # pragma: no cover
    """``x[i] = power(x[i], y)`` for every element, in a loop LLVM
    vectorises. The kernels call this one compiled loop rather than
    inlining :func:`power` (its exponent searches take LLVM seconds to
    optimise, once per kernel that inlines them).

    Args:
        x (np.ndarray): float64, C-contiguous; overwritten.
        y (float): The exponent.
    """
    for i in range(x.size):
        x[i] = power(x[i], y)


@njit(['float64[::1](float64[::1], boolean)'], **_OPTS)
def _trig_flat(x, cosine):  # pragma: no cover
    out = np.empty_like(x)
    for i in range(x.size):
        out[i] = cos(x[i]) if cosine else sin(x[i])
    return out


def _trig_array(x: np.ndarray, cosine: bool) -> np.ndarray:
    flat = np.ascontiguousarray(x, dtype=np.float64).ravel()
    return _trig_flat(flat, cosine).reshape(np.shape(x))


def sin_array(x: np.ndarray) -> np.ndarray:
    """:func:`sin` of every element, float64, ``x``'s shape.

    Args:
        x (np.ndarray): Angles in radians (any real dtype).

    Returns:
        np.ndarray: Their sines.
    """
    return _trig_array(x, False)


def cos_array(x: np.ndarray) -> np.ndarray:
    """:func:`cos` of every element, float64, ``x``'s shape.

    Args:
        x (np.ndarray): Angles in radians (any real dtype).

    Returns:
        np.ndarray: Their cosines.
    """
    return _trig_array(x, True)
