"""The one narrow door of serialization: a registry of names, filled by decorators.

Built-in classes register themselves under their class name within a *package* ("keras"
for layers, initializers, ...); users' classes register with
``@register_keras_serializable(package="MyPkg")`` under ``"MyPkg>ClassName"``, as in
Keras 3. Deserialization looks names up here and in ``custom_objects`` only: it never
imports a module or runs code named by a config.
"""
from __future__ import annotations

import contextlib
import threading
from typing import Any, Callable

from ..errors import LaminaError

# "registered name" -> class or function. Built-ins are stored under their bare name.
_GLOBAL_OBJECTS: dict[str, Any] = {}
_REGISTERED_NAMES: dict[Any, str] = {}
_scope = threading.local()


class UnknownObjectError(LaminaError, ValueError):
    """A config names a class or function that neither Lamina nor the user registered."""


def register_builtin(obj=None, *, name: str | None = None):
    """Decorator for Lamina's own classes and functions: registered under their bare name."""
    def decorate(target):
        key = name or target.__name__
        _GLOBAL_OBJECTS[key] = target
        _REGISTERED_NAMES.setdefault(target, key)
        return target
    return decorate(obj) if obj is not None else decorate


def register_keras_serializable(package: str = "Custom", name: str | None = None):
    """Register a user's class or function as ``"package>name"`` (Keras 3's decorator).

    >>> @lamina.saving.register_keras_serializable(package="MyLayers")
    ... class Scale(lamina.layers.Layer): ...
    """
    if not isinstance(package, str) or ">" in package:
        raise ValueError(f"register_keras_serializable: argument 'package' must be a string "
                         f"without '>'; received {package!r}")

    def decorate(target):
        key = f"{package}>{name or target.__name__}"
        if isinstance(target, type) and "get_config" not in dir(target):
            raise TypeError(f"register_keras_serializable: {target.__name__} cannot be "
                            f"registered: it has no get_config() method")
        _GLOBAL_OBJECTS[key] = target
        _REGISTERED_NAMES[target] = key
        return target
    return decorate


def get_registered_name(obj) -> str:
    """The name ``obj`` (a class or function) is serialized under."""
    return _REGISTERED_NAMES.get(obj, getattr(obj, "__name__", type(obj).__name__))


def get_registered_object(name: str, custom_objects: dict | None = None,
                          module_objects: dict | None = None):
    """Look ``name`` up in the active custom object scopes, ``custom_objects``, the registry."""
    for scope in reversed(getattr(_scope, "stack", [])):
        if name in scope:
            return scope[name]
    if custom_objects and name in custom_objects:
        return custom_objects[name]
    if name in _GLOBAL_OBJECTS:
        return _GLOBAL_OBJECTS[name]
    if module_objects and name in module_objects:
        return module_objects[name]
    # "Pkg>Name" files can still find a class the user passed under its bare name.
    if ">" in name:
        bare = name.split(">", 1)[1]
        for table in [*reversed(getattr(_scope, "stack", [])), custom_objects or {}]:
            if bare in table:
                return table[bare]
    return None


@contextlib.contextmanager
def custom_object_scope(custom_objects: dict[str, Any]):
    """Within the block, configs may name these objects (Keras's ``custom_object_scope``)."""
    if not isinstance(custom_objects, dict):
        raise TypeError(f"custom_object_scope: argument 'custom_objects' must be a dict of "
                        f"name -> class or function; received {type(custom_objects).__name__}")
    stack = getattr(_scope, "stack", None)
    if stack is None:
        stack = _scope.stack = []
    stack.append(dict(custom_objects))
    try:
        yield
    finally:
        stack.pop()


CustomObjectScope = custom_object_scope


def get_custom_objects() -> dict[str, Any]:
    """The registry of users' objects (Keras's ``get_custom_objects``): a live dict."""
    return _GLOBAL_OBJECTS


# --------------------------------------------------------------------------- (de)serialize
def serialize_keras_object(obj) -> Any:
    """An object as Keras 3's ``{"module", "class_name", "config", "registered_name"}``.

    None, strings, numbers and lists pass through; functions become their registered name.
    """
    if obj is None or isinstance(obj, (str, int, float, bool)):
        return obj
    if isinstance(obj, (list, tuple)):
        return [serialize_keras_object(o) for o in obj]
    if isinstance(obj, dict):
        return {k: serialize_keras_object(v) for k, v in obj.items()}
    if callable(obj) and not hasattr(obj, "get_config"):
        name = get_registered_name(obj)
        if ">" not in name and name in _GLOBAL_OBJECTS:
            return name          # built-in functions (activations, losses) as bare strings
        return {"module": "builtins", "class_name": "function", "config": name,
                "registered_name": "function"}
    cls = type(obj)
    registered = _REGISTERED_NAMES.get(cls)
    module = getattr(cls, "_keras_module", None)
    result = {"module": module if registered and ">" not in registered else cls.__module__,
              "class_name": cls.__name__,
              "config": obj.get_config(),
              "registered_name": registered if registered and ">" in registered else None}
    build_config = obj.get_build_config() if hasattr(obj, "get_build_config") else None
    if build_config is not None:
        result["build_config"] = build_config
    return result


def deserialize_keras_object(config, custom_objects: dict | None = None,
                             module_objects: dict | None = None, kind: str = "object"):
    """The inverse of :func:`serialize_keras_object`; never imports or runs code."""
    if config is None or not isinstance(config, (str, dict)):
        return config
    if isinstance(config, str):
        obj = get_registered_object(config, custom_objects, module_objects)
        if obj is None:
            raise unknown_object(config, kind)
        return obj
    class_name = config.get("class_name")
    if class_name is None:
        raise UnknownObjectError(f"cannot deserialize {kind}: the config has no 'class_name' "
                                 f"key; received keys {sorted(config)}")
    if class_name == "function":
        return deserialize_keras_object(config.get("config"), custom_objects, module_objects,
                                        kind)
    if class_name == "__lambda__":
        raise UnknownObjectError(
            f"cannot deserialize {kind}: it holds Python bytecode (a lambda), which Lamina "
            f"never runs from a file; pass the function in custom_objects instead")
    registered = config.get("registered_name") or class_name
    cls = (get_registered_object(registered, custom_objects, module_objects)
           or get_registered_object(class_name, custom_objects, module_objects))
    if cls is None:
        raise unknown_object(registered, kind)
    inner = config.get("config", {})
    if hasattr(cls, "from_config"):
        if _accepts_custom_objects(cls.from_config):
            obj = cls.from_config(inner, custom_objects=custom_objects)
        else:
            with custom_object_scope(custom_objects or {}):
                obj = cls.from_config(inner)
    else:
        obj = cls(**inner)
    if config.get("build_config") and hasattr(obj, "build_from_config"):
        obj.build_from_config(config["build_config"])
    return obj


def _accepts_custom_objects(method: Callable) -> bool:
    import inspect
    try:
        return "custom_objects" in inspect.signature(method).parameters
    except (TypeError, ValueError):
        return False


def unknown_object(name: str, kind: str) -> UnknownObjectError:
    return UnknownObjectError(
        f"unknown {kind} {name!r}: Lamina has no built-in of that name and none is "
        f"registered. Pass it in custom_objects={{{name.split('>')[-1]!r}: ...}}, use "
        f"lamina.saving.custom_object_scope, or decorate its class with "
        f"@lamina.saving.register_keras_serializable()")
