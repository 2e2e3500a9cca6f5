"""Gated and piecewise activations that are compositions: ``glu``, ``sparse_sigmoid``,
``sparsemax`` and ``threshold`` (Keras 3's ``keras.ops`` / ``keras.ops.nn`` and
``keras.activations`` names; :mod:`lamina.activations` exports these same functions).
Integer and bool inputs give ``floatx()`` (``threshold`` keeps ``x``'s dtype).
"""
from __future__ import annotations

from ..errors import ShapeError, describe_shape
from .activations import relu
from .reshaping import expand_dims, moveaxis, split
from .compare import greater, greater_equal
from .core import as_tensor, cast
from .math import add, divide, multiply, sigmoid, subtract
from .where_clip import clip, where
from .reduction import sum as reduce_sum
from .trig import to_float

__all__ = ["glu", "sparse_sigmoid", "sparsemax", "threshold"]


def glu(x, axis=-1):
    """Gated linear unit.

    ``glu(x) = a * sigmoid(b)``, where ``a`` and ``b`` are the two halves of ``x`` along
    ``axis``.

    Args:
        x: The input tensor (or array).
        axis: The axis to split in two halves; it must have even size. Defaults to -1.

    Returns:
        A tensor of the shape of ``x`` with ``axis`` halved.

    Raises:
        ShapeError: If ``axis`` does not exist or has odd size.

    Example:

    >>> np.round(lamina.activations.glu(np.array([1.0, 2.0, 0.0, 1.0])).numpy(), 4)
    array([0.5   , 1.4621])
    """
    x = to_float("glu", x)
    size = x.shape[axis] if -x.ndim <= axis < x.ndim else None
    if size is None or size % 2:
        raise ShapeError(f"glu: axis {axis} of 'x' must exist and have even size (glu "
                         f"splits it in two halves); received shape {describe_shape(x.shape)}")
    a, b = split(x, 2, axis=axis)
    return multiply(a, sigmoid(b))


def sparse_sigmoid(x):
    """Sparse sigmoid activation: a sigmoid that is exactly 0 or 1 outside [-1, 1].

    0 for ``x <= -1``, ``(x + 1) / 2`` between, 1 for ``x >= 1``.

    Args:
        x: The input tensor (or array).

    Returns:
        A tensor of the shape of ``x``.

    Example:

    >>> x = np.array([-2.0, -0.5, 0.5, 2.0])
    >>> np.round(lamina.activations.sparse_sigmoid(x).numpy(), 4)
    array([0.  , 0.25, 0.75, 1.  ])
    """
    return multiply(add(clip(to_float("sparse_sigmoid", x), -1, 1), 1), 0.5)


def threshold(x, threshold, default_value):
    """Threshold activation: ``x`` where ``x > threshold``, else ``default_value``.

    Args:
        x: The input tensor (or array).
        threshold: The value ``x`` must exceed to be kept.
        default_value: The value that replaces the others.

    Returns:
        A tensor of the shape of ``x``.

    Example:

    >>> x = np.array([-2.0, 0.5, 2.0])
    >>> np.round(lamina.activations.threshold(x, 0.0, -1.0).numpy(), 4)
    array([-1. ,  0.5,  2. ])
    """
    x = as_tensor("threshold", x)
    return where(greater(x, threshold), x, default_value)


def sparsemax(x, axis=-1):
    """Sparsemax activation: like softmax, but with exact zeros for small entries.

    The Euclidean projection of ``x`` onto the probability simplex along ``axis``
    (Martins & Astudillo, 2016). Sort-free: it takes ``n * n`` memory per vector of length
    ``n``.

    Args:
        x: The input tensor (or array).
        axis: The axis to project along. Defaults to -1.

    Returns:
        A tensor of the shape of ``x``.

    Example:

    >>> np.round(lamina.activations.sparsemax(np.array([1.0, 1.4])).numpy(), 4)
    array([0.3, 0.7])
    """
    x = to_float("sparsemax", x)
    z = moveaxis(x, axis, -1)
    zi, zj = expand_dims(z, -1), expand_dims(z, -2)
    at_least = cast(greater_equal(zj, zi), z.dtype)     # [..., i, j]: z_j >= z_i
    count = reduce_sum(at_least, axis=-1)
    total = reduce_sum(multiply(at_least, zj), axis=-1)
    support = cast(greater(add(multiply(count, z), 1), total), z.dtype)
    size = reduce_sum(support, axis=-1, keepdims=True)
    tau = divide(subtract(reduce_sum(multiply(support, z), axis=-1, keepdims=True), 1), size)
    return moveaxis(relu(subtract(z, tau)), -1, axis)
