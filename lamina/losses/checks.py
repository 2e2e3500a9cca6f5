"""Argument checks shared by the loss functions and classes, and the preparation of
``y_true``/``y_pred``: both become float tensors of ``y_pred``'s dtype, on its backend, with
ranks matched by Keras's squeeze-or-expand rule. Every error names the loss and the argument.
"""
from __future__ import annotations

import math
import numbers

from .. import ops
from ..core.tensor import TensorBase
from ..dtypes import floatx, is_float
from ..errors import ShapeError, describe_shape
from .reduction import convert_like, squeeze_or_expand_to_same_rank


def check_bool(owner: str, arg: str, value) -> bool:
    if not isinstance(value, bool) and type(value).__name__ != "bool_":
        raise TypeError(f"{owner}: argument '{arg}' must be True or False; received {value!r} "
                        f"of type {type(value).__name__}")
    return bool(value)


def check_number(owner: str, arg: str, value, low: float | None = None,
                 high: float | None = None) -> float:
    """A finite real number in ``[low, high]``, as a Python float."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{owner}: argument '{arg}' must be a number; received {value!r} of "
                        f"type {type(value).__name__}")
    value = float(value)
    if not math.isfinite(value) or (low is not None and value < low) or \
            (high is not None and value > high):
        bounds = f"in [{low:g}, {high:g}]" if high is not None else \
            f">= {low:g}" if low is not None else "finite"
        raise ValueError(f"{owner}: argument '{arg}' must be a number {bounds}; received "
                         f"{value}")
    return value


def check_axis(owner: str, axis) -> int:
    if isinstance(axis, bool) or not isinstance(axis, numbers.Integral):
        raise TypeError(f"{owner}: argument 'axis' must be an int; received {axis!r} of type "
                        f"{type(axis).__name__}")
    return int(axis)


def check_optional_int(owner: str, arg: str, value) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{owner}: argument '{arg}' must be an int or None; received "
                        f"{value!r} of type {type(value).__name__}")
    return int(value)


def as_prediction(y_pred):
    """``y_pred`` as a float tensor (integers become ``floatx()``)."""
    y_pred = y_pred if isinstance(y_pred, TensorBase) else ops.convert_to_tensor(y_pred)
    return y_pred if is_float(y_pred.dtype) else ops.cast(y_pred, floatx())


def check_same_shape(owner: str, y_true, y_pred, hint: str = "") -> None:
    """Equal shapes (an unknown size matches anything), else a ShapeError with both."""
    a, b = tuple(y_true.shape), tuple(y_pred.shape)
    if len(a) != len(b) or any(p is not None and q is not None and p != q
                               for p, q in zip(a, b)):
        raise ShapeError(f"{owner}: y_true and y_pred must have the same shape; received "
                         f"y_true.shape={describe_shape(a)} and y_pred.shape="
                         f"{describe_shape(b)}{hint}")


def prepare(owner: str, y_true, y_pred, hint: str = ""):
    """Float tensors of one dtype and shape, ranks matched as Keras does."""
    y_pred = as_prediction(y_pred)
    y_true = convert_like(y_true, y_pred)
    y_true, y_pred = squeeze_or_expand_to_same_rank(y_true, y_pred)
    check_same_shape(owner, y_true, y_pred, hint)
    return y_true, y_pred


def class_axis(owner: str, axis: int, y_pred) -> int:
    """``axis`` as a non-negative index into ``y_pred``'s shape."""
    rank = len(y_pred.shape)
    if not -rank <= axis < rank:
        raise ShapeError(f"{owner}: argument 'axis'={axis} is out of range for y_pred of shape "
                         f"{describe_shape(y_pred.shape)}")
    return axis % rank
