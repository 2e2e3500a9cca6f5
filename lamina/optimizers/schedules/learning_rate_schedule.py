"""The learning-rate schedule contract, and the argument checks the schedules share.

A schedule is a callable ``schedule(step) -> scalar tensor`` that an optimizer evaluates
at ``optimizer.iterations`` on every step. It is written with Lamina ops on the step
tensor (never with Python numbers read from it), so a compiled training step can replay
it. ``get_config()`` returns the constructor arguments; ``from_config`` calls the
constructor.

>>> class InverseStep(LearningRateSchedule):
...     def __init__(self, initial_learning_rate):
...         self.initial_learning_rate = initial_learning_rate
...     def __call__(self, step):
...         return self.initial_learning_rate / (step_as_float(step) + 1.0)
...     def get_config(self):
...         return {"initial_learning_rate": self.initial_learning_rate}
"""
from __future__ import annotations

import numbers

from ... import ops
from ...core.tensor import TensorBase
from ...dtypes import floatx


class LearningRateSchedule:
    """Base class of learning-rate schedules (Keras 3's
    ``keras.optimizers.schedules.LearningRateSchedule``)."""

    _keras_module = "keras.optimizers.schedules"

    def __call__(self, step):
        raise NotImplementedError(f"Learning rate schedule '{type(self).__name__}' must "
                                  f"override `__call__(self, step)`")

    def get_config(self) -> dict:
        raise NotImplementedError(f"Learning rate schedule '{type(self).__name__}' must "
                                  f"override `get_config()` in order to be serializable")

    @classmethod
    def from_config(cls, config: dict) -> "LearningRateSchedule":
        return cls(**config)

    def __repr__(self) -> str:
        try:
            args = ", ".join(f"{k}={v!r}" for k, v in self.get_config().items())
        except NotImplementedError:
            args = ""
        return f"{type(self).__name__}({args})"


def step_as_float(step, dtype: str | None = None) -> TensorBase:
    """``step`` (an int, or an integer tensor such as ``optimizer.iterations``) as a float
    tensor of ``dtype`` (default ``floatx()``, the dtype Keras computes schedules in)."""
    if not isinstance(step, TensorBase):
        step = ops.convert_to_tensor(step)
    return ops.cast(step, dtype or floatx())


def _scalar_value(tensor):
    """A scalar tensor's value as a Python number; a float32 value as the shortest decimal
    that rounds to it (0.001, not 0.0010000000474974513), so configs read as written."""
    array = tensor.numpy()
    if "float" in str(array.dtype):
        return float(str(array))
    return array.item()


def check_number(owner: str, arg: str, value, *, positive: bool = False,
                 non_negative: bool = False):
    """``value`` unchanged if it is a real, finite number meeting the bound; else an error
    that names the schedule (or optimizer) and the argument. A scalar tensor or Variable
    (``PolynomialDecay(optimizer.learning_rate, ...)``, as Keras allows) gives its value."""
    if isinstance(value, TensorBase) and tuple(value.shape) == ():
        value = _scalar_value(value)
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{owner}: argument '{arg}' must be a number; received {value!r} "
                        f"of type {type(value).__name__}")
    if value != value or value in (float("inf"), float("-inf")):
        raise ValueError(f"{owner}: argument '{arg}' must be finite; received {value}")
    if positive and value <= 0:
        raise ValueError(f"{owner}: argument '{arg}' must be > 0; received {value}")
    if non_negative and value < 0:
        raise ValueError(f"{owner}: argument '{arg}' must be >= 0; received {value}")
    return value.item() if hasattr(value, "item") else value
