"""The one narrow door of serialization: a registry of names, filled by decorators.

Built-in classes register themselves under their class name within a *package* ("keras"
for layers, initializers, ...); users' classes register with
``@register_keras_serializable(package="MyPkg")`` under ``"MyPkg>ClassName"``, as in
Keras 3. Deserialization looks names up here and in ``custom_objects`` only: it never
imports a module or runs code named by a config.
"""
from __future__ import annotations

import threading
from typing import Any

from ..errors import ArgumentTypeError, LaminaError

# Lamina's built-ins, by bare name; and users' objects ("package>name", or whatever a user
# puts into get_custom_objects()), which Keras's get_custom_objects() returns: only those.
_BUILTINS: dict[str, Any] = {}
_GLOBAL_OBJECTS: dict[str, Any] = {}
_REGISTERED_NAMES: dict[Any, str] = {}
# Keras's two module-level registries under Keras's names: name -> user's object (the
# dict get_custom_objects() returns) and user's object -> "package>name".
GLOBAL_CUSTOM_OBJECTS = _GLOBAL_OBJECTS
GLOBAL_CUSTOM_NAMES: dict[Any, str] = {}
_scope = threading.local()


class UnknownObjectError(LaminaError, ValueError):
    """A config names a class or function that neither Lamina nor the user registered."""


def register_builtin(obj=None, *, name: str | None = None):
    """Decorator for Lamina's own classes and functions: registered under their bare name."""
    def decorate(target):
        key = name or target.__name__
        _BUILTINS[key] = target
        _REGISTERED_NAMES.setdefault(target, key)
        return target
    return decorate(obj) if obj is not None else decorate


def register_keras_serializable(package: str = "Custom", name: str | None = None):
    """Register a user's class or function so that configs can name it.

    The decorated object is serialized as ``"package>name"`` and found again by that name
    when loading, with no ``custom_objects`` needed (Keras 3's decorator).

    Args:
        package: The package part of the name. Defaults to ``"Custom"``; must not hold
            ``">"``.
        name: The name part; ``None`` (default) takes the object's ``__name__``.

    Returns:
        A decorator that registers its argument and returns it unchanged.

    Raises:
        ValueError: If ``package`` is not a string or holds ``">"``.
        ArgumentTypeError: If a decorated class has no ``get_config`` method.

    Example:

    >>> @lamina.saving.register_keras_serializable(package="MyLayers")
    ... class Scale(lamina.layers.Layer): ...
    """
    if not isinstance(package, str) or ">" in package:
        raise ValueError(f"register_keras_serializable: argument 'package' must be a string "
                         f"without '>'; received {package!r}")

    def decorate(target):
        key = f"{package}>{name or target.__name__}"
        if isinstance(target, type) and "get_config" not in dir(target):
            raise ArgumentTypeError(f"register_keras_serializable: Cannot register a class "
                                    f"that does not have a get_config() method; "
                                    f"{target.__name__} has none")
        _GLOBAL_OBJECTS[key] = target
        _REGISTERED_NAMES[target] = key
        GLOBAL_CUSTOM_NAMES[target] = key
        return target
    return decorate


def get_registered_name(obj) -> str:
    """Return the name an object is serialized under.

    Args:
        obj: A class or function.

    Returns:
        ``"package>Name"`` for an object registered with
        ``register_keras_serializable``, else its ``__name__``.

    Example:

    >>> @lamina.saving.register_keras_serializable(package="MyLayers")
    ... class Scale(lamina.layers.Layer): ...
    >>> lamina.saving.get_registered_name(Scale)
    'MyLayers>Scale'
    """
    if obj in _REGISTERED_NAMES and ">" in _REGISTERED_NAMES[obj]:
        return _REGISTERED_NAMES[obj]
    return getattr(obj, "__name__", type(obj).__name__)


def is_builtin(obj) -> bool:
    """Whether ``obj`` (a class or function) is one of Lamina's registered built-ins."""
    try:
        name = _REGISTERED_NAMES.get(obj)
    except TypeError:           # unhashable
        return False
    return name is not None and ">" not in name


