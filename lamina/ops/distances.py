"""Pairwise distances (Keras 3's ``keras.ops.cdist``): a composition of broadcasting,
square, sum and sqrt, so it differentiates wherever the distance is non-zero (at zero the
gradient of sqrt is infinite, as in Keras)."""
from __future__ import annotations

from ..dtypes import floatx, is_float
from ..errors import ShapeError, describe_shape
from .core import as_tensors, cast
from .math import sqrt, square, subtract
from ..core.op import broadcast_shapes
from .reduction import sum as reduce_sum
from .reshaping import expand_dims

__all__ = ["cdist"]


def cdist(x, y):
    """Euclidean distances between the rows of ``x`` (..., m, d) and ``y`` (..., n, d):
    shape (..., m, n), the batch axes broadcast.

    Args:
        x: Points (..., m, d).
        y: Points (..., n, d).

    Returns:
        The distances, shape (..., m, n).
    """
    a, b = as_tensors("cdist", x, y)
    if a.ndim < 2 or b.ndim < 2:
        raise ShapeError(f"cdist: 'x' and 'y' must have rank >= 2 (..., rows, features); "
                         f"received shapes {describe_shape(a.shape)} and "
                         f"{describe_shape(b.shape)}")
    if a.shape[-1] is not None and b.shape[-1] is not None and a.shape[-1] != b.shape[-1]:
        raise ShapeError(f"cdist: the last axes of 'x' and 'y' must have one size; received "
                         f"shapes {describe_shape(a.shape)} and {describe_shape(b.shape)}")
    broadcast_shapes("cdist", a.shape[:-2], b.shape[:-2], args=("x", "y"))
    a = a if is_float(a.dtype) else cast(a, floatx())
    b = b if is_float(b.dtype) else cast(b, floatx())
    diff = subtract(expand_dims(a, -2), expand_dims(b, -3))
    return sqrt(reduce_sum(square(diff), axis=-1))
