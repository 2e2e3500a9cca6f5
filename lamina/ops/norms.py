"""``norm``: numpy's ``linalg.norm`` for vectors and matrices, composed from reductions
(and singular values for the spectral and nuclear norms), so its gradient comes free."""
from __future__ import annotations

from ..errors import ShapeError
from .reshaping import moveaxis, reshape
from .core import as_tensor, cast
from .decompositions import svd
from .math import abs as absolute, multiply, power, sqrt
from .compare import not_equal
from ..core.op import normalize_axes
from .reduction import max as reduce_max, min as reduce_min, sum as reduce_sum
from .reshaping import expand_dims

__all__ = ["norm"]

_INF = float("inf")


def _vector_norm(x, ord, axis, keepdims):
    if ord is None or ord == 2:
        return sqrt(reduce_sum(multiply(x, x), axis=axis, keepdims=keepdims))
    if ord == _INF:
        return reduce_max(absolute(x), axis=axis, keepdims=keepdims)
    if ord == -_INF:
        return reduce_min(absolute(x), axis=axis, keepdims=keepdims)
    if ord == 0:
        return reduce_sum(cast(not_equal(x, 0), x.dtype), axis=axis, keepdims=keepdims)
    if ord == 1:
        return reduce_sum(absolute(x), axis=axis, keepdims=keepdims)
    if isinstance(ord, str):
        raise ValueError(f"norm: argument 'ord' {ord!r} is not a vector norm (use None, inf, "
                         f"-inf, 0 or a number)")
    total = reduce_sum(power(absolute(x), float(ord)), axis=axis, keepdims=keepdims)
    return power(total, 1.0 / float(ord))


def _matrix_norm(x, ord, axes, keepdims):
    row, col = axes
    if ord in (None, "fro"):
        return sqrt(reduce_sum(multiply(x, x), axis=axes, keepdims=keepdims))
    if ord in (1, -1, _INF, -_INF):
        # 1: the largest column sum (sum over rows); inf: the largest row sum
        summed, other = (row, col) if ord in (1, -1) else (col, row)
        sums = reduce_sum(absolute(x), axis=summed, keepdims=True)
        pick = reduce_max if ord > 0 else reduce_min
        result = pick(sums, axis=other, keepdims=True)
        return result if keepdims else reshape(
            result, tuple(d for i, d in enumerate(x.shape) if i not in axes))
    if ord in (2, -2, "nuc"):
        moved = moveaxis(x, (row, col), (-2, -1))
        s = svd(moved, compute_uv=False)
        result = {2: reduce_max, -2: reduce_min, "nuc": reduce_sum}[ord](s, axis=-1)
        if keepdims:
            for ax in sorted(axes):
                result = _expand(result, ax)
        return result
    raise ValueError(f"norm: argument 'ord' {ord!r} is not a matrix norm (use None, 'fro', "
                     f"'nuc', inf, -inf, 1, -1, 2 or -2)")


def _expand(x, axis):
    return expand_dims(x, axis)


def norm(x, ord=None, axis=None, keepdims=False):
    """numpy's ``linalg.norm``: a vector norm over one axis, a matrix norm over two, and
    for ``axis=None`` the 2-norm of the flattened ``x`` (or, with ``ord``, the vector or
    matrix norm of a 1-D or 2-D ``x``). Integer inputs give float32.

    Args:
        x: Input tensor (or anything ``convert_to_tensor`` accepts).
        ord: The order of the norm: for a vector norm a number, ``inf`` or ``-inf``; for a
            matrix norm also "fro" or "nuc". None means the 2-norm (Frobenius for matrices).
        axis: An int (a vector norm), a pair of ints (a matrix norm) or None (see above).
        keepdims: If True, the reduced axes stay with size 1. Defaults to False.

    Returns:
        The norm, a float tensor of ``x``'s shape without the reduced axes.

    Example:

    >>> lamina.ops.norm(np.array([3.0, 4.0])).numpy()
    array(5.)
    """
    x = as_tensor("norm", x)
    if not x.dtype.startswith("float"):
        x = cast(x, "float32")
    if axis is None:
        if ord is None:
            return _vector_norm(reshape(x, (-1,)) if not keepdims else x, None,
                                None, keepdims)
        if x.ndim not in (1, 2):
            raise ShapeError(f"norm: with 'ord' and axis=None, argument 'x' must be 1-D or "
                             f"2-D; received rank {x.ndim}")
        axis = tuple(range(x.ndim))
    axes = normalize_axes("norm", axis, x.ndim)
    original = (axis,) if isinstance(axis, int) else tuple(axis)
    if len(axes) == 1:
        return _vector_norm(x, ord, axes[0], keepdims)
    if len(axes) == 2:
        order = tuple(a % x.ndim for a in original)
        return _matrix_norm(x, ord, order, keepdims)
    raise ShapeError(f"norm: argument 'axis' must name one or two axes; received {axis!r}")