def get_registered_object(name: str, custom_objects: dict | None = None,
                          module_objects: dict | None = None):
    """Return the class or function registered under a name.

    The name is looked up in the active custom object scopes (innermost first), then
    ``custom_objects``, then the objects registered with ``register_keras_serializable``,
    then Lamina's built-ins, then ``module_objects``.

    Args:
        name: The name, such as ``"MyLayers>Scale"`` or ``"Dense"``.
        custom_objects: An optional dict of name -> class or function.
        module_objects: An optional dict searched last, such as a module's ``globals()``.

    Returns:
        The object, or ``None`` if the name is not found.

    Example:

    >>> lamina.saving.get_registered_object("MyLayers>Scale") is Scale
    True
    """
    for scope in reversed(getattr(_scope, "stack", [])):
        if name in scope:
            return scope[name]
    if custom_objects and name in custom_objects:
        return custom_objects[name]
    if name in _GLOBAL_OBJECTS:
        return _GLOBAL_OBJECTS[name]
    if name in _BUILTINS:
        return _BUILTINS[name]
    if module_objects and name in module_objects:
        return module_objects[name]
    # "Pkg>Name" files can still find a class the user passed under its bare name.
    if ">" in name:
        bare = name.split(">", 1)[1]
        for table in [*reversed(getattr(_scope, "stack", [])), custom_objects or {}]:
            if bare in table:
                return table[bare]
    return None


def users_object(name: str, custom_objects: dict | None = None,
                 module_objects: dict | None = None):
    """``name`` in the custom object scopes, ``custom_objects`` or ``module_objects`` only
    (not the registry): the objects a user handed over for this call."""
    for table in [*reversed(getattr(_scope, "stack", [])), custom_objects or {},
                  module_objects or {}]:
        if name in table:
            return table[name]
    return None


class CustomObjectScope:
    """A ``with`` scope in which configs may name the user's classes and functions.

    Inside the block, deserialization (``load_model``, ``layers.deserialize``, ...) finds
    these objects by name, as if they were registered. ``custom_object_scope`` is the same
    class (Keras's two names); scopes nest, the innermost winning.

    Args:
        custom_objects: A dict of name -> class or function (or ``None`` for none).

    Raises:
        TypeError: If ``custom_objects`` is not a dict.

    Example:

    >>> with lamina.saving.CustomObjectScope({"MyLayer": MyLayer}):
    ...     layer = lamina.layers.deserialize(config)
    """

    def __init__(self, custom_objects):
        if custom_objects is None:
            custom_objects = {}
        if not isinstance(custom_objects, dict):
            raise TypeError(f"custom_object_scope: argument 'custom_objects' must be a dict "
                            f"of name -> class or function; received "
                            f"{type(custom_objects).__name__}")
        self.custom_objects = dict(custom_objects)

    def __enter__(self):
        stack = getattr(_scope, "stack", None)
        if stack is None:
            stack = _scope.stack = []
        stack.append(self.custom_objects)
        return self

    def __exit__(self, *exc_info):
        _scope.stack.pop()


custom_object_scope = CustomObjectScope


def get_custom_objects() -> dict[str, Any]:
    """The registry of users' objects (Keras's ``get_custom_objects``): a live dict, empty
    until the user registers something. Lamina's built-ins are not in it, so clearing it
    (as Keras's serialization guide does) loses nothing of Lamina's."""
    return _GLOBAL_OBJECTS


def unknown_object(name: str, kind: str) -> UnknownObjectError:
    return UnknownObjectError(
        f"unknown {kind} {name!r}: Lamina has no built-in of that name and none is "
        f"registered. Pass it in custom_objects={{{name.split('>')[-1]!r}: ...}}, use "
        f"lamina.saving.custom_object_scope, or decorate its class with "
        f"@lamina.saving.register_keras_serializable()")

