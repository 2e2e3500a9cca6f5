"""Limits of numeric dtypes, ml_dtypes' included: ``finfo``, ``iinfo`` and the extremes a
kernel fills with (max pooling's padding, a max reduction's identity).

numpy's ``finfo``/``iinfo`` know numpy's own types only: bfloat16 and the float8 types come
from ``ml_dtypes`` as dtypes of kind ``'V'`` (float8_e5m2 reports kind ``'f'`` but is not a
``numpy.floating``), so ``numpy.iinfo(bfloat16)`` raises "Invalid integer data type 'V'" and
``numpy.finfo`` raises "not inexact". ``ml_dtypes.finfo``/``ml_dtypes.iinfo`` answer for
numpy's types and its own. Several ml_dtypes floats have no infinity (float8_e4m3fn and
the ``fnuz`` types turn -inf into NaN; float4/float6 saturate), so the lowest value of a
dtype is -inf only where the dtype holds -inf.

Cupy dtypes are numpy dtypes, so these serve both backends.
"""
from __future__ import annotations

import functools

import numpy

try:
    import ml_dtypes
except ImportError:                    # pragma: no cover - depends on the environment
    ml_dtypes = None

_BOOL = numpy.dtype(bool)


def _dtype(dtype) -> numpy.dtype:
    """A dtype, a scalar type, a name or an array (its dtype) -> numpy.dtype."""
    if not isinstance(dtype, (numpy.dtype, type, str)):
        dtype = getattr(dtype, "dtype", dtype)
    return numpy.dtype(dtype)


@functools.lru_cache(maxsize=None)
def _kind(dtype: numpy.dtype) -> str:
    """'b', 'i' (signed or unsigned integer), 'f' (any real float) or '' (anything else)."""
    if dtype == _BOOL:
        return "b"
    if dtype.kind in "iu":
        return "i"
    if numpy.issubdtype(dtype, numpy.floating):
        return "f"
    if ml_dtypes is not None:
        for info, kind in ((ml_dtypes.finfo, "f"), (ml_dtypes.iinfo, "i")):
            try:
                info(dtype)
            except (TypeError, ValueError):
                continue
            return kind
    return ""


def is_floating(dtype) -> bool:
    """Whether ``dtype`` is a real float: numpy's, bfloat16 or an ml_dtypes float8/6/4."""
    return _kind(_dtype(dtype)) == "f"


def is_integer(dtype) -> bool:
    """Whether ``dtype`` is an integer (not bool): numpy's or an ml_dtypes int4/int2/..."""
    return _kind(_dtype(dtype)) == "i"


def finfo(dtype):
    """``numpy.finfo`` for numpy's floats, ``ml_dtypes.finfo`` for ml_dtypes' floats."""
    dtype = _dtype(dtype)
    if numpy.issubdtype(dtype, numpy.inexact):
        return numpy.finfo(dtype)
    if is_floating(dtype):
        return ml_dtypes.finfo(dtype)
    raise ValueError(f"finfo: expected a float dtype; received {dtype}")


def iinfo(dtype):
    """``numpy.iinfo`` for numpy's integers, ``ml_dtypes.iinfo`` for ml_dtypes' (int4...)."""
    dtype = _dtype(dtype)
    if dtype.kind in "iu":
        return numpy.iinfo(dtype)
    if is_integer(dtype):
        return ml_dtypes.iinfo(dtype)
    raise ValueError(f"iinfo: expected an integer dtype; received {dtype}")


@functools.lru_cache(maxsize=None)
def _extremes(dtype: numpy.dtype) -> tuple:
    kind = _kind(dtype)
    if kind == "b":
        return False, True
    if kind == "i":
        info = iinfo(dtype)
        return int(info.min), int(info.max)
    if kind == "f":
        info = finfo(dtype)
        infinite = numpy.array([-numpy.inf, numpy.inf], numpy.float32).astype(dtype)
        holds_inf = bool(numpy.isinf(infinite.astype(numpy.float32)).all())
        if holds_inf:
            return -numpy.inf, numpy.inf
        return float(info.min), float(info.max)
    raise ValueError(f"expected a bool, integer or real float dtype; received {dtype}")


def lowest(dtype):
    """The value no element of ``dtype`` is below: -inf where the dtype holds it, else its
    most negative finite value (its smallest, for an unsigned type); False for bool."""
    return _extremes(_dtype(dtype))[0]


def highest(dtype):
    """The value no element of ``dtype`` is above: +inf where the dtype holds it, else its
    largest finite value; True for bool."""
    return _extremes(_dtype(dtype))[1]
