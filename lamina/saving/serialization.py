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

import base64
import inspect
import marshal
import types
import warnings
from typing import Any, Callable

import numpy as np

from .object_registration import (CustomObjectScope, UnknownObjectError, get_registered_name,
                                   get_registered_object, is_builtin,
                                   unknown_object)

_PLAIN = (str, int, float, bool)


# --------------------------------------------------------------------------- serialize
def serialize_keras_object(obj) -> Any:
    """``obj`` as Keras 3 writes it: plain values as they are, lists and dicts walked,
    functions as ``{"module": "builtins", "class_name": "function", ...}``, objects with
    ``get_config`` as ``{"module", "class_name", "config", "registered_name"}`` with their
    config serialized in turn."""
    if obj is None or isinstance(obj, _PLAIN):
        return obj
    if isinstance(obj, (list, tuple)):
        return [serialize_keras_object(item) for item in obj]
    if isinstance(obj, dict):
        return serialize_dict(obj)
    special = _serialize_special(obj)
    if special is not None:
        return special
    if isinstance(obj, (types.FunctionType, types.BuiltinFunctionType)) or (
            callable(obj) and not hasattr(obj, "get_config") and hasattr(obj, "__name__")):
        if getattr(obj, "__name__", None) == "<lambda>":
            return _serialize_lambda(obj)
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


def _serialize_special(obj):
    """bytes, slices, Ellipsis, numpy values and tensors, as Keras writes them."""
    if isinstance(obj, bytes):
        return {"class_name": "__bytes__", "config": {"value": obj.decode("utf-8")}}
    if isinstance(obj, slice):
        return {"class_name": "__slice__",
                "config": {"start": serialize_keras_object(obj.start),
                           "stop": serialize_keras_object(obj.stop),
                           "step": serialize_keras_object(obj.step)}}
    if obj is Ellipsis:
        return {"class_name": "__ellipsis__", "config": {}}
    if isinstance(obj, np.ndarray) and obj.ndim > 0:
        return {"class_name": "__numpy__",
                "config": {"value": obj.tolist(), "dtype": str(obj.dtype)}}
    if isinstance(obj, (np.generic, np.ndarray)):
        return obj.item()
    from ..autograd.tensor import Tensor
    if isinstance(obj, Tensor):
        value = np.asarray(obj.numpy())
        return {"class_name": "__tensor__",
                "config": {"value": value.tolist(), "dtype": str(value.dtype)}}
    return None


def _serialize_lambda(fn) -> dict:
    warnings.warn("The object being serialized includes a `lambda`. Lamina writes its "
                  "bytecode as Keras does, but never loads it back: pass the function in "
                  "custom_objects or use a named, registered function instead.",
                  stacklevel=3)
    code = base64.encodebytes(marshal.dumps(fn.__code__)).decode("ascii")
    return {"class_name": "__lambda__", "config": {"value": [code, None, None]}}


# --------------------------------------------------------------------------- deserialize
def _family_tables() -> dict[str, Callable[[], dict]]:
    """Keras module name -> the Lamina table of that family's built-ins."""
    from .. import (activations, callbacks, constraints, initializers, losses, metrics,
                    optimizers, regularizers)
    from ..layers import _layer_table

    def keras_root():
        from .. import models
        return {"Sequential": models.Sequential, "Model": models.Model,
                "Functional": models.Functional}
    return {"keras.layers": _layer_table, "keras.regularizers": lambda: regularizers.ALL_OBJECTS,
            "keras.initializers": lambda: initializers.ALL_OBJECTS,
            "keras.constraints": lambda: constraints.ALL_OBJECTS,
            "keras.losses": lambda: losses.ALL_OBJECTS,
            "keras.metrics": lambda: metrics.ALL_OBJECTS,
            "keras.optimizers": lambda: optimizers.ALL_OBJECTS,
            "keras.activations": lambda: activations.ALL_OBJECTS,
            "keras.callbacks": lambda: callbacks.ALL_OBJECTS,
            "keras.models": keras_root, "keras": keras_root,
            "keras.src.models.functional": keras_root}


def _from_module(module, name: str):
    if not isinstance(module, str):
        return None
    getter = _family_tables().get(module)
    if getter is None and module.startswith("keras.optimizers.schedules"):
        from ..optimizers import schedules
        return getattr(schedules, name, None)
    return getter().get(name) if getter is not None else None


def _users_object(name: str, custom_objects, module_objects):
    """``name`` in the custom object scopes, ``custom_objects`` or ``module_objects``."""
    from .object_registration import _scope
    for table in [*reversed(getattr(_scope, "stack", [])), custom_objects or {},
                  module_objects or {}]:
        if name in table:
            return table[name]
    return None


