"""Which objects own which saved variables, and where: Keras 3's object-graph walk.

Keras 3 does not key saved weights by layer names. It walks the model's attributes and
gives every layer or optimizer it meets one group, ``<path>/vars``, holding that object's
*own* variables as ``"0"``, ``"1"``, ... (trainable first, then non-trainable, in creation
order). The walk, reproduced here so that Keras can read what Lamina writes and back:

- A Sequential or functional model lists ``layers`` first (``model.layers``; Sequential's
  leaves out its InputLayer). Then every attribute in ``sorted(dir(obj))`` order with
  ``_private`` names last, except those a plain base object has too (a bare ``Layer``'s or
  ``Optimizer``'s attributes), and except Lamina's internals that hold layers twice.
- A layer or optimizer found in an attribute lives at ``<parent path>/<attribute>``.
- A list, tuple, dict or set of them gives ``<attribute>/<snake_case class name>``,
  ``_1``, ``_2``, ... in order (``layers/dense``, ``layers/dense_1``): never layer names.
- An object is visited once, at the first path that reaches it.
"""
from __future__ import annotations

import types
from typing import Iterator, NamedTuple

from ..core.naming import to_snake_case
from ..core.saveable import base_attributes, saving_kind

_CONTAINERS = (list, tuple, dict, set)
# Lamina internals that hold layers already listed under `layers` (or not saved by Keras).
_LAMINA_SKIP = {"Sequential": {"_functional", "_stack"},
                "Functional": {"operations", "_operations"}}
_SKIPS: dict[str, frozenset] = {}


class Saveable(NamedTuple):
    """One object that owns a ``vars`` group, and the path of that group's parent;
    ``aliases``: the other paths that reach the same object (loading falls back on them,
    as Keras does, when the file has nothing that fits at ``path``)."""
    path: str
    obj: object
    aliases: tuple = ()

    @property
    def group(self) -> str:
        return f"{self.path}/vars" if self.path else "vars"

    @property
    def variables(self) -> list:
        return own_variables(self.obj)


def _kind(obj) -> str | None:
    """"Layer", "Sequential", "Functional", "Optimizer" or None (core/saveable.py)."""
    return saving_kind(obj)


def own_variables(obj) -> list:
    """The variables stored in ``obj``'s own group, in Keras's order."""
    if _kind(obj) == "Optimizer":
        return list(obj.variables)
    saved = getattr(obj, "_saved_variables", None)     # a quantized layer: Keras's order
    if saved is not None and saved() is not None:
        return saved()
    return list(obj._trainable_variables) + list(obj._non_trainable_variables)


def _skip(kind: str) -> frozenset:
    """Attributes not walked: those every object of this base class has (Keras's rule)."""
    if kind not in _SKIPS:
        if kind == "Optimizer":
            names = set(base_attributes("Optimizer")) - {"variables"}
        else:
            names = set(base_attributes("Layer"))
        _SKIPS[kind] = frozenset(names | _LAMINA_SKIP.get(kind, set()))
    return _SKIPS[kind]


def _private_last(name: str) -> str:
    return "~" + name if name.startswith("_") else name


def _class_names(cls, skip: frozenset) -> tuple[frozenset, frozenset] | None:
    """For a class with the default ``dir()`` and attribute lookup: the walked names its
    instances get from the class (``dir(cls)`` less ``skip`` and dunders), and among them
    those that resolve to a plain function of the class (a bound method: never a saveable
    nor a container, so left out unless the instance's ``__dict__`` shadows it). None for
    a class that customizes ``dir()`` or attribute lookup."""
    if cls.__dir__ is not object.__dir__ or cls.__getattribute__ is not object.__getattribute__:
        return None
    names = frozenset(name for name in dir(cls)
                      if name not in skip and not name.startswith("__"))
    functions, seen = set(), set()
    for klass in cls.__mro__:
        for name, value in vars(klass).items():
            if name not in seen:
                seen.add(name)
                if name in names and isinstance(value, types.FunctionType):
                    functions.add(name)
    return names, frozenset(functions)


