"""Keras 3's ``serialize_keras_object`` / ``deserialize_keras_object``: objects as the nested
``{"module", "class_name", "config", "registered_name"}`` dicts Keras writes, and back.

Serializing walks a ``get_config()`` dict, so a layer holding a sub-layer or a regularizer
writes nested dicts and the result is JSON-encodable. Deserializing resolves a name through
``custom_objects`` and the custom object scopes, then the Lamina family that the Keras
``module`` names (``"keras.losses"`` and ``"keras.metrics"`` both have a
``MeanSquaredError``), then the registry. It never imports a module or runs code from a
config: a serialized lambda is refused.
"""
from __future__ import annotations

import inspect
import types
from typing import Any, Callable

from .families import is_strict_family, lookup_in_family
from ..errors import ArgumentTypeError, LaminaError
from .object_registration import (CustomObjectScope, UnknownObjectError, get_custom_objects,
                                  get_registered_name, get_registered_object, is_builtin,
                                  unknown_object, users_object)
from .safe_mode import safe_mode_scope, scoped_safe_mode
from .special_values import (NOT_SPECIAL, deserialize_special, serialize_lambda,
                             serialize_special)

_PLAIN = (str, int, float, bool)


# --------------------------------------------------------------------------- serialize
def serialize_keras_object(obj) -> Any:
    """Return an object's serialized form, as Keras 3 writes it.

    Plain values stay as they are, lists and dicts are walked, functions become
    ``{"module": "builtins", "class_name": "function", ...}``, and objects with
    ``get_config`` become ``{"module", "class_name", "config", "registered_name"}`` with
    their config serialized in turn.

    Args:
        obj: The object to serialize: a layer, loss, optimizer, function, plain value, ...

    Returns:
        A JSON-compatible structure that ``deserialize_keras_object`` turns back into the
        object.

    Example:

    >>> lamina.saving.serialize_keras_object(lamina.activations.relu)["config"]
    'relu'
    """
    if obj is None or isinstance(obj, _PLAIN):
        return obj
    if isinstance(obj, (list, tuple)):
        return [serialize_keras_object(item) for item in obj]
    if isinstance(obj, dict):
        return serialize_dict(obj)
    special = serialize_special(obj, serialize_keras_object)
    if special is not None:
        return special
    if isinstance(obj, (types.FunctionType, types.BuiltinFunctionType)) or (
            callable(obj) and not hasattr(obj, "get_config") and hasattr(obj, "__name__")):
        if getattr(obj, "__name__", None) == "<lambda>":
            return serialize_lambda(obj)
        return {"module": "builtins", "class_name": "function",
                "config": get_registered_name(obj), "registered_name": "function"}
    if not hasattr(obj, "get_config"):
        raise TypeError(f"serialize_keras_object: cannot serialize {obj!r} (a "
                        f"{type(obj).__name__}): to be serializable, a class must implement "
                        f"get_config()")
    cls = type(obj)
    inner = obj.get_config()
    if not isinstance(inner, dict):
        raise TypeError(f"serialize_keras_object: get_config() of {cls.__name__} must return "
                        f"a dict; it returned {inner!r}")
    if is_builtin(cls):
        module, registered = getattr(cls, "_keras_module", None), None
    else:
        module, registered = cls.__module__, get_registered_name(cls)
    result = {"module": None if module == "__main__" else module,
              "class_name": cls.__name__, "config": serialize_dict(inner),
              "registered_name": registered}
    if hasattr(obj, "get_build_config"):
        build_config = obj.get_build_config()
        if build_config is not None:
            result["build_config"] = serialize_dict(build_config)
    if hasattr(obj, "get_compile_config"):
        compile_config = obj.get_compile_config()
        if compile_config is not None:
            result["compile_config"] = serialize_dict(compile_config)
    return result


def serialize_dict(config: dict) -> dict:
    return {key: serialize_keras_object(value) for key, value in config.items()}


# --------------------------------------------------------------------------- deserialize
def _resolve(config: dict, class_name: str, custom_objects, module_objects):
    """The user's objects first, then the family the Keras module names, then the
    registry (``"package>Name"`` for registered classes)."""
    registered = config.get("registered_name") or class_name
    obj = users_object(registered, custom_objects, module_objects)
    if obj is None and ">" in registered:     # a registered class beats a same-named built-in
        obj = get_registered_object(registered, custom_objects, module_objects)
    if obj is None:
        obj = users_object(class_name, custom_objects, module_objects)
    if obj is not None:
        return obj
    module = config.get("module")
    obj = lookup_in_family(module, class_name)
    if obj is None:
        obj = (get_registered_object(registered, custom_objects, module_objects)
               or get_registered_object(class_name, custom_objects, module_objects))
        if obj is not None and is_strict_family(module) and is_builtin(obj):
            return None   # another family's built-in of that name (a loss for a metric)
    if obj is not None and is_builtin(obj):
        _check_builtin_registered_name(config, class_name)
    return obj


