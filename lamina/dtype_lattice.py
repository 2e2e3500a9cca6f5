"""Keras 3's type promotion rule (``keras.backend.result_type``): the least upper bound of
the dtypes on JAX's promotion lattice, where Python's ``int`` and ``float`` are *weak*
types that defer to the other operand (``int32`` with ``float`` is float32; ``float16``
with ``int`` stays float16), and an all-weak result takes ``floatx()``'s precision.

One deliberate difference: Keras (following JAX without x64) turns every 64-bit result
into its 32-bit kind; Lamina computes in float64 and int64 when asked to, so 64-bit
results stay 64-bit here.
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
    "i*": ["uint8", "int8"],
    "int8": ["int16"], "int16": ["int32"], "int32": ["int64"], "int64": ["f*"],
    "f*": ["bfloat16", "float16"],
    "bfloat16": ["float32"], "float16": ["float32"], "float32": ["float64"], "float64": [],
}


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
    dtypes (or None) means ``floatx()``."""
    if not dtypes:
        return floatx()
    nodes = [_node(floatx() if d is None else d) for d in dtypes]
    strong = {n for n, weak in nodes if not weak}
    if len(nodes) > 1 and len(strong) == 1 and len({n for n, _ in nodes}) == 1:
        return strong.pop()
    out = _least_upper_bound(frozenset(n for n, _ in nodes))
    if out in ("i*", "f*"):                   # only weak types: floatx()'s precision
        bits = floatx()[-2:]
        return f"int{bits}" if out == "i*" else f"float{bits}"
    return out