def _resolve(config: dict, class_name: str, custom_objects, module_objects):
    """The user's objects first, then the family the Keras module names, then the
    registry (``"package>Name"`` for registered classes)."""
    registered = config.get("registered_name") or class_name
    obj = _users_object(registered, custom_objects, module_objects)
    if obj is None and ">" in registered:     # a registered class beats a same-named built-in
        obj = get_registered_object(registered, custom_objects, module_objects)
    if obj is None:
        obj = _users_object(class_name, custom_objects, module_objects)
    if obj is not None:
        return obj
    module = config.get("module")
    obj = _from_module(module, class_name)
    if obj is not None:
        return obj
    obj = (get_registered_object(registered, custom_objects, module_objects)
           or get_registered_object(class_name, custom_objects, module_objects))
    if obj is not None and module in _STRICT_FAMILIES and is_builtin(obj):
        return None       # another family's built-in of that name (a loss for a metric)
    return obj


# Keras modules whose built-ins Lamina lists in one table: a name missing there is unknown,
# never another family's class of the same name.
_STRICT_FAMILIES = ("keras.layers", "keras.regularizers", "keras.initializers",
                    "keras.constraints", "keras.losses", "keras.metrics", "keras.optimizers",
                    "keras.activations", "keras.callbacks")


def deserialize_keras_object(config, custom_objects=None, safe_mode=True, **kwargs):
    """The inverse of :func:`serialize_keras_object` (Keras 3's signature). ``kwargs``:
    ``module_objects`` (a table searched like ``custom_objects``) and ``kind`` (the word
    used in errors). A lambda is refused: with ``safe_mode=True`` as Keras refuses it, and
    with ``safe_mode=False`` too, because Lamina never runs bytecode from a config."""
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
    if isinstance(config, str):
        obj = get_registered_object(config, custom_objects, module_objects)
        if obj is None:
            raise unknown_object(config, kind)
        return obj
    if not isinstance(config, dict):
        return config                  # already an object (a function, an instance)
    if "class_name" not in config or "config" not in config:
        if "class_name" in config:
            config = {**config, "config": {}}
        else:
            raise UnknownObjectError(f"cannot deserialize {kind}: the config has no "
                                     f"'class_name' key; received keys {sorted(config)}")
    class_name, inner = config["class_name"], config["config"]
    from .saving_api import _SAFE_MODE
    scoped = getattr(_SAFE_MODE, "value", None)
    safe_mode = bool(safe_mode) if scoped is None else scoped    # an outer scope wins
    special = _deserialize_special(class_name, inner, kind, safe_mode)
    if special is not _NOT_SPECIAL:
        return special
    if class_name == "function":
        name = inner
        obj = (_users_object(name, custom_objects, module_objects)
               or _from_module(config.get("module"), name)
               or get_registered_object(name, custom_objects, module_objects))
        if obj is None:
            raise unknown_object(name, kind)
        return obj
    cls = _resolve(config, class_name, custom_objects, module_objects)
    if cls is None:
        error = unknown_object(config.get("registered_name") or class_name, kind)
        if config.get("module") in _STRICT_FAMILIES:
            error = UnknownObjectError(f"{error} (the config names it in "
                                       f"{config['module']})")
        raise error
    from .saving_api import safe_mode_scope
    with safe_mode_scope(safe_mode):       # nested objects (a Lambda layer) read it too
        return _instantiate(cls, config, inner, custom_objects)


def _instantiate(cls, config: dict, inner, custom_objects):
    if not isinstance(cls, type) and not hasattr(cls, "from_config"):
        return cls                     # a function named as a class (old configs)
    if hasattr(cls, "from_config"):
        if _accepts_custom_objects(cls.from_config):
            obj = cls.from_config(inner, custom_objects=custom_objects)
        else:
            with CustomObjectScope(custom_objects or {}):
                obj = cls.from_config(inner)
    else:
        obj = cls(**inner)
    if config.get("build_config") and hasattr(obj, "build_from_config"):
        obj.build_from_config(config["build_config"])
    if config.get("compile_config") and hasattr(obj, "compile_from_config"):
        obj.compile_from_config(config["compile_config"])
    return obj


_NOT_SPECIAL = object()


def _deserialize_special(class_name, inner, kind: str, safe_mode: bool):
    if class_name == "__lambda__":
        if safe_mode:
            raise UnknownObjectError(
                f"Requested the deserialization of a Python `lambda` ({kind}): loading its "
                f"bytecode is unsafe, so safe mode refuses it (safe_mode=True). Pass the "
                f"function in custom_objects instead: Python bytecode is something Lamina "
                f"never runs from a file")
        raise UnknownObjectError(
            f"cannot deserialize a Python `lambda` ({kind}) even with safe_mode=False: its "
            f"bytecode is something Lamina never runs from a file; pass the function in "
            f"custom_objects instead")
    if class_name == "__bytes__":
        return inner["value"].encode("utf-8")
    if class_name == "__slice__":
        return slice(inner["start"], inner["stop"], inner["step"])
    if class_name == "__ellipsis__":
        return Ellipsis
    if class_name in ("__numpy__", "__tensor__"):
        value = np.array(inner["value"], dtype=inner["dtype"])
        if class_name == "__numpy__":
            return value
        from ..ops import convert_to_tensor
        return convert_to_tensor(value)
    return _NOT_SPECIAL


def _accepts_custom_objects(method: Callable) -> bool:
    try:
        return "custom_objects" in inspect.signature(method).parameters
    except (TypeError, ValueError):
        return False