def deserialize_keras_object(config, custom_objects=None, safe_mode=True, **kwargs):
    """Rebuild an object from the config that ``serialize_keras_object`` made.

    The inverse of :func:`serialize_keras_object` (Keras 3's signature). Classes come only
    from Lamina's registry, ``register_keras_serializable``, the active custom object
    scopes and ``custom_objects``. A lambda is refused: with ``safe_mode=True`` as Keras
    refuses it, and with ``safe_mode=False`` too, because Lamina never runs bytecode from a
    config.

    Args:
        config: The serialized form: a dict ``{"module", "class_name", "config", ...}``, a
            plain value, a list of them, or a registered name.
        custom_objects: A dict of name -> class or function to look names up in, or
            ``None``.
        safe_mode: If ``True`` (default), refuse configs that would run arbitrary code
            (lambdas).
        **kwargs: ``module_objects`` (a dict searched like ``custom_objects``) and ``kind``
            (the word used in errors); anything else raises ``TypeError``.

    Returns:
        The rebuilt object (plain values are returned as they are).

    Example:

    >>> config = lamina.saving.serialize_keras_object(lamina.layers.Dense(4))
    >>> lamina.saving.deserialize_keras_object(config)
    <Dense name=dense, built=False>
    """
    module_objects = kwargs.pop("module_objects", None)
    kind = kwargs.pop("kind", "object")
    if kwargs:
        raise TypeError(f"deserialize_keras_object: unexpected keyword arguments "
                        f"{sorted(kwargs)}; expected custom_objects, safe_mode, "
                        f"module_objects")
    if config is None or isinstance(config, (int, float, bool)):
        return config
    if isinstance(config, (list, tuple)):
        return [deserialize_keras_object(c, custom_objects, safe_mode,
                                         module_objects=module_objects, kind=kind)
                for c in config]
    plain = kind == "object"        # a plain value, as Keras's public function reads it
    if isinstance(config, str):
        if plain:                       # Keras: a string is itself, unless the user's object
            obj = users_object(config, custom_objects, module_objects)
            if obj is None and ">" in config:
                obj = get_registered_object(config, custom_objects, module_objects)
            return config if obj is None else obj
        obj = get_registered_object(config, custom_objects, module_objects)
        if obj is None:
            raise unknown_object(config, kind)
        return obj
    if not isinstance(config, dict):
        return config                  # already an object (a function, an instance)
    if "class_name" not in config and plain:     # a plain dict: its values deserialized
        return {key: deserialize_keras_object(value, custom_objects, safe_mode,
                                              module_objects=module_objects)
                for key, value in config.items()}
    if "class_name" not in config or "config" not in config:
        if "class_name" in config:
            config = {**config, "config": {}}
        else:
            raise UnknownObjectError(f"cannot deserialize {kind}: the config has no "
                                     f"'class_name' key; received keys {sorted(config)}. "
                                     f"Expected a dictionary containing a 'config' key "
                                     f"and a 'class_name' key")
    class_name, inner = config["class_name"], config["config"]
    scoped = scoped_safe_mode()
    safe_mode = bool(safe_mode) if scoped is None else scoped    # an outer scope wins
    special = deserialize_special(class_name, inner, kind, safe_mode)
    if special is not NOT_SPECIAL:
        return special
    if class_name == "function":
        return _function(config, inner, kind, custom_objects, module_objects)
    if inner is None:
        inner = {}
    if not isinstance(inner, dict):
        raise ArgumentTypeError(f"cannot deserialize {kind} {class_name!r}: Expected 'config' "
                                f"to be a dict of constructor arguments; received "
                                f"{type(inner).__name__} {inner!r}")
    cls = _resolve(config, class_name, custom_objects, module_objects)
    if cls is None:
        error = unknown_object(config.get("registered_name") or class_name, kind)
        if is_strict_family(config.get("module")):
            error = UnknownObjectError(f"{error} (the config names it in "
                                       f"{config['module']})")
        raise error
    with safe_mode_scope(safe_mode):       # nested objects (a Lambda layer) read it too
        return _instantiate(cls, config, inner, custom_objects)


