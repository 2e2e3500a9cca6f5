"""The registry: names of classes and functions, and configs made of them.

- Object registration: Lamina's built-ins (``register_builtin``) and users' classes
  (``register_keras_serializable``, custom object scopes).
- Name lookup by family: each family package registers the table of its built-ins under
  the Keras module that configs name (``register_family("keras.losses", ...)``), and its
  ``get`` / ``deserialize`` use :mod:`.lookup` on that table.
- Keras 3's ``serialize_keras_object`` / ``deserialize_keras_object``, and safe mode.

It sits below ``ops`` and every family, and imports none of them (of Lamina, only
``lamina.errors``): families register themselves here, and ``lamina.ops`` registers the
tensor type (:func:`register_tensor_type`). ``lamina.saving`` and ``lamina.utils``
re-export the public names.
"""
from .families import (family_table, is_strict_family, lookup_in_family, register_family,
                       registered_families)
from .object_registration import (CustomObjectScope, UnknownObjectError, custom_object_scope,
                                  get_custom_objects, get_registered_name,
                                  get_registered_object, is_builtin, register_builtin,
                                  register_keras_serializable, unknown_object)
from .safe_mode import in_safe_mode, safe_mode_scope
from .serialization import deserialize_keras_object, serialize_keras_object
from .special_values import register_tensor_type

__all__ = ["CustomObjectScope", "UnknownObjectError", "custom_object_scope",
           "deserialize_keras_object", "family_table", "get_custom_objects",
           "get_registered_name", "get_registered_object", "in_safe_mode", "is_builtin",
           "is_strict_family", "lookup_in_family", "register_builtin", "register_family",
           "register_keras_serializable", "register_tensor_type", "registered_families",
           "safe_mode_scope", "serialize_keras_object", "unknown_object"]
