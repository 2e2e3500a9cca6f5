"""Products of two tensors by numpy's rules: inner, vdot, kron, cross (Keras 3's
``keras.ops`` names); compositions of matmul/tensordot, slicing and broadcasting, so
gradients come free."""
from __future__ import annotations

from ..errors import ShapeError, describe_shape
from .core import as_tensors
from .linalg import tensordot
from .math import multiply, subtract
from ..core.op import normalize_axis
from .reshaping import moveaxis, reshape, stack
from .slicing import getitem

__all__ = ["inner", "vdot", "kron", "cross"]


def inner(x1, x2):
    """The sum product over the last axes of ``x1`` and ``x2`` (a plain product when
    either is a scalar).

    Args:
        x1: First input tensor.
        x2: Second input tensor; broadcasts with ``x1``.

    Returns:
        A tensor: the free axes of ``x1`` then of ``x2``.
    """
    a, b = as_tensors("inner", x1, x2)
    if a.ndim == 0 or b.ndim == 0:
        return multiply(a, b)
    if a.shape[-1] is not None and b.shape[-1] is not None and a.shape[-1] != b.shape[-1]:
        raise ShapeError(f"inner: the last axes of 'x1' and 'x2' must have one size; received "
                         f"shapes {describe_shape(a.shape)} and {describe_shape(b.shape)}")
    return tensordot(a, b, axes=([a.ndim - 1], [b.ndim - 1]))


def vdot(x1, x2):
    """The dot product of the flattened ``x1`` and ``x2`` (a scalar).

    Args:
        x1: First input tensor.
        x2: Second input tensor; broadcasts with ``x1``.

    Returns:
        A scalar tensor.
    """
    a, b = as_tensors("vdot", x1, x2)
    a, b = reshape(a, (-1,)), reshape(b, (-1,))
    if a.shape[0] is not None and b.shape[0] is not None and a.shape[0] != b.shape[0]:
        raise ShapeError(f"vdot: 'x1' and 'x2' must have the same number of elements; "
                         f"received {a.shape[0]} and {b.shape[0]}")
    return tensordot(a, b, axes=1)


def kron(x1, x2):
    """The Kronecker product: blocks ``x1[i, j, ...] * x2`` laid out like ``x1``.

    Args:
        x1: First input tensor.
        x2: Second input tensor; broadcasts with ``x1``.

    Returns:
        A tensor whose sizes are the products of the inputs' sizes.
    """
    a, b = as_tensors("kron", x1, x2)
    rank = max(a.ndim, b.ndim)
    sa = (1,) * (rank - a.ndim) + tuple(a.shape)
    sb = (1,) * (rank - b.ndim) + tuple(b.shape)
    if None in sa + sb:
        raise ShapeError(f"kron: the inputs must have known sizes; received shapes "
                         f"{describe_shape(a.shape)} and {describe_shape(b.shape)}")
    a = reshape(a, tuple(d for s in sa for d in (s, 1)))
    b = reshape(b, tuple(d for s in sb for d in (1, s)))
    return reshape(multiply(a, b), tuple(p * q for p, q in zip(sa, sb)))


def _component(x, i: int):
    return getitem(x, (Ellipsis, i))


def cross(x1, x2, axisa=-1, axisb=-1, axisc=-1, axis=None):
    """The cross product of 2- or 3-vectors along ``axisa`` of ``x1`` and ``axisb`` of
    ``x2`` (both set by ``axis`` when given), broadcast over the other axes; the vectors of
    the result lie along ``axisc``. Two 2-vectors give the scalar z component.

    Args:
        x1: The first vectors (2 or 3 along ``axisa``).
        x2: The second vectors (2 or 3 along ``axisb``).
        axisa: The vector axis of ``x1``. Defaults to -1.
        axisb: The vector axis of ``x2``. Defaults to -1.
        axisc: The vector axis of the result. Defaults to -1.
        axis: If given, overrides ``axisa``, ``axisb`` and ``axisc``.

    Returns:
        The cross products.
    """
    a, b = as_tensors("cross", x1, x2)
    if axis is not None:
        axisa = axisb = axisc = axis
    a = moveaxis(a, normalize_axis("cross", axisa, a.ndim, "axisa"), -1)
    b = moveaxis(b, normalize_axis("cross", axisb, b.ndim, "axisb"), -1)
    na, nb = a.shape[-1], b.shape[-1]
    if na not in (2, 3) or nb not in (2, 3):
        raise ShapeError(f"cross: the vector axes must have size 2 or 3; received sizes {na} "
                         f"and {nb} (shapes {describe_shape(a.shape)} and "
                         f"{describe_shape(b.shape)})")
    a0, a1 = _component(a, 0), _component(a, 1)
    b0, b1 = _component(b, 0), _component(b, 1)
    z = subtract(multiply(a0, b1), multiply(a1, b0))
    if na == 2 and nb == 2:
        return z
    if na == 3 and nb == 3:
        a2, b2 = _component(a, 2), _component(b, 2)
        x = subtract(multiply(a1, b2), multiply(a2, b1))
        y = subtract(multiply(a2, b0), multiply(a0, b2))
    elif na == 3:                                   # b's third component is zero
        a2 = _component(a, 2)
        x, y = multiply(-1, multiply(a2, b1)), multiply(a2, b0)
    else:                                           # a's third component is zero
        b2 = _component(b, 2)
        x, y = multiply(a1, b2), multiply(-1, multiply(a0, b2))
    result = stack([x, y, z], axis=-1)
    return moveaxis(result, -1, normalize_axis("cross", axisc, result.ndim, "axisc"))
