"""Nested-structure helpers for distillation losses: map a function over several
structures of the same shape (lists, tuples and dicts; None is a leaf)."""
from __future__ import annotations


def signature(structure):
    """The nesting of ``structure`` without its leaves (lists and tuples alike)."""
    if isinstance(structure, dict):
        return ("dict", tuple((key, signature(structure[key])) for key in sorted(structure)))
    if isinstance(structure, (list, tuple)):
        return ("sequence", tuple(signature(item) for item in structure))
    return "leaf"


def assert_same(first, second, what: str) -> None:
    if signature(first) != signature(second):
        raise ValueError(f"{what}: the structures do not match; received "
                         f"{describe(first)} and {describe(second)}")


def describe(structure) -> str:
    if isinstance(structure, dict):
        return "{" + ", ".join(f"{k!r}: {describe(v)}" for k, v in structure.items()) + "}"
    if isinstance(structure, (list, tuple)):
        inner = ", ".join(describe(item) for item in structure)
        return f"[{inner}]" if isinstance(structure, list) else f"({inner})"
    return "*"


def leaves(structure) -> list:
    if isinstance(structure, dict):
        return [leaf for key in sorted(structure) for leaf in leaves(structure[key])]
    if isinstance(structure, (list, tuple)):
        return [leaf for item in structure for leaf in leaves(item)]
    return [structure]


def map_structures(fn, first, *others) -> list:
    """``[fn(a, b, ...)]`` over the leaves of same-shaped structures, flattened."""
    return [fn(*items) for items in zip(leaves(first), *(leaves(o) for o in others))]


def map_structure(fn, structure):
    if isinstance(structure, dict):
        return {key: map_structure(fn, value) for key, value in structure.items()}
    if isinstance(structure, (list, tuple)):
        return type(structure)(map_structure(fn, item) for item in structure)
    return fn(structure)
