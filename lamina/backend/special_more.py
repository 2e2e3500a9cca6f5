"""More special functions against an array module ``xp`` (numpy or cupy), without scipy:
``erfc``, ``erfinv`` and the modified Bessel functions ``i0`` and ``i1``.

* ``erfc`` reuses :mod:`lamina.backend.special`'s fdlibm tails, where ``1 - erf(x)`` would
  lose every digit (x > 1.25 computes erfc itself; below that ``1 - erf`` is exact enough).
* ``erfinv`` starts from Giles' single-precision approximation ("Approximating the erfinv
  function", GPU Computing Gems, 2011) and polishes it with two Newton steps on ``erf``,
  whose derivative is known exactly: full float64 precision away from +-1.
* ``i0``/``i1`` sum their power series ``sum_k (x/2)^(2k+n) / (k! (k+n)!)``: every term is
  positive, so the sum is accurate to round-off; it takes about ``|x| + 40`` terms.

Float inputs are computed in float64 and rounded once to their dtype.
"""
from __future__ import annotations

import math

from .dtype_limits import is_floating
from .special import _RA, _RB, _SA, _SB, _polyval, erf

_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)

# Giles: w < 5 and w >= 5 branches, w = -log((1 - x)(1 + x))
_GILES_CENTRAL = (1.50140941, 0.246640727, -0.00417768164, -0.00125372503, 0.00021858087,
                  -4.39150654e-06, -3.5233877e-06, 3.43273939e-07, 2.81022636e-08)
_GILES_TAIL = (2.83297682, 1.00167406, 0.00943887047, -0.0076224613, 0.00573950773,
               -0.00367342844, 0.00134934322, 0.000100950558, -0.000200214257)


def _finish(xp, x, result, out):
    if is_floating(x.dtype) and x.dtype != result.dtype:     # bfloat16 too
        result = result.astype(x.dtype)
    if out is None:
        return result
    out[...] = result
    return out


def erfc(xp, x, out=None):
    """``1 - erf(x)``, accurate in its tail (down to about 1e-308 near x = 26.5)."""
    x = xp.asarray(x)
    work = x.astype("float64")
    result = 1.0 - erf(xp, work)
    tail = xp.flatnonzero((work.reshape(-1) >= 1.25) & (work.reshape(-1) < 28.0))
    if tail.size:
        a = work.reshape(-1).take(tail)
        near = xp.flatnonzero(a < 1 / 0.35)            # fdlibm's two tails
        far = xp.flatnonzero(a >= 1 / 0.35)
        values = xp.empty_like(a)
        if near.size:
            values.put(near, _erfc_tail(xp, a.take(near), _RA, _SA))
        if far.size:
            values.put(far, _erfc_tail(xp, a.take(far), _RB, _SB))
        result.reshape(-1).put(tail, values)
    result = xp.where(work >= 28.0, 0.0, result)
    return _finish(xp, x, result, out)


def _erfc_tail(xp, a, r_coefficients, s_coefficients):
    """fdlibm's erfc for 1.25 <= a < 28 (no ``1 - ...`` anywhere)."""
    s = 1.0 / (a * a)
    ratio = _polyval(r_coefficients, s) / _polyval(s_coefficients, s)
    z = xp.floor(a * 16.0) / 16.0
    return xp.exp(-z * z - 0.5625) * xp.exp((z - a) * (z + a) + ratio) / a


def erfinv(xp, x, out=None):
    """The inverse of ``erf`` on ``[-1, 1]``: +-inf at +-1, NaN outside."""
    x = xp.asarray(x)
    work = x.astype("float64")
    inside = xp.abs(work) < 1.0
    t = xp.where(inside, work, 0.0)
    w = -xp.log((1.0 - t) * (1.0 + t))
    central = _polyval(_GILES_CENTRAL, w - 2.5)
    tail = _polyval(_GILES_TAIL, xp.sqrt(xp.maximum(w, 5.0)) - 3.0)
    y = xp.where(w < 5.0, central, tail) * t
    for _ in range(2):
        y = y - (erf(xp, y) - t) / (_TWO_OVER_SQRT_PI * xp.exp(-y * y))
    y = xp.where(inside, y, xp.where(xp.abs(work) == 1.0, xp.copysign(xp.inf, work), xp.nan))
    return _finish(xp, x, y, out)


def bessel_i(xp, order: int, x, out=None):
    """The modified Bessel function of the first kind of order 0 or 1."""
    x = xp.asarray(x)
    work = x.astype("float64")
    quarter = (work * 0.5) ** 2
    term = xp.ones_like(work) if order == 0 else work * 0.5
    total = term.copy()
    finite = work[xp.isfinite(work)]
    terms = int(xp.max(xp.abs(finite))) + 40 if finite.size else 1
    for k in range(1, min(terms, 800)):
        term = term * quarter / (k * (k + order))
        total = total + term
    big = xp.abs(work) > 713.0                   # beyond float64's range, as numpy's i0
    if order == 0:
        total = xp.where(big | xp.isinf(work), xp.inf, total)
    else:
        total = xp.where(big | xp.isinf(work), xp.copysign(xp.inf, work), total)
    return _finish(xp, x, total, out)
