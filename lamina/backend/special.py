"""Special functions written against an array module ``xp`` (numpy or cupy), without scipy.

``erf`` follows Sun Microsystems' fdlibm ``s_erf.c`` (the algorithm behind most C libraries'
erf): rational approximations on four intervals of ``|x|``, with coefficients given to full
double precision. Its error is below one unit in the last place of a float64 result, so
float32 and float16 inputs are computed in float64 and rounded once.

    |x| < 0.84375          erf(x) = x + x * P(x^2) / Q(x^2)
    0.84375 <= |x| < 1.25  erf(x) = erx + P(s) / Q(s),  s = |x| - 1
    1.25 <= |x| < 6        erf(x) = 1 - exp(-z^2 - 0.5625) exp((z - x)(z + x) + R(s) / S(s)) / x
                           with s = 1 / x^2 and z = x rounded down to a multiple of 1/16,
                           so that z^2 is exact and exp(-x^2) loses nothing to rounding
                           (R/S has one set of coefficients below 1/0.35, one above)
    |x| >= 6               erf(x) = 1 (erfc(6) ~ 2e-17 is below float64's half-ulp at 1)
"""
from __future__ import annotations

from .dtype_limits import is_floating

# Value of erf(1) rounded so that erf(x) - erx is small and exact near x = 1.
_ERX = 8.45062911510467529297e-01

# |x| < 0.84375
_PP = (1.28379167095512558561e-01, -3.25042107247001499370e-01,
       -2.84817495755985104766e-02, -5.77027029648944159157e-03,
       -2.37630166566501626084e-05)
_QQ = (1.0, 3.97917223959155352819e-01, 6.50222499887672944485e-02,
       5.08130628187576562776e-03, 1.32494738004321644526e-04,
       -3.96022827877536812320e-06)

# 0.84375 <= |x| < 1.25
_PA = (-2.36211856075265944077e-03, 4.14856118683748331666e-01,
       -3.72207876035701323847e-01, 3.18346619901161753674e-01,
       -1.10894694282396677476e-01, 3.54783043256182359371e-02,
       -2.16637559486879084300e-03)
_QA = (1.0, 1.06420880400844228286e-01, 5.40397917702171048937e-01,
       7.18286544141962662868e-02, 1.26171219808761642112e-01,
       1.36370839120290507362e-02, 1.19844998467991074170e-02)

# 1.25 <= |x| < 1/0.35
_RA = (-9.86494403484714822705e-03, -6.93858572707181764372e-01,
       -1.05586262253232909814e+01, -6.23753324503260060396e+01,
       -1.62396669462573470355e+02, -1.84605092906711035994e+02,
       -8.12874355063065934246e+01, -9.81432934416914548592e+00)
_SA = (1.0, 1.96512716674392571292e+01, 1.37657754143519042600e+02,
       4.34565877475229228821e+02, 6.45387271733267880336e+02,
       4.29008140027567833386e+02, 1.08635005541779435134e+02,
       6.57024977031928170135e+00, -6.04244152148580987438e-02)

# 1/0.35 <= |x| < 6
_RB = (-9.86494292470009928597e-03, -7.99283237680523006574e-01,
       -1.77579549177547519889e+01, -1.60636384855821916062e+02,
       -6.37566443368389627722e+02, -1.02509513161107724954e+03,
       -4.83519191608651397019e+02)
_SB = (1.0, 3.03380607434824582924e+01, 3.25792512996573918826e+02,
       1.53672958608443695994e+03, 3.19985821950859553908e+03,
       2.55305040643316442583e+03, 4.74528541206955367215e+02,
       -2.24409524465858183362e+01)


def _polyval(coefficients, t):
    """``c0 + c1 t + c2 t^2 + ...`` by Horner's rule."""
    result = coefficients[-1] * t + coefficients[-2]
    for c in coefficients[-3::-1]:
        result *= t
        result += c
    return result


def _erf_small(a):
    z = a * a
    return a + a * (_polyval(_PP, z) / _polyval(_QQ, z))


def _erf_near_one(a):
    s = a - 1.0
    return _ERX + _polyval(_PA, s) / _polyval(_QA, s)


def _erf_tail(xp, a, r_coefficients, s_coefficients):
    s = 1.0 / (a * a)
    ratio = _polyval(r_coefficients, s) / _polyval(s_coefficients, s)
    z = xp.floor(a * 16.0) / 16.0
    erfc = xp.exp(-z * z - 0.5625) * xp.exp((z - a) * (z + a) + ratio) / a
    return 1.0 - erfc


def erf(xp, x, out=None):
    """The error function ``2/sqrt(pi) * integral_0^x exp(-t^2) dt``, elementwise.

    Float inputs keep their dtype (computed in float64, rounded once); other inputs give
    float64. NaN gives NaN, +-inf gives +-1. When ``out`` is given the result is written
    into it and returned.
    """
    x = xp.asarray(x)
    float_input = is_floating(x.dtype)          # bfloat16 (kind 'V') too
    work = x.astype("float64").reshape(-1)
    a = xp.abs(work)
    # |x| >= 6 (and inf) saturates at 1 and NaN stays NaN; the regions below overwrite the rest
    result = xp.minimum(a, 1.0)
    regions = (
        (a < 0.84375, _erf_small),
        ((a >= 0.84375) & (a < 1.25), _erf_near_one),
        ((a >= 1.25) & (a < 1 / 0.35), lambda t: _erf_tail(xp, t, _RA, _SA)),
        ((a >= 1 / 0.35) & (a < 6.0), lambda t: _erf_tail(xp, t, _RB, _SB)),
    )
    for mask, evaluate in regions:
        # integer gather/scatter: several times faster than boolean indexing on numpy
        index = xp.flatnonzero(mask)
        if index.size:
            result.put(index, evaluate(a.take(index)))
    xp.copysign(result, work, out=result)         # erf is odd
    result = result.reshape(x.shape)
    if float_input and x.dtype != result.dtype:
        result = result.astype(x.dtype)
    if out is None:
        return result
    out[...] = result
    return out
