"""Diagonals and triangles: diag, diagflat, diagonal, trace, tril, triu, vander (Keras 3's
``keras.ops`` names, numpy's rules), compositions of gathers, masks and reductions, so
gradients come free."""
from __future__ import annotations

from ..errors import ShapeError, describe_shape
from .compare import equal, less_equal
from .core import arange, as_tensor, cast, full, zeros_like
from .indexing import take
from .math import add, multiply, power
from .where_clip import where
from ..core.op import normalize_axis
from .reduction import sum as reduce_sum
from .reshaping import concatenate, moveaxis, reshape

__all__ = ["diag", "diagflat", "diagonal", "trace", "tril", "triu", "vander"]


def _int(op: str, arg: str, value) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError(f"{op}: argument '{arg}' must be an int; received {value!r}")
    return value


def diagonal(x, offset=0, axis1=0, axis2=1):
    """The diagonal ``offset`` of the matrices in the plane (``axis1``, ``axis2``): those two
    axes are removed and the diagonal becomes the last axis (numpy's rule).

    Args:
        x: Input tensor (or anything ``convert_to_tensor`` accepts).
        offset: The diagonal: 0 the main one, > 0 above, < 0 below.
        axis1: The first axis of the plane. Defaults to 0.
        axis2: The second axis of the plane. Defaults to 1.

    Returns:
        The diagonals, on the last axis.
    """
    x = as_tensor("diagonal", x)
    if x.ndim < 2:
        raise ShapeError(f"diagonal: argument 'x' must have at least 2 axes; received shape "
                         f"{describe_shape(x.shape)}")
    offset = _int("diagonal", "offset", offset)
    a1 = normalize_axis("diagonal", axis1, x.ndim, "axis1")
    a2 = normalize_axis("diagonal", axis2, x.ndim, "axis2")
    if a1 == a2:
        raise ValueError(f"diagonal: arguments 'axis1' and 'axis2' must be different axes; "
                         f"received {axis1} and {axis2}")
    x = moveaxis(x, (a1, a2), (-2, -1))
    n, m = x.shape[-2:]
    if n is None or m is None:
        raise ShapeError(f"diagonal: the matrix axes must have known sizes; received shape "
                         f"{describe_shape(x.shape)}")
    length = max(0, min(n, m - offset) if offset >= 0 else min(n + offset, m))
    start = offset if offset >= 0 else -offset * m
    lead = tuple(-1 if d is None else d for d in x.shape[:-2])
    flat = reshape(x, lead + (n * m,))
    positions = add(multiply(arange(length), m + 1), start)
    return take(flat, positions, axis=-1)


def trace(x, offset=0, axis1=0, axis2=1):
    """The sum along ``diagonal(x, offset, axis1, axis2)``; booleans count as int32.

    Args:
        x: Input tensor (or anything ``convert_to_tensor`` accepts).
        offset: The diagonal: 0 the main one, > 0 above, < 0 below.
        axis1: The first axis of the plane. Defaults to 0.
        axis2: The second axis of the plane. Defaults to 1.

    Returns:
        ``x``'s shape without ``axis1`` and ``axis2``.
    """
    x = as_tensor("trace", x)
    if x.dtype == "bool":
        x = cast(x, "int32")
    return reduce_sum(diagonal(x, offset, axis1, axis2), axis=-1)


def _on_diagonal(v, k: int):
    """The square matrix with 1-D ``v`` on diagonal ``k``, zeros elsewhere."""
    n = v.shape[0]
    size = n + abs(k)
    if k:
        v = concatenate([v, full((abs(k),), 0, v.dtype)], 0)
    rows = reshape(add(arange(size), k), (size, 1))
    cols = reshape(arange(size), (1, size))
    values = reshape(v, (size, 1) if k >= 0 else (1, size))
    return where(equal(cols, rows), values, zeros_like(values))


def diag(x, k=0):
    """Of a 1-D ``x``: the square matrix with ``x`` on diagonal ``k``. Of a 2-D ``x``: its
    diagonal ``k``.

    Args:
        x: A 1-D or 2-D tensor.
        k: The diagonal: 0 the main one, > 0 above, < 0 below.

    Returns:
        A 2-D tensor (from 1-D ``x``) or a 1-D one (from 2-D ``x``).
    """
    x = as_tensor("diag", x)
    k = _int("diag", "k", k)
    if x.ndim == 1:
        return _on_diagonal(x, k)
    if x.ndim == 2:
        return diagonal(x, k)
    raise ShapeError(f"diag: argument 'x' must be 1-D or 2-D; received shape "
                     f"{describe_shape(x.shape)}")


def diagflat(x, k=0):
    """The square matrix with the flattened ``x`` on diagonal ``k``.

    Args:
        x: Input tensor (or anything ``convert_to_tensor`` accepts).
        k: The diagonal: 0 the main one, > 0 above, < 0 below.

    Returns:
        A square 2-D tensor.
    """
    x = as_tensor("diagflat", x)
    return _on_diagonal(reshape(x, (-1,)), _int("diagflat", "k", k))


def _triangle(op: str, x, k, lower: bool):
    x = as_tensor(op, x)
    k = _int(op, "k", k)
    if x.ndim < 2:
        raise ShapeError(f"{op}: argument 'x' must have at least 2 axes; received shape "
                         f"{describe_shape(x.shape)}")
    n, m = x.shape[-2:]
    if n is None or m is None:
        raise ShapeError(f"{op}: the matrix axes must have known sizes; received shape "
                         f"{describe_shape(x.shape)}")
    rows = reshape(arange(n), (n, 1))
    cols = reshape(arange(m), (1, m))
    # lower: j - i <= k; upper: j - i >= k, i.e. i + k <= j
    keep = less_equal(cols, add(rows, k)) if lower else less_equal(add(rows, k), cols)
    return where(keep, x, zeros_like(x))


def tril(x, k=0):
    """``x`` with the elements above diagonal ``k`` of its last two axes set to zero.

    Args:
        x: Input tensor (or anything ``convert_to_tensor`` accepts).
        k: The diagonal: 0 the main one, > 0 above, < 0 below.

    Returns:
        A tensor of ``x``'s shape.
    """
    return _triangle("tril", x, k, lower=True)


def triu(x, k=0):
    """``x`` with the elements below diagonal ``k`` of its last two axes set to zero.

    Args:
        x: Input tensor (or anything ``convert_to_tensor`` accepts).
        k: The diagonal: 0 the main one, > 0 above, < 0 below.

    Returns:
        A tensor of ``x``'s shape.
    """
    return _triangle("triu", x, k, lower=False)


def vander(x, N=None, increasing=False):
    """The Vandermonde matrix of 1-D ``x``: columns ``x ** (N-1), ..., x ** 0`` (reversed
    with ``increasing=True``); ``N`` defaults to ``len(x)``.

    Args:
        x: A 1-D tensor.
        N: The number of columns; None means ``len(x)``.
        increasing: Whether the powers increase from left to right. Defaults to False.

    Returns:
        A (len(x), N) tensor.
    """
    x = as_tensor("vander", x)
    if x.ndim != 1:
        raise ShapeError(f"vander: argument 'x' must be 1-D; received shape "
                         f"{describe_shape(x.shape)}")
    n = x.shape[0] if N is None else N
    if not isinstance(n, int) or isinstance(n, bool) or n < 0:
        raise ValueError(f"vander: argument 'N' must be a non-negative int; received {N!r}")
    exponents = arange(n) if increasing else arange(n - 1, -1, -1)
    return power(reshape(x, (-1, 1)), reshape(cast(exponents, x.dtype), (1, n)))
