"""Nested structures of tensors (lists, tuples, namedtuples, dicts), as Keras's ``keras.tree``.

Dicts are walked in sorted key order, so a structure flattens the same way every time; a
rebuilt dict keeps the key order of the structure it is rebuilt from. None is a leaf.
"""
from __future__ import annotations

import warnings
from typing import Any, Callable


class MAP_TO_NONE:
    """Returned by a :func:`traverse` function: the node becomes None."""


def _is_namedtuple(x) -> bool:
    return isinstance(x, tuple) and hasattr(x, "_fields")


def is_nested(structure) -> bool:
    """Whether ``structure`` is a list, tuple or dict (not a leaf).

    Args:
        structure: any Python value.

    Returns:
        A bool.
    """
    return isinstance(structure, (list, tuple, dict))


def _children(node) -> list[tuple[Any, Any]]:
    """(key, child) pairs of a nested node, in flatten order."""
    if isinstance(node, dict):
        return [(key, node[key]) for key in sorted(node)]
    return list(enumerate(node))


def _rebuild(node, values: dict):
    """A node of ``node``'s type with the children ``values`` (key -> value)."""
    if isinstance(node, dict):
        rebuilt = {key: values[key] for key in node}
        return rebuilt if type(node) is dict else _same_mapping(node, rebuilt)
    items = [values[i] for i in range(len(node))]
    if _is_namedtuple(node):
        return type(node)(*items)
    return type(node)(items)


def _same_mapping(node, rebuilt: dict):
    try:
        return type(node)(rebuilt)
    except TypeError:                 # a defaultdict and kin: copy and overwrite
        copy = node.copy()
        copy.update(rebuilt)
        return copy


def flatten(structure) -> list:
    """The leaves of ``structure`` in order (None is a leaf).

    Args:
        structure: a leaf, or lists, tuples and dicts nesting leaves.

    Returns:
        A list of the leaves.

    Example:

    >>> lamina.tree.flatten({"b": 2, "a": [1, (3,)]})
    [1, 3, 2]
    """
    if isinstance(structure, dict):
        return [leaf for key in sorted(structure) for leaf in flatten(structure[key])]
    if isinstance(structure, (list, tuple)):
        return [leaf for item in structure for leaf in flatten(item)]
    return [structure]


def flatten_with_path(structure) -> list[tuple[tuple, Any]]:
    """``(path, leaf)`` pairs in :func:`flatten`'s order; a path is the tuple of list
    indices and dict keys that leads to the leaf.

    Args:
        structure: a leaf, or lists, tuples and dicts nesting leaves.

    Returns:
        A list of ``(path, leaf)`` tuples.
    """
    if not is_nested(structure):
        return [((), structure)]
    return [((key, *path), leaf) for key, child in _children(structure)
            for path, leaf in flatten_with_path(child)]


def _mismatch(detail: str) -> ValueError:
    return ValueError(f"Structures don't have the same nested structure: {detail}")


def _check_same_node(first, other) -> None:
    if not is_nested(other) or (type(first) is not type(other) and not (
            isinstance(first, dict) and isinstance(other, dict))):
        raise _mismatch(f"expected an instance of {type(first).__name__}, got {other!r}")
    if isinstance(first, dict):
        if set(first) != set(other):
            raise _mismatch(f"dictionary keys {sorted(first, key=repr)} != "
                            f"{sorted(other, key=repr)}")
    elif len(first) != len(other):
        raise _mismatch(f"a {type(first).__name__} of {len(first)} items, got one of "
                        f"{len(other)}: {other!r}")


def _map(func, structures: tuple, none_is_leaf: bool, is_leaf=None):
    first = structures[0]
    if is_leaf is not None and is_leaf(first):
        return func(*structures)
    if first is None and not none_is_leaf:
        if any(s is not None for s in structures[1:]):
            raise _mismatch(f"expected None, got {structures!r}")
        return None
    if not is_nested(first):
        if len(structures) > 1 and any(
                is_nested(s) or (s is None and not none_is_leaf) for s in structures[1:]):
            raise _mismatch(f"expected a leaf, got {structures!r}")
        return func(*structures)
    for other in structures[1:]:
        _check_same_node(first, other)
    values = {key: _map(func, tuple(s[key] for s in structures), none_is_leaf, is_leaf)
              for key, _ in _children(first)}
    return _rebuild(first, values)


def map_structure(func: Callable, *structures, none_is_leaf: bool = True):
    """The structure with ``func`` applied to the leaves (several structures of the same
    shape: ``func`` gets one leaf of each). With ``none_is_leaf=False`` a None stays None
    and ``func`` is not called on it.

    Args:
        func: a callable taking one leaf of each structure.
        *structures: one or more structures of the same nesting.
        none_is_leaf: whether None is passed to ``func`` (default) or kept as None.

    Returns:
        A structure nested as the first one, holding ``func``'s results.
    """
    if not structures:
        raise ValueError("Must provide at least one structure")
    return _map(func, structures, none_is_leaf)


def map_structure_up_to(shallow_structure, func: Callable, *structures):
    """Like :func:`map_structure` down to the leaves of ``shallow_structure`` only: ``func``
    gets the (possibly nested) parts of ``structures`` found there.

    Args:
        shallow_structure: a structure whose leaves mark where to stop.
        func: a callable taking one part of each structure.
        *structures: structures at least as deep as ``shallow_structure``.

    Returns:
        A structure nested as ``shallow_structure``.
    """
    if not structures:
        raise ValueError("Must provide at least one structure")

    def walk(shallow, parts):
        if not is_nested(shallow):
            return func(*parts)
        for part in parts:
            _check_same_node(shallow, part)
        values = {key: walk(child, tuple(p[key] for p in parts))
                  for key, child in _children(shallow)}
        return _rebuild(parts[0], values)
    return walk(shallow_structure, structures)


