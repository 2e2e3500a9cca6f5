"""Nested structures of tensors (lists, tuples, dicts), as Keras's ``keras.tree``.

Dicts are walked in sorted key order, so a structure flattens the same way every time.
"""
from __future__ import annotations

from typing import Any, Callable


def is_nested(x) -> bool:
    return isinstance(x, (list, tuple, dict))


def flatten(structure) -> list:
    """The leaves of ``structure`` in order (None is a leaf)."""
    if isinstance(structure, dict):
        return [leaf for key in sorted(structure) for leaf in flatten(structure[key])]
    if isinstance(structure, (list, tuple)):
        return [leaf for item in structure for leaf in flatten(item)]
    return [structure]


def map_structure(fn: Callable[[Any], Any], structure):
    """The same structure with ``fn`` applied to every leaf."""
    if isinstance(structure, dict):
        return {key: map_structure(fn, value) for key, value in structure.items()}
    if isinstance(structure, tuple) and hasattr(structure, "_fields"):
        return type(structure)(*(map_structure(fn, item) for item in structure))
    if isinstance(structure, (list, tuple)):
        return type(structure)(map_structure(fn, item) for item in structure)
    return fn(structure)


def pack_sequence_as(structure, leaves: list):
    """Leaves (in :func:`flatten`'s order) put back into the shape of ``structure``."""
    stream = iter(leaves)

    def rebuild(sub):
        if isinstance(sub, dict):
            values = {key: rebuild(sub[key]) for key in sorted(sub)}
            return {key: values[key] for key in sub}
        if isinstance(sub, tuple) and hasattr(sub, "_fields"):
            return type(sub)(*(rebuild(item) for item in sub))
        if isinstance(sub, (list, tuple)):
            return type(sub)(rebuild(item) for item in sub)
        return next(stream)
    return rebuild(structure)
