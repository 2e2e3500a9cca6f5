"""Constraints: projections applied to weights after each optimizer step (Keras 3's
``keras.constraints``), with ``get``/``serialize``/``deserialize`` in Keras's format."""
from __future__ import annotations

from typing import Any, Callable

from ..registry import register_family, serialize_keras_object
from ..registry.lookup import deserialize_from, get_from
from .constraints import Constraint, MaxNorm, MinMaxNorm, NonNeg, UnitNorm

# Keras's snake-case names for the classes.
max_norm, min_max_norm, non_neg, unit_norm = MaxNorm, MinMaxNorm, NonNeg, UnitNorm

ALL_OBJECTS: dict[str, type] = {
    "Constraint": Constraint, "MaxNorm": MaxNorm, "MinMaxNorm": MinMaxNorm,
    "NonNeg": NonNeg, "UnitNorm": UnitNorm,
    "constraint": Constraint, "max_norm": MaxNorm, "min_max_norm": MinMaxNorm,
    "non_neg": NonNeg, "unit_norm": UnitNorm,
}


def serialize(constraint: Constraint) -> dict:
    """``{"module": "keras.constraints", "class_name", "config", "registered_name"}``.

    Args:
        constraint: a constraint instance.

    Returns:
        A dict.
    """
    return serialize_keras_object(constraint)


def deserialize(config, custom_objects: dict | None = None) -> Any:
    """A constraint from its config dict (or the class a name stands for).

    Args:
        config: a dict from ``serialize`` (or a name).
        custom_objects: a dict of names to users' classes or functions.

    Returns:
        A constraint.
    """
    return deserialize_from("constraint", config, ALL_OBJECTS, custom_objects)


def get(identifier) -> Constraint | Callable | None:
    """A constraint from None (returned as None), a name ("max_norm", "NonNeg", ...; built
    with its defaults), a config dict, an instance or a callable ``w -> w``.

    Args:
        identifier: None, a string, a config dict, a constraint or a callable.

    Returns:
        A constraint (or the callable), or None.
    """
    if identifier is None:
        return None
    return get_from("constraint", identifier, ALL_OBJECTS)


register_family("keras.constraints", lambda: ALL_OBJECTS)

__all__ = ["Constraint", "MaxNorm", "MinMaxNorm", "NonNeg", "UnitNorm", "max_norm",
           "min_max_norm", "non_neg", "unit_norm", "get", "serialize", "deserialize",
           "ALL_OBJECTS"]
