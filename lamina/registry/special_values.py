"""Values Keras writes as ``{"class_name": "__bytes__" | "__slice__" | "__ellipsis__" |
"__numpy__" | "__tensor__" | "__lambda__", "config": ...}``, and back.

Tensors: the registry knows no tensor type. The package that defines tensors and their
conversion registers them with :func:`register_tensor_type` (``lamina.ops`` does, with
``convert_to_tensor``), so the registry imports nothing above it.
"""
from __future__ import annotations

import base64
import marshal
import warnings
from typing import Any, Callable

import numpy as np

from .object_registration import UnknownObjectError

# (tensor type, tensor -> host array, host array -> tensor), once registered.
_TENSOR: list[tuple[type, Callable[[Any], Any], Callable[[Any], Any]]] = []

NOT_SPECIAL = object()


def register_tensor_type(tensor_type: type, to_numpy: Callable[[Any], Any],
                         from_numpy: Callable[[Any], Any]) -> None:
    """Serialize instances of ``tensor_type`` as ``__tensor__`` (their value from
    ``to_numpy(tensor)``) and deserialize ``__tensor__`` with ``from_numpy(array)``.
    Registering again replaces the previous tensor type."""
    if not isinstance(tensor_type, type):
        raise TypeError(f"register_tensor_type: argument 'tensor_type' must be a class; "
                        f"received {tensor_type!r}")
    for arg, fn in (("to_numpy", to_numpy), ("from_numpy", from_numpy)):
        if not callable(fn):
            raise TypeError(f"register_tensor_type: argument '{arg}' must be callable; "
                            f"received {type(fn).__name__}")
    _TENSOR[:] = [(tensor_type, to_numpy, from_numpy)]


def serialize_special(obj, serialize: Callable[[Any], Any]):
    """bytes, slices, Ellipsis, numpy values and tensors, as Keras writes them; None for
    anything else. ``serialize`` writes a slice's bounds."""
    if isinstance(obj, bytes):
        return {"class_name": "__bytes__", "config": {"value": obj.decode("utf-8")}}
    if isinstance(obj, slice):
        return {"class_name": "__slice__",
                "config": {"start": serialize(obj.start), "stop": serialize(obj.stop),
                           "step": serialize(obj.step)}}
    if obj is Ellipsis:
        return {"class_name": "__ellipsis__", "config": {}}
    if isinstance(obj, np.ndarray) and obj.ndim > 0:
        return {"class_name": "__numpy__",
                "config": {"value": obj.tolist(), "dtype": str(obj.dtype)}}
    if isinstance(obj, (np.generic, np.ndarray)):
        return obj.item()
    if _TENSOR and isinstance(obj, _TENSOR[0][0]):
        value = np.asarray(_TENSOR[0][1](obj))
        return {"class_name": "__tensor__",
                "config": {"value": value.tolist(), "dtype": str(value.dtype)}}
    return None


def serialize_lambda(fn) -> dict:
    warnings.warn("The object being serialized includes a `lambda`. Lamina writes its "
                  "bytecode as Keras does, but never loads it back: pass the function in "
                  "custom_objects or use a named, registered function instead.",
                  stacklevel=3)
    code = base64.encodebytes(marshal.dumps(fn.__code__)).decode("ascii")
    return {"class_name": "__lambda__", "config": {"value": [code, None, None]}}


def deserialize_special(class_name, inner, kind: str, safe_mode: bool):
    """The value of a special config, or :data:`NOT_SPECIAL` for a class's config."""
    if class_name == "__lambda__":
        if safe_mode:
            raise UnknownObjectError(
                f"Requested the deserialization of a Python `lambda` ({kind}): loading its "
                f"bytecode carries a potential risk of arbitrary code execution, so safe "
                f"mode refuses it (safe_mode=True). Pass the "
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
        if not _TENSOR:
            raise UnknownObjectError(f"cannot deserialize a tensor ({kind}): no tensor type "
                                     f"is registered (lamina.ops registers one when it is "
                                     f"imported)")
        return _TENSOR[0][2](value)
    return NOT_SPECIAL
