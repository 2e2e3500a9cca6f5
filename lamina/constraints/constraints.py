"""Weight constraints: projections applied to a weight after each optimizer step (Keras 3's
``keras.constraints``).

``constraint(w)`` returns the projected value (built from ops); the optimizer assigns it
back to the variable. Norms are taken over ``axis`` (0 by default: for a Dense kernel of
shape (in, out) that is each unit's incoming weight vector), and ``epsilon()`` guards the
division, as in Keras.
"""
from __future__ import annotations

import numbers

from .. import ops
from ..core.tensor import Tensor, TensorBase
from ..settings import epsilon
from ..registry import register_builtin


def _number(name: str, arg: str, value, low: float | None = None,
            high: float | None = None) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name}: argument '{arg}' must be a number; received {value!r} "
                        f"of type {type(value).__name__}")
    if (low is not None and value < low) or (high is not None and value > high):
        bounds = f"in [{low}, {high}]" if high is not None else f">= {low}"
        raise ValueError(f"{name}: argument '{arg}' must be {bounds}; received {value}")
    return value


def _axis(name: str, axis):
    """An int or a list/tuple of ints (kept as given, for the config)."""
    items = axis if isinstance(axis, (list, tuple)) else [axis]
    if not items or any(isinstance(a, bool) or not isinstance(a, numbers.Integral)
                        for a in items):
        raise TypeError(f"{name}: argument 'axis' must be an int or a list of ints; "
                        f"received {axis!r}")
    return list(axis) if isinstance(axis, tuple) else axis


def _norms(w, axis) -> Tensor:
    axis = tuple(axis) if isinstance(axis, list) else axis
    return ops.sqrt(ops.sum(ops.square(w), axis=axis, keepdims=True))


def _as_tensor(w) -> Tensor:
    return w if isinstance(w, TensorBase) else ops.convert_to_tensor(w)


@register_builtin
class Constraint:
    """Base class: ``__call__(w)`` returns the constrained value (here ``w`` itself)."""

    _keras_module = "keras.constraints"

    def __call__(self, w) -> Tensor:
        return _as_tensor(w)

    def get_config(self) -> dict:
        return {}

    @classmethod
    def from_config(cls, config: dict) -> "Constraint":
        return cls(**config)

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_config().items())
        return f"{type(self).__name__}({args})"


@register_builtin
class MaxNorm(Constraint):
    """Rescales vectors whose norm exceeds ``max_value``:
    ``w * clip(norm, 0, max_value) / (epsilon + norm)``.

    Args:
        max_value: the largest norm allowed.
        axis: the axis (or axes) along which norms are taken: 0 for a Dense kernel's
            columns, ``[0, 1, 2]`` for a Conv2D kernel's filters.
    """

    def __init__(self, max_value: float = 2, axis=0) -> None:
        self.max_value = _number("MaxNorm", "max_value", max_value, low=0)
        self.axis = _axis("MaxNorm", axis)

    def __call__(self, w) -> Tensor:
        w = _as_tensor(w)
        norms = _norms(w, self.axis)
        desired = ops.clip(norms, 0, self.max_value)
        return ops.multiply(w, ops.divide(desired, ops.add(norms, epsilon())))

    def get_config(self) -> dict:
        return {"max_value": self.max_value, "axis": self.axis}


@register_builtin
class MinMaxNorm(Constraint):
    """Moves norms into [min_value, max_value] at ``rate``: the new norm is
    ``rate * clip(norm, min_value, max_value) + (1 - rate) * norm``.

    Args:
        min_value: the smallest norm allowed.
        max_value: the largest norm allowed.
        rate: how far to move towards the range each step, in [0, 1].
        axis: the axis (or axes) along which norms are taken.
    """

    def __init__(self, min_value: float = 0.0, max_value: float = 1.0, rate: float = 1.0,
                 axis=0) -> None:
        self.min_value = _number("MinMaxNorm", "min_value", min_value, low=0)
        self.max_value = _number("MinMaxNorm", "max_value", max_value, low=self.min_value)
        self.rate = _number("MinMaxNorm", "rate", rate, low=0, high=1)
        self.axis = _axis("MinMaxNorm", axis)

    def __call__(self, w) -> Tensor:
        w = _as_tensor(w)
        norms = _norms(w, self.axis)
        clipped = ops.clip(norms, self.min_value, self.max_value)
        desired = ops.add(ops.multiply(clipped, self.rate), ops.multiply(norms, 1 - self.rate))
        return ops.multiply(w, ops.divide(desired, ops.add(norms, epsilon())))

    def get_config(self) -> dict:
        return {"min_value": self.min_value, "max_value": self.max_value,
                "rate": self.rate, "axis": self.axis}


@register_builtin
class NonNeg(Constraint):
    """Zeroes the negative entries."""

    def __call__(self, w) -> Tensor:
        w = _as_tensor(w)
        return ops.multiply(w, ops.cast(ops.greater_equal(w, 0), w.dtype))


@register_builtin
class UnitNorm(Constraint):
    """Scales vectors to unit norm: ``w / (epsilon + norm)``.

    Args:
        axis: the axis (or axes) along which norms are taken.
    """

    def __init__(self, axis=0) -> None:
        self.axis = _axis("UnitNorm", axis)

    def __call__(self, w) -> Tensor:
        w = _as_tensor(w)
        return ops.divide(w, ops.add(_norms(w, self.axis), epsilon()))

    def get_config(self) -> dict:
        return {"axis": self.axis}
