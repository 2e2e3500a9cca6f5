"""Reinterpreting and converting values: saturate_cast and view (Keras 3's ``keras.ops``
names).

``view`` reads the same bytes as another dtype (a primitive, no gradient); the last axis
grows or shrinks by the ratio of the item sizes. (Keras's view_as_complex/view_as_real
need complex dtypes, which Lamina does not have: they are excluded from the API, see the
README.)
"""
from __future__ import annotations

import math

from ..dtypes import FLOAT_MAX, INT_DTYPES, is_float, itemsize, standardize
from ..errors import ShapeError, describe_shape
from .compare import isnan
from .core import as_tensor, cast, unchanged, zeros_like
from .where_clip import clip, where
from ..core.op import Op, Spec, register_op

__all__ = ["saturate_cast", "view"]

# A float64 source is never clipped for its own range (inf: nothing is above it).
_FLOAT_MAX = {**FLOAT_MAX, "float64": math.inf}


def _int_range(dtype: str) -> tuple[int, int]:
    bits = int(dtype.lstrip("uint"))
    return (0, 2 ** bits - 1) if dtype.startswith("u") else (-2 ** (bits - 1),
                                                             2 ** (bits - 1) - 1)


def _below(limit: int) -> float:
    """The largest float64 not above the integer ``limit`` (2**63 - 1 is not a float64)."""
    value = float(limit)
    return math.nextafter(value, 0.0) if int(value) > limit else value


def saturate_cast(x, dtype):
    """``x`` cast to ``dtype`` with values outside its range clamped to the range's ends
    (not wrapped as a plain cast would); NaN becomes 0 in an integer dtype.

    Args:
        x: Input tensor (or anything ``convert_to_tensor`` accepts).
        dtype: The target dtype.

    Returns:
        A tensor of ``x``'s shape and dtype ``dtype``.
    """
    x = as_tensor("saturate_cast", x)
    dtype = standardize(dtype)
    if dtype == "bool" or x.dtype == "bool":
        return cast(x, dtype)
    if dtype in INT_DTYPES:
        low, high = _int_range(dtype)
        if is_float(x.dtype):
            x = cast(x, "float64")
            x = clip(where(isnan(x), zeros_like(x), x), float(low), _below(high))
        else:
            src_low, src_high = _int_range(x.dtype)
            if low > src_low or high < src_high:
                x = clip(x, max(low, src_low), min(high, src_high))
        return cast(x, dtype)
    limit = _FLOAT_MAX[dtype]
    if is_float(x.dtype) and limit < _FLOAT_MAX[x.dtype]:
        if x.dtype == "bfloat16":
            # float16's 65504 rounds up to 65536 in bfloat16, which float16 cannot hold:
            # clip in float32, which holds every bfloat16 value and the limit exactly
            x = cast(x, "float32")
        x = clip(x, -limit, limit)
    return cast(x, dtype)


@register_op
class View(Op):
    name = "view"
    differentiable = False

    def output_spec(self, x, dtype):
        old, new = itemsize(x.dtype), itemsize(dtype)
        if old == new:
            return Spec(tuple(x.shape), dtype)
        if not x.shape:
            raise ShapeError(f"view: a scalar of {x.dtype} cannot be viewed as {dtype} (the "
                             f"item sizes differ)")
        last = x.shape[-1]
        if last is not None and (last * old) % new:
            raise ShapeError(f"view: the last axis of 'x' ({last} x {old} bytes) must be a "
                             f"multiple of {new} bytes to view it as {dtype}; received shape "
                             f"{describe_shape(x.shape)}")
        size = None if last is None else last * old // new
        return Spec(tuple(x.shape[:-1]) + (size,), dtype)

    def forward(self, backend, x, out=None, dtype=None):
        return backend.bitcast(x, dtype)


def view(x, dtype=None):
    """The bytes of ``x`` read as ``dtype`` (``x`` itself when None or the same dtype).

    Args:
        x: Input tensor (or anything ``convert_to_tensor`` accepts).
        dtype: The dtype to read the bytes as; None keeps ``x``'s.

    Returns:
        A tensor (its last axis rescaled when the item sizes differ).
    """
    x = as_tensor("view", x)
    if dtype is None or standardize(dtype) == x.dtype:
        return unchanged(x)
    return View(x, dtype=standardize(dtype))
