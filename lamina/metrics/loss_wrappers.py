"""``FixedFunctionMetric``: the weighted mean of one fixed loss-style function, with the
function's keyword arguments as attributes and in the config (Keras's pattern for
``BinaryCrossentropy``, ``Hinge``, ``PearsonCorrelation`` ... as metrics)."""
from __future__ import annotations

from ..registry import get_registered_object, register_builtin
from .reduction_metrics import MeanMetricWrapper


def register_metric(cls):
    """``register_builtin`` for a metric that shares its class name with a loss
    (``BinaryCrossentropy``, ``Hinge`` ...): the metric serializes as a built-in of
    "keras.metrics", while the bare name in the global registry stays the loss's, as it
    was before the metric existed (``lamina.metrics.deserialize`` finds the metric through
    its own table). The generic ``deserialize_keras_object`` does not read "module" yet."""
    taken = get_registered_object(cls.__name__)
    register_builtin(cls)
    if getattr(taken, "_keras_module", None) == "keras.losses":
        register_builtin(taken)
    return cls


class FixedFunctionMetric(MeanMetricWrapper):
    """A ``MeanMetricWrapper`` whose function the class fixes.

    ``config_keys`` are the keyword arguments written to the config (after ``name`` and
    ``dtype``); each is also an attribute. ``direction`` is "up" for a score, "down" for
    an error.
    """

    config_keys: tuple = ()

    def __init__(self, fn, name, dtype, direction: str = "down", **kwargs):
        super().__init__(fn=fn, name=name, dtype=dtype, **kwargs)
        for key, value in kwargs.items():
            setattr(self, key, value)
        self._direction = direction

    def get_config(self) -> dict:
        config = {"name": self.name, "dtype": self.dtype}
        config.update({key: getattr(self, key) for key in self.config_keys})
        return config

    @classmethod
    def from_config(cls, config: dict, custom_objects: dict | None = None):
        return cls(**config)
