"""Window functions: bartlett, blackman, hamming, hanning, kaiser (Keras 3's ``keras.ops``
names, numpy's formulas). A window is a constant: ``x`` points, computed in float64 Python
arithmetic and returned as a float32 tensor, as Keras returns them."""
from __future__ import annotations

import math

from .core import convert_to_tensor

__all__ = ["bartlett", "blackman", "hamming", "hanning", "kaiser"]


def _length(op: str, x) -> int:
    if hasattr(x, "numpy") and getattr(x, "shape", None) == ():
        x = x.numpy().item()
    if isinstance(x, float) and x.is_integer():
        x = int(x)
    if not isinstance(x, int) or isinstance(x, bool):
        raise TypeError(f"{op}: argument 'x' must be an int (the number of points); received "
                        f"{x!r}")
    return x


def _window(op: str, x, value) -> object:
    m = _length(op, x)
    if m < 1:
        points = []
    elif m == 1:
        points = [1.0]
    else:
        points = [value(n, m) for n in range(m)]
    return convert_to_tensor(points, dtype="float32")


def _cosines(*coefficients):
    def value(n, m):
        return sum(c * math.cos(2 * math.pi * k * n / (m - 1))
                   for k, c in enumerate(coefficients))
    return value


def bartlett(x):
    """The triangular Bartlett window of ``x`` points.

    Args:
        x: The number of points M of the window (an int).

    Returns:
        A 1-D float tensor of length M.
    """
    return _window("bartlett", x, lambda n, m: 2 * n / (m - 1) if n <= (m - 1) / 2
                   else 2 - 2 * n / (m - 1))


def blackman(x):
    """The Blackman window: ``0.42 - 0.5 cos(2 pi n/(M-1)) + 0.08 cos(4 pi n/(M-1))``.

    Args:
        x: The number of points M of the window (an int).

    Returns:
        A 1-D float tensor of length M.
    """
    return _window("blackman", x, _cosines(0.42, -0.5, 0.08))


def hamming(x):
    """The Hamming window: ``0.54 - 0.46 cos(2 pi n/(M-1))``.

    Args:
        x: The number of points M of the window (an int).

    Returns:
        A 1-D float tensor of length M.
    """
    return _window("hamming", x, _cosines(0.54, -0.46))


def hanning(x):
    """The Hann window: ``0.5 - 0.5 cos(2 pi n/(M-1))``.

    Args:
        x: The number of points M of the window (an int).

    Returns:
        A 1-D float tensor of length M.
    """
    return _window("hanning", x, _cosines(0.5, -0.5))


def _i0(z: float) -> float:
    """The modified Bessel function I0 by its power series (converges for every z)."""
    total, term, k = 1.0, 1.0, 0
    while True:
        k += 1
        term *= (z / 2) ** 2 / (k * k)
        total += term
        if term < total * 1e-17:
            return total


def kaiser(x, beta):
    """The Kaiser window: ``I0(beta sqrt(1 - (2n/(M-1) - 1)^2)) / I0(beta)``.

    Args:
        x: The number of points M of the window (an int).
        beta: The shape parameter (a number).

    Returns:
        A 1-D float tensor of length M.
    """
    if hasattr(beta, "numpy"):
        beta = beta.numpy().item()
    beta = float(beta)
    return _window("kaiser", x, lambda n, m: _i0(
        beta * math.sqrt(max(0.0, 1 - (2 * n / (m - 1) - 1) ** 2))) / _i0(beta))
