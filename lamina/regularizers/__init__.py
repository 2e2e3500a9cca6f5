"""Regularizers: penalties on weights added to the training loss (Keras 3's
``keras.regularizers``), with ``get``/``serialize``/``deserialize`` in Keras's format."""
from __future__ import annotations

from typing import Any, Callable

from ..registry import register_family, serialize_keras_object
from ..registry.lookup import deserialize_from, get_from
from .regularizers import L1, L1L2, L2, OrthogonalRegularizer, Regularizer

# Keras's lower-case names for the classes.
l1, l2, l1_l2, orthogonal_regularizer = L1, L2, L1L2, OrthogonalRegularizer

ALL_OBJECTS: dict[str, type] = {
    "Regularizer": Regularizer, "L1": L1, "L2": L2, "L1L2": L1L2,
    "OrthogonalRegularizer": OrthogonalRegularizer,
    "regularizer": Regularizer, "l1": L1, "l2": L2, "l1l2": L1L2, "l1_l2": L1L2,
    "orthogonal_regularizer": OrthogonalRegularizer,
}


def serialize(regularizer: Regularizer) -> dict:
    """``{"module": "keras.regularizers", "class_name", "config", "registered_name"}``.

    Args:
        regularizer: a regularizer instance.

    Returns:
        A dict.
    """
    return serialize_keras_object(regularizer)


def deserialize(config, custom_objects: dict | None = None) -> Any:
    """A regularizer from its config dict (or the class a name stands for).

    Args:
        config: a dict from ``serialize`` (or a name).
        custom_objects: a dict of names to users' classes or functions.

    Returns:
        A regularizer.
    """
    return deserialize_from("regularizer", config, ALL_OBJECTS, custom_objects)


def get(identifier) -> Regularizer | Callable | None:
    """A regularizer from None (returned as None), a name ("l1", "l2", "l1_l2", ...; the
    class is built with its defaults), a config dict, an instance or a callable.

    Args:
        identifier: None, a string, a config dict, a regularizer or a callable.

    Returns:
        A regularizer (or the callable), or None.
    """
    if identifier is None:
        return None
    return get_from("regularizer", identifier, ALL_OBJECTS)


register_family("keras.regularizers", lambda: ALL_OBJECTS)

__all__ = ["Regularizer", "L1", "L2", "L1L2", "OrthogonalRegularizer", "l1", "l2", "l1_l2",
           "orthogonal_regularizer", "get", "serialize", "deserialize", "ALL_OBJECTS"]