def _function(config: dict, name, kind: str, custom_objects, module_objects):
    """A function config, ``{"class_name": "function", "config": "name", ...}``: the
    user's objects, then the family's built-in, then the registry; a name saved without
    its package (Keras <= 3.6 wrote ``"fn"`` for ``"Pkg>fn"``) finds a registered
    ``"...>fn"``."""
    if not isinstance(name, str) or not name:
        raise ArgumentTypeError(f"cannot deserialize {kind}: a function config names the "
                                f"function by its registered name. Expected 'config' to be a "
                                f"non-null str; received {type(name).__name__} {name!r}")
    obj = users_object(name, custom_objects, module_objects)
    if obj is not None:
        return obj
    obj = lookup_in_family(config.get("module"), name)
    if obj is None and get_registered_object(name, custom_objects, module_objects) is None:
        obj = _bare_registered(name, custom_objects)
    if obj is None:
        obj = get_registered_object(name, custom_objects, module_objects)
    if obj is None:
        raise unknown_object(name, kind)
    if is_builtin(obj):
        _check_builtin_registered_name(config, name)
    return obj


def _bare_registered(name: str, custom_objects):
    """The one registered or passed object whose ``"package>name"`` ends in ``>name``."""
    if ">" in name:
        return None
    tables = [custom_objects or {}, get_custom_objects()]
    for table in tables:
        for key, value in table.items():
            if key.endswith(">" + name):
                return value
    return None


def _check_builtin_registered_name(config: dict, name: str) -> None:
    """A config resolved to a built-in may carry no other registered name (Keras 3.15
    refuses it: a built-in never registers under a package)."""
    explicit = config.get("registered_name")
    if explicit and explicit not in (name, config.get("class_name")):
        raise UnknownObjectError(
            f"cannot deserialize {name!r}: the config has registered_name={explicit!r}, "
            f"but {name!r} resolved to a Keras built-in, which does not use registered "
            f"names; remove the 'registered_name' field from the config")


def _instantiate(cls, config: dict, inner, custom_objects):
    if not isinstance(cls, type) and not hasattr(cls, "from_config"):
        return cls                     # a function named as a class (old configs)
    if hasattr(cls, "from_config"):
        try:
            if _accepts_custom_objects(cls.from_config):
                obj = cls.from_config(inner, custom_objects=custom_objects)
            else:
                with CustomObjectScope(custom_objects or {}):
                    obj = cls.from_config(inner)
        except TypeError as error:
            if isinstance(error, LaminaError):
                raise
            # Python's own TypeError (a config dict called as a layer, a missing
            # argument): Keras 3 names the usual cause
            raise ArgumentTypeError(
                f"cannot deserialize {config.get('class_name')!r}: {cls.__name__} could "
                f"not be deserialized properly ({type(error).__name__}: {error}). Please "
                f"ensure that components that are Python object instances (layers, "
                f"models, etc.) returned by `get_config()` are explicitly deserialized in "
                f"the model's `from_config()` method") from error
    else:
        raise ArgumentTypeError(
            f"cannot deserialize {config.get('class_name')!r}: Unable to reconstruct an "
            f"instance of '{cls.__name__}' because the class is missing a `from_config()` "
            f"method (a class with get_config() needs from_config(cls, config) too); full "
            f"object config: {config}")
    if config.get("build_config") and hasattr(obj, "build_from_config"):
        obj.build_from_config(config["build_config"])
    if config.get("compile_config") and hasattr(obj, "compile_from_config"):
        obj.compile_from_config(config["compile_config"])
    return obj


def _accepts_custom_objects(method: Callable) -> bool:
    # inspect.signature costs ~50 us, and a model's config calls this for every layer,
    # initializer and dtype policy in it: remember the answer per function.
    function = getattr(method, "__func__", method)
    try:
        return _ACCEPTS_CUSTOM_OBJECTS[function]
    except (KeyError, TypeError):      # TypeError: an unhashable callable
        pass
    try:
        accepts = "custom_objects" in inspect.signature(method).parameters
    except (TypeError, ValueError):
        accepts = False
    try:
        _ACCEPTS_CUSTOM_OBJECTS[function] = accepts
    except TypeError:
        pass
    return accepts


_ACCEPTS_CUSTOM_OBJECTS: dict = {}      # from_config function -> takes custom_objects
