"""``isclose``: elementwise closeness with numpy's tolerances (kept apart from
``compare.py`` because it is written with ``math.py``'s ops, which compare with it)."""
from __future__ import annotations

from ..dtypes import is_float
from .compare import equal, isfinite, isnan, less_equal, logical_and, logical_or
from .core import as_tensors, cast
from .math import abs, add, multiply, subtract
from .where_clip import where

__all__ = ["isclose"]


def isclose(x1, x2, rtol: float = 1e-5, atol: float = 1e-8, equal_nan: bool = False):
    """``|x1 - x2| <= atol + rtol * |x2|`` elementwise, as numpy's ``isclose``.

    Equal infinities are close, an infinity is close to nothing else, and NaNs are close
    to each other only with ``equal_nan``.

    Args:
        x1: First input tensor.
        x2: Second input tensor; broadcasts with ``x1``.
        rtol: The relative tolerance. Defaults to 1e-5.
        atol: The absolute tolerance. Defaults to 1e-8.
        equal_nan: Whether NaNs compare equal. Defaults to False.

    Returns:
        A bool tensor of the broadcast shape of ``x1`` and ``x2``.
    """
    a, b = as_tensors("isclose", x1, x2)
    if not is_float(a.dtype):
        # numpy compares integers with the same float tolerances; float64 holds int32 exactly
        a, b = cast(a, "float64"), cast(b, "float64")
    finite = logical_and(isfinite(a), isfinite(b))
    # the tolerance test on finite pairs only (inf - inf would be nan, with a warning)
    a_finite, b_finite = where(finite, a, 0), where(finite, b, 0)
    tolerance = add(multiply(abs(b_finite), rtol), atol)
    within = less_equal(abs(subtract(a_finite, b_finite)), tolerance)
    close = logical_or(logical_and(within, finite), equal(a, b))   # equal infinities
    if equal_nan:
        close = logical_or(close, logical_and(isnan(a), isnan(b)))
    return close
