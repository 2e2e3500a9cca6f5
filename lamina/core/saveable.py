"""The Saveable protocol: what ``lamina/saving`` asks of the objects it writes, so that it
imports no layer, model or optimizer class.

Keras 3's weights files walk a model's attributes and give every layer or optimizer its own
group (``saving/object_graph.py``). The walk needs, of an object, only its *kind*: the
class attribute ``saving_kind`` ("Layer", "Sequential", "Functional" or "Optimizer"; None
for anything else), and, per kind, the attributes every object of the base class has (the
walk leaves those out, as Keras does), which the base class registers here with a factory
of a plain instance.
"""
from __future__ import annotations

from typing import Callable

_REFERENCES: dict[str, Callable[[], object]] = {}
_ATTRIBUTES: dict[str, frozenset] = {}
_CLASSES: dict[str, type] = {}


def saving_kind(obj) -> str | None:
    """"Layer", "Sequential", "Functional", "Optimizer", or None (not a saveable)."""
    return getattr(type(obj), "saving_kind", None)


def register_saveable_base(kind: str, base_class: type,
                           make_reference: Callable[[], object] | None = None) -> None:
    """Called by a base class's module: ``base_class`` is what :func:`is_a` checks for
    ``kind``; ``make_reference()`` makes a plain instance whose attributes the walk of
    objects of ``kind`` leaves out."""
    _CLASSES[kind] = base_class
    if make_reference is not None:
        _REFERENCES[kind] = make_reference
        _ATTRIBUTES.pop(kind, None)


def is_a(obj, kind: str) -> bool:
    """Whether ``obj`` is an instance of the base class registered for ``kind`` ("Model":
    any model, subclassed ones included)."""
    base = _CLASSES.get(kind)
    return base is not None and isinstance(obj, base)


def base_class(kind: str) -> type | None:
    """The base class registered for ``kind`` (None if none is): the loader asks whether an
    object overrides its base class's ``load_own_variables``."""
    return _CLASSES.get(kind)


def base_attributes(kind: str) -> frozenset:
    """The attribute names of a plain object of ``kind``'s base class (made once)."""
    if kind not in _ATTRIBUTES:
        if kind not in _REFERENCES:
            raise KeyError(f"saveable: no base class registered for kind {kind!r}; "
                           f"registered: {sorted(_REFERENCES)}")
        _ATTRIBUTES[kind] = frozenset(dir(_REFERENCES[kind]()))
    return _ATTRIBUTES[kind]
