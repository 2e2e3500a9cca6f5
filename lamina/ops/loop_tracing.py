"""What the control-flow ops (``loops.py``, ``control_flow.py``) share: nested structures
of tensors, their spec checks, and tracing a Python function once on placeholders.

A control-flow function runs its Python callables directly on concrete tensors (eager
mode: the tape sees every op). When a value is symbolic (a graph being traced by
``lamina.jit`` or ``fit``, or a functional model being built) it traces each callable once
on placeholders instead and emits loop or select nodes, so a graph does not grow with the
number of iterations.
"""
from __future__ import annotations

from .. import tree
from ..core.tensor import TensorBase
from ..core.symbolic import SymbolicTensor
from ..errors import DTypeError, ShapeError, describe_shape
from .core import as_tensor, convert_to_tensor
from ..core.mode import active_trace


def tensors_of(op: str, structure, like=None) -> list:
    """The leaves of ``structure`` as tensors (Python numbers in ``like``'s dtypes)."""
    leaves = tree.flatten(structure)
    likes = tree.flatten(like) if like is not None else [None] * len(leaves)
    return [_leaf_tensor(op, x, ref) for x, ref in zip(leaves, likes)]


def _leaf_tensor(op: str, x, like):
    if x is None or isinstance(x, TensorBase):
        return x if x is None else as_tensor(op, x)
    if like is not None and not isinstance(x, bool):
        return convert_to_tensor(x, dtype=like.dtype)
    return convert_to_tensor(x)


def any_symbolic(*leaves) -> bool:
    """True when control flow must be traced: a leaf is symbolic or a graph is traced
    (then a Variable read inside a callable is symbolic too)."""
    if active_trace() is not None:
        return True
    return any(isinstance(x, SymbolicTensor) for x in leaves)


def placeholders(leaves, name: str) -> list:
    return [None if x is None else SymbolicTensor(tuple(x.shape), x.dtype, name=name)
            for x in leaves]


def same_structure(a, b) -> bool:
    """The nesting (lists, tuples, dicts and their keys) of ``a`` and ``b`` agree."""
    if isinstance(a, dict) or isinstance(b, dict):
        return (isinstance(a, dict) and isinstance(b, dict) and sorted(a) == sorted(b)
                and all(same_structure(a[k], b[k]) for k in a))
    if isinstance(a, (list, tuple)) or isinstance(b, (list, tuple)):
        return (isinstance(a, (list, tuple)) and isinstance(b, (list, tuple))
                and len(a) == len(b) and all(same_structure(x, y) for x, y in zip(a, b)))
    return (a is None) == (b is None)


def describe(structure) -> str:
    """A structure with its leaves as ``shape dtype``, for error messages."""
    def leaf(x):
        if x is None:
            return "None"
        if hasattr(x, "shape") and hasattr(x, "dtype"):
            return f"{describe_shape(tuple(x.shape))} {x.dtype}"
        return type(x).__name__
    return repr(tree.map_structure(leaf, structure)).replace("'", "")


def check_carry(op: str, what: str, before, after) -> None:
    """``after`` keeps ``before``'s structure, shapes and dtypes (a loop's carry)."""
    if not same_structure(before, after):
        raise ValueError(f"{op}: {what} must keep the structure of its input; received "
                         f"{describe(after)} for {describe(before)}")
    for x, y in zip(tree.flatten(before), tree.flatten(after)):
        if x is None:
            continue
        if not _same_shape(x.shape, y.shape):
            raise ShapeError(f"{op}: {what} must keep the shapes of its input; received "
                             f"{describe(after)} for {describe(before)}")
        if x.dtype != y.dtype:
            raise DTypeError(f"{op}: {what} must keep the dtypes of its input; received "
                             f"{describe(after)} for {describe(before)}")


def check_same_specs(op: str, what: str, first, second) -> None:
    """Two branches' results agree in structure, shapes and dtypes."""
    ok = same_structure(first, second) and all(
        (x is None) == (y is None) and (x is None or (
            _same_shape(x.shape, y.shape) and x.dtype == y.dtype))
        for x, y in zip(tree.flatten(first), tree.flatten(second)))
    if not ok:
        raise ValueError(f"{op}: {what} must return outputs of the same structure, shapes "
                         f"and dtypes; received {describe(first)} and {describe(second)}")


def _same_shape(a, b) -> bool:
    a, b = tuple(a), tuple(b)
    return len(a) == len(b) and all(x is None or y is None or x == y for x, y in zip(a, b))


def writes(trace) -> tuple:
    """What ``trace`` has assigned so far (a traced body that writes variables cannot be a
    loop node: it runs unrolled)."""
    if trace is None:
        return ()
    return tuple((key, id(value)) for key, (_, value) in trace.updates.items())
