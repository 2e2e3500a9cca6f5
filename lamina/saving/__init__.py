"""Serialization: the registry of names (``register_keras_serializable``, custom object
scopes) and Keras-style ``serialize_keras_object`` / ``deserialize_keras_object``."""
from .object_registration import (CustomObjectScope, UnknownObjectError, custom_object_scope,
                                  deserialize_keras_object, get_custom_objects,
                                  get_registered_name, get_registered_object,
                                  register_keras_serializable, serialize_keras_object)

__all__ = ["CustomObjectScope", "UnknownObjectError", "custom_object_scope",
           "deserialize_keras_object", "get_custom_objects", "get_registered_name",
           "get_registered_object", "register_keras_serializable", "serialize_keras_object"]
