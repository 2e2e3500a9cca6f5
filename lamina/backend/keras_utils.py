"""Keras's ``keras.backend`` helpers for scripts and custom layers: unique ids per prefix,
dtype names and tests, the promotion rule, and "is this a symbolic (functional-API)
tensor"."""
from __future__ import annotations

import collections

from ..dtype_lattice import result_type
from ..dtypes import FLOAT_DTYPES, INT_DTYPES, standardize

__all__ = ["get_uid", "reset_uids", "is_float_dtype", "is_int_dtype", "is_keras_tensor",
           "result_type", "standardize_dtype"]

_uids: collections.Counter = collections.Counter()
# Python's types as Keras names them (its non-TensorFlow backends: int is int32).
_PYTHON_TYPES = {bool: "bool", int: "int32", float: "float32", str: "string"}


def get_uid(prefix: str = "") -> int:
    """Return the next number of a counter: 1, 2, 3, ... per prefix.

    Args:
        prefix: The counter's name, such as a layer's base name. Defaults to ``""``.

    Returns:
        An int, 1 on the first call for a prefix; ``clear_session()`` resets the counters.

    Example:

    >>> lamina.backend.get_uid("block"), lamina.backend.get_uid("block")
    (1, 2)
    """
    _uids[prefix] += 1
    return _uids[prefix]


def reset_uids() -> None:
    _uids.clear()


def standardize_dtype(dtype) -> str:
    """Return a dtype's name as Keras spells it.

    Args:
        dtype: A dtype name, numpy dtype or Python type; ``None`` means ``floatx()``.
            Python's ``int`` is int32 and ``float`` float32, as on Keras's non-TensorFlow
            backends.

    Returns:
        The name, a string such as ``"float32"``.

    Example:

    >>> lamina.backend.standardize_dtype(int)
    'int32'
    """
    if dtype in _PYTHON_TYPES:
        return _PYTHON_TYPES[dtype]
    if dtype == "bfloat16" or getattr(dtype, "name", None) == "bfloat16":
        return "bfloat16"
    return standardize(dtype)


def is_float_dtype(dtype) -> bool:
    """Whether ``dtype`` is a floating-point dtype (bfloat16 included).

    Args:
        dtype: a dtype name, numpy dtype or Python type.

    Returns:
        A bool.
    """
    name = standardize_dtype(dtype)
    return name in FLOAT_DTYPES or name == "bfloat16"


def is_int_dtype(dtype) -> bool:
    """Whether ``dtype`` is a signed or unsigned integer dtype.

    Args:
        dtype: a dtype name, numpy dtype or Python type.

    Returns:
        A bool.
    """
    return standardize_dtype(dtype) in INT_DTYPES


def is_keras_tensor(x) -> bool:
    """Tell whether a value is a symbolic tensor of the functional API.

    Args:
        x: Any value.

    Returns:
        ``True`` for ``lamina.Input(...)`` and what layers return on such tensors;
        ``False`` for concrete tensors, arrays and anything else.

    Example:

    >>> lamina.backend.is_keras_tensor(lamina.Input((3,)))
    True
    >>> lamina.backend.is_keras_tensor(lamina.ops.ones((3,)))
    False
    """
    # the backend knows no tensor type: symbolic tensors say what they are
    return bool(getattr(type(x), "is_symbolic_tensor", False))
