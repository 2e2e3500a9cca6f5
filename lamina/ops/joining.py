"""Joining and splitting by numpy's conventions: append, hstack, vstack, dstack,
array_split, hsplit, vsplit, dsplit (Keras 3's ``keras.ops`` names).

All are compositions of ``concatenate``, ``split`` and ``reshape``, so gradients come free.
"""
from __future__ import annotations

from ..errors import ShapeError, describe_shape
from .core import as_tensor
from ..core.op import normalize_axis
from .reshaping import concatenate, reshape, split

__all__ = ["append", "hstack", "vstack", "dstack", "array_split", "hsplit", "vsplit",
           "dsplit"]


def append(x1, x2, axis=None):
    """``x2`` joined after ``x1`` along ``axis``; both flattened first when ``axis`` is None.

    Args:
        x1: The first tensor.
        x2: The tensor appended after it.
        axis: The axis to join along; None flattens both first.

    Returns:
        The joined tensor.
    """
    x1, x2 = as_tensor("append", x1), as_tensor("append", x2)
    if axis is None:
        return concatenate([reshape(x1, (-1,)), reshape(x2, (-1,))], axis=0)
    return concatenate([x1, x2], axis=axis)


def _at_least(op: str, xs, rank: int) -> list:
    """numpy's atleast_2d/atleast_3d: () -> (1, 1[, 1]); (n,) -> (1, n[, 1]);
    (m, n) -> (m, n, 1) for rank 3."""
    out = []
    for x in xs:
        x = as_tensor(op, x)
        shape = tuple(x.shape)
        if len(shape) < rank:
            if len(shape) == 0:
                shape = (1,) * rank
            elif len(shape) == 1:
                shape = (1,) + shape + (1,) * (rank - 2)
            else:
                shape = shape + (1,)
            x = reshape(x, tuple(-1 if d is None else d for d in shape))
        out.append(x)
    return out


def hstack(xs):
    """Tensors joined column-wise: along axis 1, or axis 0 for 1-D tensors.

    Args:
        xs: A list or tuple of tensors.

    Returns:
        The joined tensor.
    """
    xs = [as_tensor("hstack", x) for x in xs]
    if not xs:
        raise ValueError("hstack: argument 'xs' must hold at least one tensor; received none")
    if xs[0].ndim <= 1:
        return concatenate([reshape(x, (-1,)) for x in xs], axis=0)
    return concatenate(xs, axis=1)


def vstack(xs):
    """Tensors joined row-wise (axis 0), 1-D ones taken as rows.

    Args:
        xs: A list or tuple of tensors.

    Returns:
        The joined tensor.
    """
    xs = _at_least("vstack", xs, 2)
    if not xs:
        raise ValueError("vstack: argument 'xs' must hold at least one tensor; received none")
    return concatenate(xs, axis=0)


def dstack(xs):
    """Tensors joined along the third axis (depth), after numpy's ``atleast_3d``.

    Args:
        xs: A list or tuple of tensors.

    Returns:
        The joined tensor, at least 3-D.
    """
    xs = _at_least("dstack", xs, 3)
    if not xs:
        raise ValueError("dstack: argument 'xs' must hold at least one tensor; received none")
    return concatenate(xs, axis=2)


def array_split(x, indices_or_sections, axis=0) -> list:
    """``x`` cut into ``indices_or_sections`` pieces along ``axis``, which need not divide
    the size: the first ``size % sections`` pieces get one element more (numpy's rule).

    Args:
        x: Input tensor (or anything ``convert_to_tensor`` accepts).
        indices_or_sections: The number of pieces (an int) or a sequence of split points.
        axis: The axis to cut along. Defaults to 0.

    Returns:
        A list of tensors.
    """
    if not isinstance(indices_or_sections, int) or isinstance(indices_or_sections, bool):
        raise TypeError(f"array_split: argument 'indices_or_sections' must be an int; "
                        f"received {indices_or_sections!r}")
    if indices_or_sections <= 0:
        raise ValueError(f"array_split: argument 'indices_or_sections' must be a positive "
                         f"int; received {indices_or_sections}")
    if not isinstance(axis, int) or isinstance(axis, bool):
        raise TypeError(f"array_split: argument 'axis' must be an int; received {axis!r}")
    x = as_tensor("array_split", x)
    axis = normalize_axis("array_split", axis, x.ndim)
    size = x.shape[axis]
    if size is None:
        raise ShapeError(f"array_split: axis {axis} has an unknown size; received shape "
                         f"{describe_shape(x.shape)}")
    base, extra = divmod(size, indices_or_sections)
    points, at = [], 0
    for i in range(indices_or_sections - 1):
        at += base + (1 if i < extra else 0)
        points.append(at)
    return split(x, points, axis=axis) if points else [x]


def _split_on(op: str, x, indices_or_sections, axis: int, min_rank: int) -> list:
    x = as_tensor(op, x)
    if x.ndim < min_rank:
        raise ShapeError(f"{op}: argument 'x' must have at least {min_rank} axes; received "
                         f"shape {describe_shape(x.shape)}")
    return split(x, indices_or_sections, axis=axis)


def hsplit(x, indices_or_sections) -> list:
    """``split`` along axis 1 (axis 0 for 1-D ``x``).

    Args:
        x: Input tensor (or anything ``convert_to_tensor`` accepts).
        indices_or_sections: An int N (N equal pieces; it must divide the axis) or a
            sequence of split points.

    Returns:
        A list of tensors.
    """
    x = as_tensor("hsplit", x)
    return _split_on("hsplit", x, indices_or_sections, 1 if x.ndim > 1 else 0, 1)


def vsplit(x, indices_or_sections) -> list:
    """``split`` along axis 0 of an ``x`` with at least two axes.

    Args:
        x: Input tensor (or anything ``convert_to_tensor`` accepts).
        indices_or_sections: An int N (N equal pieces; it must divide the axis) or a
            sequence of split points.

    Returns:
        A list of tensors.
    """
    return _split_on("vsplit", x, indices_or_sections, 0, 2)


def dsplit(x, indices_or_sections) -> list:
    """``split`` along axis 2 of an ``x`` with at least three axes.

    Args:
        x: Input tensor (or anything ``convert_to_tensor`` accepts).
        indices_or_sections: An int N (N equal pieces; it must divide the axis) or a
            sequence of split points.

    Returns:
        A list of tensors.
    """
    return _split_on("dsplit", x, indices_or_sections, 2, 3)