def _names(obj, skip: frozenset, classes: dict | None) -> list:
    """``dir(obj)`` less ``skip`` and dunders (and less the class's plain methods, see
    :func:`_class_names`, when ``classes``, a per-walk dict, is given)."""
    cls = type(obj)
    if classes is not None and obj.__class__ is cls:
        key = (cls, skip)
        if key not in classes:
            classes[key] = _class_names(cls, skip)
        known = classes[key]
        if known is not None:
            # object.__dir__: the instance's __dict__ keys and dir() of its class
            own = getattr(obj, "__dict__", None)
            own = own if isinstance(own, dict) else {}
            names, functions = known
            return [name for name in names if name not in functions or name in own] + \
                [name for name in own if isinstance(name, str) and name not in names
                 and name not in skip and not name.startswith("__")]
    return [name for name in dir(obj) if name not in skip and not name.startswith("__")]


def _children(obj, kind: str, classes: dict | None = None) -> Iterator[tuple[str, object]]:
    """``(attribute, value)`` pairs in the walk's order; ``classes``: see :func:`_names`
    (a deep model has thousands of layers of one class: each class is looked at once)."""
    if kind in ("Sequential", "Functional"):
        yield "layers", obj.layers
    # Leave out the skipped names before sorting (the order of the rest is the same).
    for attribute in sorted(_names(obj, _skip(kind), classes), key=_private_last):
        try:
            child = getattr(obj, attribute)
        except Exception:       # a property that cannot be computed holds nothing to save
            continue
        yield attribute, child


def _join(path: str, name: str) -> str:
    return f"{path}/{name}" if path else name


def saveables(model, objects_to_skip=()) -> list[Saveable]:
    """Every layer and optimizer reachable from ``model``, with its path, in Keras's order.

    ``objects_to_skip`` are neither listed nor walked into (Keras's argument of that name).
    """
    found: list[Saveable] = []
    visited = {id(obj) for obj in objects_to_skip}
    aliases: dict[int, list] = {}       # id of a listed object -> its other paths
    classes: dict = {}              # what _names learns of each class, for this walk only
    snake: dict = {}                # class name -> its snake_case (a pure function)

    def visit(obj, path: str):
        """List ``obj``; its children to visit next (None when it was already listed)."""
        if id(obj) in visited:
            if id(obj) in aliases:
                aliases[id(obj)].append(path)
            return None
        aliases[id(obj)] = []
        kind = _kind(obj)
        found.append(Saveable(path, obj))
        visited.add(id(obj))
        return children(obj, kind, path)

    def children(obj, kind: str, path: str):
        for attribute, child in _children(obj, kind, classes):
            if _kind(child) is not None:
                yield child, _join(path, attribute)
            elif isinstance(child, _CONTAINERS):
                yield from container_items(child, _join(path, attribute))

    def container_items(container, path: str):
        used: dict[str, int] = {}
        items = container.values() if isinstance(container, dict) else container
        for item in list(items):
            if _kind(item) is None:
                continue
            class_name = type(item).__name__
            name = snake.get(class_name)
            if name is None:
                name = snake[class_name] = to_snake_case(class_name)
            if name in used:
                used[name] += 1
                name = f"{name}_{used[name]}"
            else:
                used[name] = 0
            yield item, _join(path, name)

    # Depth first, in the order a recursive walk would take, on an explicit stack of the
    # objects being walked (models nest models, as deep as their owners like).
    stack = [visit(model, "")]
    while stack:
        for child, path in stack[-1]:
            walk = visit(child, path)
            if walk is not None:
                stack.append(walk)
                break
        else:
            stack.pop()
    return [Saveable(s.path, s.obj, tuple(aliases[id(s.obj)])) if aliases[id(s.obj)] else s
            for s in found]
