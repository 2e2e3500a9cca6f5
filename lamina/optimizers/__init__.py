"""Optimizers (Keras 3's ``keras.optimizers``) and their learning-rate schedules.

``get`` turns what a user writes -- ``compile(optimizer="adam")``, a config dict read from
a file, an instance -- into an optimizer; ``serialize``/``deserialize`` are its config
round trip, in Keras's file format.
"""
from __future__ import annotations

from typing import Any

from ..registry import register_family, serialize_keras_object
from ..registry.lookup import deserialize_from, lookup_name
from . import schedules
from .adadelta import Adadelta
from .adafactor import Adafactor
from .adagrad import Adagrad
from .adam import Adam
from .adamax import Adamax
from .adamw import AdamW
from .ftrl import Ftrl
from .lamb import Lamb
from .lion import Lion
from .loss_scale_optimizer import LossScaleOptimizer
from .multi_optimizer import MultiOptimizer
from .muon import Muon
from .nadam import Nadam
from .optimizer import Optimizer
from .optimizer_map import OptimizerMap
from .rmsprop import RMSprop
from .schedule_free_adamw import ScheduleFreeAdamW
from .sgd import SGD

_CLASSES = (SGD, Adam, AdamW, RMSprop, Adagrad, Adadelta, Adamax, Nadam, Lion, Adafactor, Ftrl,
            Lamb, Muon, ScheduleFreeAdamW, MultiOptimizer)

# Keras looks names up case-insensitively: "adam", "Adam", "RMSprop", "rmsprop", ...
ALL_OBJECTS: dict[str, type] = {cls.__name__: cls for cls in _CLASSES}
ALL_OBJECTS.update({cls.__name__.lower(): cls for cls in _CLASSES})
ALL_OBJECTS["OptimizerMap"] = OptimizerMap
# a wrapper (it needs an inner optimizer), resolvable by name as in Keras's ALL_OBJECTS
ALL_OBJECTS["LossScaleOptimizer"] = LossScaleOptimizer


def _canonical(name: str) -> str:
    return name.lower() if name.lower() in ALL_OBJECTS else name


def serialize(optimizer: Optimizer) -> dict:
    """``{"module": "keras.optimizers", "class_name", "config", "registered_name"}``.

    Args:
        optimizer: an ``Optimizer`` instance.

    Returns:
        A JSON-ready dict.
    """
    return serialize_keras_object(optimizer)


def deserialize(config, custom_objects: dict | None = None) -> Optimizer:
    """An optimizer from its config dict (a name gives a new one with default arguments).

    Args:
        config: the dict ``serialize`` returned, or an optimizer's name.
        custom_objects: a dict ``{name: class}`` for custom optimizers.

    Returns:
        An ``Optimizer`` instance.
    """
    if isinstance(config, str):
        config = {"class_name": config, "config": {}}
    if isinstance(config, dict) and isinstance(config.get("class_name"), str):
        config = {**config, "class_name": _canonical(config["class_name"])}
    return deserialize_from("optimizer", config, ALL_OBJECTS, custom_objects)


def get(identifier) -> Optimizer | None:
    """An optimizer from None (returned as None), a name such as "adam", a config dict or
    an instance (returned as is).

    Args:
        identifier: None, a string such as ``"adam"``, a config dict or an ``Optimizer``.

    Returns:
        An ``Optimizer`` (or None).

    Example:

    >>> import lamina as keras
    >>> keras.optimizers.get("sgd").learning_rate.numpy()
    array(0.01, dtype=float32)
    """
    if identifier is None:
        return None
    if isinstance(identifier, str):
        obj = lookup_name("optimizer", _canonical(identifier), ALL_OBJECTS)
        obj = obj() if isinstance(obj, type) else obj
    elif isinstance(identifier, dict):
        obj = deserialize(identifier)
    else:
        obj = identifier
    if isinstance(obj, Optimizer):
        return obj
    raise ValueError(f"optimizers.get: could not interpret optimizer identifier "
                     f"{identifier!r} (argument 'identifier'); expected None, one of "
                     f"{sorted(cls.__name__.lower() for cls in _CLASSES)}, a config dict "
                     f"or an Optimizer instance")


register_family("keras.optimizers", lambda: ALL_OBJECTS)

__all__ = ["Optimizer", "get", "serialize", "deserialize", "schedules", "ALL_OBJECTS",
           "LossScaleOptimizer",
           "OptimizerMap",
           *(cls.__name__ for cls in _CLASSES)]
