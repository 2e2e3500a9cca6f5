"""Keras 3's type promotion rule (``keras.backend.result_type``): the least upper bound of
the dtypes on JAX's promotion lattice, where Python's ``int`` and ``float`` are *weak*
types that defer to the other operand (``int32`` with ``float`` is float32; ``float16``
with ``int`` stays float16), and an all-weak result takes ``floatx()``'s precision.
Python's ``complex`` is not weak: it is complex64, as in Keras.

Keras on JAX (JAX without x64) then turns every 64-bit result into its 32-bit kind.
Lamina does the same where no input is 64-bit (``uint32`` with ``int16`` climbs the
lattice to int64, and Keras gives int32), but computes in float64 and int64 when an input
is 64-bit, so those results stay 64-bit (as in Keras's TensorFlow backend):
``float64`` with ``int32`` is float64 here, float32 in Keras on JAX.
"""
from __future__ import annotations

import functools

from .dtypes import floatx, standardize
from .errors import DTypeError

# Each type -> the types immediately above it ("i*"/"f*" are the weak int and float).
_LATTICE = {
    "bool": ["i*"],
    "uint8": ["int16", "uint16"], "uint16": ["int32", "uint32"],
    "uint32": ["int64", "uint64"], "uint64": ["f*"],
    "i*": ["uint8", "int8", "complex64"],
    "int8": ["int16"], "int16": ["int32"], "int32": ["int64"], "int64": ["f*"],
    "f*": ["bfloat16", "float16"],
    "bfloat16": ["float32"], "float16": ["float32"], "float32": ["float64", "complex64"],
    "float64": ["complex128"], "complex64": ["complex128"], "complex128": [],
}
_TO_32 = {"int64": "int32", "uint64": "uint32", "float64": "float32",
          "complex128": "complex64"}


def _upper_bounds():
    bounds = {}
    for node in _LATTICE:
        seen, todo = {node}, [node]
        while todo:
            for above in _LATTICE[todo.pop()]:
                if above not in seen:
                    seen.add(above)
                    todo.append(above)
        bounds[node] = seen
    return bounds


_BOUNDS = _upper_bounds()


@functools.lru_cache(maxsize=512)
def _least_upper_bound(nodes: frozenset) -> str:
    common = set.intersection(*(_BOUNDS[n] for n in nodes))
    least = (common & nodes) or {c for c in common if common <= _BOUNDS[c]}
    if len(least) != 1:
        raise DTypeError(f"result_type: the dtypes {sorted(nodes)} have no implicit "
                         "promotion; cast the inputs explicitly")
    return least.pop()


def _node(dtype):
    """(lattice node, weak?) for a dtype spelling or Python's int/float/bool type."""
    if dtype is int:
        return "i*", True
    if dtype is float:
        return "f*", True
    if dtype is bool:
        return "bool", False
    try:
        name = dtype if isinstance(dtype, str) and dtype in _LATTICE else standardize(dtype)
    except DTypeError:
        name = None
    if name not in _LATTICE:
        raise DTypeError(f"result_type: expected dtypes among {sorted(_LATTICE)} or Python's "
                         f"int/float; received {dtype!r}")
    return name, False


def result_type(*dtypes) -> str:
    """Keras's ``keras.backend.result_type``: the dtype an op on these dtypes returns; no
    dtypes (or None) means ``floatx()``. Python's ``int``/``float`` are weak types."""
    if not dtypes:
        return floatx()
    default = floatx()
    return _result_type(tuple(default if d is None else d for d in dtypes), default)


@functools.lru_cache(maxsize=1024)
def _result_type(dtypes: tuple, default: str) -> str:
    nodes = [_node(d) for d in dtypes]
    strong = {n for n, weak in nodes if not weak}
    if len(nodes) > 1 and len(strong) == 1 and len({n for n, _ in nodes}) == 1:
        return strong.pop()
    out = _least_upper_bound(frozenset(n for n, _ in nodes))
    if out in _TO_32 and not strong & _TO_32.keys():
        return _TO_32[out]                    # promotion alone never widens to 64 bits
    if out in ("i*", "f*"):                   # only weak types: floatx()'s precision
        bits = default[-2:]
        return f"int{bits}" if out == "i*" else f"float{bits}"
    return out
