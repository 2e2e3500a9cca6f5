"""Dtype names, without importing an array library (promotion: ``dtype_lattice.py``).

Lamina names dtypes by strings ("float32", "int64", ...), as Keras 3 does. Arrays of either
backend report the same names (``array.dtype.name``).
"""
from __future__ import annotations

import importlib.util

from .errors import DTypeError

FLOAT_DTYPES = ("float16", "bfloat16", "float32", "float64")
INT_DTYPES = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64")
ALL_DTYPES = ("bool",) + INT_DTYPES + FLOAT_DTYPES      # the real dtypes
# Complex numbers (Keras's ``view_as_complex``, ``polar``): elementwise arithmetic, the
# complex-number views and ``abs``; float-only ops refuse them (ops/complex_numbers.py).
COMPLEX_DTYPES = ("complex64", "complex128")

# Promotion between these names is Keras's lattice, in ``dtype_lattice.py``.
_KNOWN = frozenset(ALL_DTYPES + COMPLEX_DTYPES)
_ALIASES = {"float": "float32", "int": "int32", "double": "float64", "half": "float16",
            "bool_": "bool", "boolean": "bool", "complex": "complex64"}

# The largest finite value of each float dtype (numpy's ``finfo(dtype).max``; bfloat16's
# is ml_dtypes.finfo's, (2 - 2**-7) * 2**127, which numpy.finfo cannot give), kept here as
# numbers so that ops need no array library (nor ml_dtypes) to know them.
FLOAT_MAX = {"float16": 65504.0, "bfloat16": 3.3895313892515355e38,
             "float32": 3.4028234663852886e38, "float64": 1.7976931348623157e308}

_floatx = "float32"


def floatx() -> str:
    """The default float dtype ("float32")."""
    return _floatx


def set_floatx(value: str) -> None:
    """Set the default float dtype, used by layers, weights and ops with no dtype given.

    The same as ``lamina.config.set_floatx``.

    Args:
        value: A float dtype: ``"float16"``, ``"bfloat16"``, ``"float32"`` or
            ``"float64"``.

    Raises:
        DTypeError: If ``value`` is not a float dtype.

    Example:

    >>> lamina.config.set_floatx("float64")
    >>> lamina.config.floatx()
    'float64'
    >>> lamina.config.set_floatx("float32")     # back to the default
    """
    global _floatx
    dtype = standardize(value)
    if not is_float(dtype):
        raise DTypeError(f"set_floatx: expected a float dtype {FLOAT_DTYPES}; received {dtype!r}")
    _floatx = dtype


def standardize(dtype) -> str:
    """Any dtype spelling (string, numpy/cupy dtype or type) -> Lamina's name."""
    if dtype is None:
        return floatx()
    if isinstance(dtype, str):
        name = dtype
    else:
        name = getattr(dtype, "name", None) or getattr(dtype, "__name__", None) or str(dtype)
        if name == "float":
            name = "float64"        # Python's float type
        elif name == "int":
            name = "int64"          # Python's int type; numpy agrees
    name = _ALIASES.get(name, name)
    if name == "bfloat16":
        _require_bfloat16()
    if name not in _KNOWN:
        raise DTypeError(f"unknown dtype {dtype!r}; expected one of "
                         f"{ALL_DTYPES + COMPLEX_DTYPES}")
    return name


def _require_bfloat16() -> None:
    """bfloat16 arrays come from the optional ``ml_dtypes`` package."""
    global _bfloat16_available
    if _bfloat16_available is None:
        _bfloat16_available = importlib.util.find_spec("ml_dtypes") is not None
    if not _bfloat16_available:
        raise DTypeError("dtype 'bfloat16' needs the optional package ml_dtypes; install it "
                         "with `pip install lamina[bfloat16]` (or `pip install ml_dtypes`)")


_bfloat16_available: bool | None = None


def is_float(dtype: str) -> bool:
    return dtype in FLOAT_DTYPES


def is_int(dtype: str) -> bool:
    return dtype in INT_DTYPES


def is_complex(dtype: str) -> bool:
    return dtype in COMPLEX_DTYPES


def real_dtype(dtype: str) -> str:
    """The dtype of the parts of a complex dtype (complex64 -> float32); others as given."""
    return {"complex64": "float32", "complex128": "float64"}.get(dtype, dtype)


def itemsize(dtype: str) -> int:
    if dtype == "bool":
        return 1
    return int("".join(ch for ch in dtype if ch.isdigit())) // 8
