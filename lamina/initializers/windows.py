"""Window functions by name, as ``scipy.signal.get_window(name, length, fftbins=periodic)``
gives them (Keras's STFT initializer calls scipy; Lamina computes them with its ops).

The names are scipy's windows that take no parameter, and ``"tukey"`` with scipy's default
``alpha=0.5``. A symmetric window of ``M`` points is defined on ``n = 0 .. M - 1``; a
periodic one is the symmetric window of ``M + 1`` points less its last.
"""
from __future__ import annotations

import math

from .. import ops

# scipy's cosine-sum coefficients: w[n] = sum_k (-1)^k a_k cos(2 pi k n / (M - 1)).
_COSINE_SUMS = {
    "hann": (0.5, 0.5), "hanning": (0.5, 0.5), "hamming": (0.54, 0.46),
    "blackman": (0.42, 0.5, 0.08),
    "blackmanharris": (0.35875, 0.48829, 0.14128, 0.01168),
    "nuttall": (0.3635819, 0.4891775, 0.1365995, 0.0106411),
    "flattop": (0.21557895, 0.41663158, 0.277263158, 0.083578947, 0.006947368),
}
_ONES = ("boxcar", "rect", "rectangular", "ones")
TUKEY_ALPHA = 0.5          # scipy.signal.windows.tukey's default
WINDOWS = tuple(sorted({*_COSINE_SUMS, *_ONES, "bartlett", "triang", "cosine", "bohman",
                        "barthann", "parzen", "tukey"}))


def window_values(name: str, length: int, periodic: bool):
    """The window ``name`` of ``length`` points, float64 (``periodic``: for spectral
    analysis, scipy's ``fftbins=True``)."""
    if name not in WINDOWS:
        raise ValueError(f"STFT: argument 'window' must be None, an array of frame_length "
                         f"values or one of {list(WINDOWS)}; received {name!r}")
    if length == 1:
        return ops.ones((1,), "float64")
    points = length + 1 if periodic else length           # M of the symmetric window
    n = ops.arange(length, dtype="float64")
    return _symmetric(name, n, points)


def _symmetric(name: str, n, m: int):
    """Points ``n`` (float64) of the symmetric window of ``m`` points."""
    span = m - 1
    if name in _COSINE_SUMS:
        total = None
        for k, a in enumerate(_COSINE_SUMS[name]):
            term = ops.multiply(ops.cos(ops.multiply(n, 2 * math.pi * k / span)), a * (-1) ** k)
            total = term if total is None else ops.add(total, term)
        return total
    if name == "bartlett":
        return ops.subtract(1.0, ops.abs(ops.subtract(ops.multiply(n, 2.0 / span), 1.0)))
    if name == "triang":        # like bartlett, without zeros at the ends
        width = m if m % 2 == 0 else m + 1
        return ops.subtract(1.0, ops.divide(ops.abs(ops.subtract(ops.multiply(n, 2.0),
                                                                 float(span))), width))
    if name == "cosine":
        return ops.sin(ops.multiply(ops.add(n, 0.5), math.pi / m))
    if name == "barthann":
        fac = ops.abs(ops.subtract(ops.divide(n, float(span)), 0.5))
        return ops.add(ops.subtract(0.62, ops.multiply(fac, 0.48)),
                       ops.multiply(ops.cos(ops.multiply(fac, 2 * math.pi)), 0.38))
    if name == "bohman":
        fac = ops.abs(ops.subtract(ops.multiply(n, 2.0 / span), 1.0))
        w = ops.add(ops.multiply(ops.subtract(1.0, fac), ops.cos(ops.multiply(fac, math.pi))),
                    ops.divide(ops.sin(ops.multiply(fac, math.pi)), math.pi))
        return ops.where(ops.greater_equal(fac, 1.0), ops.zeros_like(w), w)   # exact ends
    if name == "parzen":
        r = ops.divide(ops.abs(ops.subtract(n, span / 2.0)), m / 2.0)
        inner = ops.add(ops.subtract(1.0, ops.multiply(ops.square(r), 6.0)),
                        ops.multiply(ops.power(r, 3.0), 6.0))
        outer = ops.multiply(ops.power(ops.subtract(1.0, r), 3.0), 2.0)
        return ops.where(ops.less_equal(ops.abs(ops.subtract(n, span / 2.0)), span / 4.0),
                         inner, outer)
    if name == "tukey":
        return _tukey(n, m, TUKEY_ALPHA)
    return ops.ones(tuple(n.shape), "float64")


def _tukey(n, m: int, alpha: float):
    """scipy's tukey: cosine tapers over the first and last ``width + 1`` points, with
    ``width = floor(alpha (m - 1) / 2)``, ones between."""
    span = m - 1
    width = int(math.floor(alpha * span / 2.0))
    rise = ops.multiply(ops.add(ops.cos(ops.multiply(
        ops.add(ops.divide(ops.multiply(n, 2.0), alpha * span), -1.0), math.pi)), 1.0), 0.5)
    fall = ops.multiply(ops.add(ops.cos(ops.multiply(
        ops.add(ops.divide(ops.multiply(n, 2.0), alpha * span), 1.0 - 2.0 / alpha),
        math.pi)), 1.0), 0.5)
    ones = ops.ones(tuple(n.shape), "float64")
    w = ops.where(ops.less_equal(n, float(width)), rise, ones)
    return ops.where(ops.greater_equal(n, float(m - width - 1)), fall, w)
