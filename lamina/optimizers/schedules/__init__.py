"""Learning-rate schedules (Keras 3's ``keras.optimizers.schedules``).

Pass one as an optimizer's ``learning_rate``; the optimizer evaluates it at
``optimizer.iterations`` on every step. ``serialize``/``deserialize`` are the config
round trip in Keras's file format.
"""
from __future__ import annotations

from typing import Any

from ...registry import register_family, serialize_keras_object
from ...registry.lookup import deserialize_from
from .cosine_decay import CosineDecay, CosineDecayRestarts
from .decay_schedules import (ExponentialDecay, InverseTimeDecay, PiecewiseConstantDecay,
                              PolynomialDecay)
from .learning_rate_schedule import LearningRateSchedule

_CLASSES = (ExponentialDecay, InverseTimeDecay, PiecewiseConstantDecay, PolynomialDecay,
            CosineDecay, CosineDecayRestarts)

ALL_OBJECTS: dict[str, type] = {cls.__name__: cls for cls in _CLASSES}


def serialize(learning_rate_schedule: LearningRateSchedule) -> dict:
    """Return the config of a learning rate schedule, as Keras 3 writes it.

    Args:
        learning_rate_schedule: A ``LearningRateSchedule``.

    Returns:
        A dict ``{"module": "keras.optimizers.schedules", "class_name", "config",
        "registered_name"}``.

    Example:

    >>> serialize(ExponentialDecay(0.1, 100, 0.5))["class_name"]
    'ExponentialDecay'
    """
    return serialize_keras_object(learning_rate_schedule)


def deserialize(config, custom_objects: dict | None = None) -> Any:
    """Rebuild a learning rate schedule from its config.

    Args:
        config: A dict made by :func:`serialize` (or read from a Keras file).
        custom_objects: An optional dict of name -> class for the user's own schedules.

    Returns:
        The ``LearningRateSchedule``.

    Example:

    >>> schedule = deserialize(serialize(ExponentialDecay(0.1, 100, 0.5)))
    >>> schedule.decay_rate
    0.5
    """
    return deserialize_from("learning rate schedule", config, ALL_OBJECTS, custom_objects)


# Configs of "keras.optimizers.schedules" (and its submodules, as older Keras wrote them)
# resolve to a name of this module (the lambda reads this module's globals at each lookup);
# other names fall through to the registry.
register_family("keras.optimizers.schedules", lambda: globals(), strict=False,
                submodules=True)

__all__ = ["LearningRateSchedule", "serialize", "deserialize", "ALL_OBJECTS",
           *(cls.__name__ for cls in _CLASSES)]