def map_shape_structure(func: Callable, structure):
    """:func:`map_structure` where a list or tuple of ints and Nones (a shape) is a leaf.

    Args:
        func: a callable taking one shape (or other leaf).
        structure: shapes nested in lists, tuples and dicts.

    Returns:
        The structure of ``func``'s results.
    """
    def is_shape(x):
        return isinstance(x, (list, tuple)) and all(isinstance(e, (int, type(None)))
                                                    for e in x)
    return _map(func, (structure,), True, is_leaf=is_shape)


def assert_same_structure(a, b, check_types=None) -> None:
    """Raise ``ValueError`` unless ``a`` and ``b`` nest the same way (same container types,
    lengths and dict keys). ``check_types`` is deprecated, as in Keras.

    Args:
        a: a structure.
        b: a structure.
        check_types: deprecated; has no effect.

    Raises:
        ValueError: if the two nest differently.
    """
    if check_types is not None:
        warnings.warn("assert_same_structure: the `check_types` argument is deprecated and "
                      "no longer has any effect: container types are always checked",
                      DeprecationWarning, stacklevel=2)
    _map(lambda x, y: None, (a, b), True)


def assert_same_paths(a, b) -> None:
    """Raise ``ValueError`` unless ``a`` and ``b`` have the same leaf paths (container
    types may differ).

    Args:
        a: a structure.
        b: a structure.

    Raises:
        ValueError: naming the paths found in only one of them.
    """
    a_paths = {path for path, _ in flatten_with_path(a)}
    b_paths = {path for path, _ in flatten_with_path(b)}
    if a_paths != b_paths:
        msg = "`a` and `b` don't have the same paths."
        if a_paths - b_paths:
            msg += f"\nPaths in `a` missing in `b`:\n{a_paths - b_paths}"
        if b_paths - a_paths:
            msg += f"\nPaths in `b` missing in `a`:\n{b_paths - a_paths}"
        raise ValueError(msg)


def pack_sequence_as(structure, flat_sequence):
    """Leaves (in :func:`flatten`'s order) put back into the shape of ``structure``.

    Args:
        structure: the structure to copy the nesting of.
        flat_sequence: as many leaves as ``structure`` has.

    Returns:
        A structure nested as ``structure``.

    Example:

    >>> lamina.tree.pack_sequence_as({"a": None, "b": [None]}, [1, 2])
    {'a': 1, 'b': [2]}
    """
    leaves = list(flat_sequence)
    stream = iter(leaves)
    count = 0

    def rebuild(sub):
        nonlocal count
        if isinstance(sub, dict):
            values = {key: rebuild(sub[key]) for key in sorted(sub)}
            return _rebuild(sub, values)
        if _is_namedtuple(sub):
            return type(sub)(*(rebuild(item) for item in sub))
        if isinstance(sub, (list, tuple)):
            return type(sub)(rebuild(item) for item in sub)
        count += 1
        try:
            return next(stream)
        except StopIteration:
            raise ValueError(f"pack_sequence_as: too few leaves: the structure has "
                             f"{len(flatten(structure))}, flat_sequence has "
                             f"{len(leaves)}") from None
    result = rebuild(structure)
    if count != len(leaves):
        raise ValueError(f"pack_sequence_as: too many leaves: the structure has {count}, "
                         f"flat_sequence has {len(leaves)}")
    return result


def traverse(func: Callable, structure, top_down: bool = True):
    """Apply ``func`` to every node (containers too). Top down: a non-None result replaces
    the node and its children are not visited. Bottom up: ``func`` sees the node with its
    children already traversed; None keeps it. ``MAP_TO_NONE`` makes the node None.

    Args:
        func: a callable taking a node; its result replaces the node unless None.
        structure: the structure to walk.
        top_down: walk from the root (default) or from the leaves up.

    Returns:
        The traversed structure.
    """
    def children_traversed(node):
        if not is_nested(node):
            return node
        values = {key: traverse(func, child, top_down) for key, child in _children(node)}
        return _rebuild(node, values)
    if top_down:
        result = func(structure)
        if result is None:
            return children_traversed(structure)
    else:
        structure = children_traversed(structure)
        result = func(structure)
        if result is None:
            return structure
    return None if result is MAP_TO_NONE else result


def lists_to_tuples(structure):
    """The structure with every list turned into a tuple.

    Args:
        structure: a structure.

    Returns:
        The same structure with tuples in place of lists.
    """
    return traverse(lambda x: tuple(x) if isinstance(x, list) else None, structure,
                    top_down=False)


__all__ = ["MAP_TO_NONE", "assert_same_paths", "assert_same_structure", "flatten",
           "flatten_with_path", "is_nested", "lists_to_tuples", "map_shape_structure",
           "map_structure", "map_structure_up_to", "pack_sequence_as", "traverse"]


def pythonify_logs(logs: dict) -> dict:
    """Training logs as Keras 3 gives them to callbacks: tensors (anything with
    ``.numpy()``) to Python floats, nested dicts flattened, keys sorted."""
    flat = {}

    def add(key, value):
        if isinstance(value, dict):
            for k, v in value.items():
                add(k, v)
            return
        if hasattr(value, "numpy"):
            value = value.numpy()
        try:
            value = float(value)
        except (TypeError, ValueError):
            pass
        flat[key] = value
    for key, value in logs.items():
        add(key, value)
    return dict(sorted(flat.items()))
