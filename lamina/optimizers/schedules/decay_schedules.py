"""Exponential, inverse-time, polynomial and piecewise-constant decay (Keras 3 formulas).

Each one is computed in ``floatx()`` from the step tensor with Lamina ops; ``staircase``
floors the exponent and ``cycle`` restarts the polynomial at multiples of ``decay_steps``.
"""
from __future__ import annotations

from ... import ops
from ...core.tensor import TensorBase
from ...dtypes import floatx, is_int
from ...registry import register_builtin
from .learning_rate_schedule import LearningRateSchedule, check_number, step_as_float


class _RatioDecay(LearningRateSchedule):
    """Shared by the schedules of ``step / decay_steps`` (floored when ``staircase``)."""

    def __init__(self, initial_learning_rate, decay_steps, decay_rate, staircase, name):
        owner = type(self).__name__
        self.initial_learning_rate = check_number(owner, "initial_learning_rate",
                                                  initial_learning_rate)
        self.decay_steps = check_number(owner, "decay_steps", decay_steps, positive=True)
        self.decay_rate = check_number(owner, "decay_rate", decay_rate)
        self.staircase = bool(staircase)
        self.name = name

    def _ratio(self, step):
        p = step_as_float(step) / float(self.decay_steps)
        return ops.floor(p) if self.staircase else p

    def get_config(self) -> dict:
        return {"initial_learning_rate": self.initial_learning_rate,
                "decay_steps": self.decay_steps, "decay_rate": self.decay_rate,
                "staircase": self.staircase, "name": self.name}


@register_builtin
class ExponentialDecay(_RatioDecay):
    """A learning rate that decays exponentially with the step.

    The rate at ``step`` is ``initial_learning_rate * decay_rate ** (step / decay_steps)``;
    with ``staircase`` the exponent is floored, so the rate drops every ``decay_steps``.

    Args:
        initial_learning_rate: The starting rate, a float.
        decay_steps: The number of steps per power of ``decay_rate``, a positive number.
        decay_rate: The factor the rate is multiplied by every ``decay_steps``.
        staircase: If ``True``, decay in steps instead of continuously. Defaults to
            ``False``.
        name: The schedule's name. Defaults to ``"ExponentialDecay"``.

    Example:

    >>> schedule = ExponentialDecay(0.1, decay_steps=100, decay_rate=0.5)
    >>> round(float(schedule(200)), 4)
    0.025
    """

    def __init__(self, initial_learning_rate, decay_steps, decay_rate, staircase=False,
                 name="ExponentialDecay"):
        super().__init__(initial_learning_rate, decay_steps, decay_rate, staircase, name)

    def __call__(self, step):
        return ops.multiply(float(self.initial_learning_rate),
                            ops.power(float(self.decay_rate), self._ratio(step)))


@register_builtin
class InverseTimeDecay(_RatioDecay):
    """A learning rate that decays as the inverse of time.

    The rate at ``step`` is ``initial_learning_rate / (1 + decay_rate * step /
    decay_steps)``; with ``staircase`` the ratio ``step / decay_steps`` is floored.

    Args:
        initial_learning_rate: The starting rate, a float.
        decay_steps: The number of steps per unit of decay, a positive number.
        decay_rate: How fast the rate decays.
        staircase: If ``True``, decay in steps instead of continuously. Defaults to
            ``False``.
        name: The schedule's name. Defaults to ``"InverseTimeDecay"``.

    Example:

    >>> schedule = InverseTimeDecay(0.1, decay_steps=10, decay_rate=1.0)
    >>> round(float(schedule(10)), 4)
    0.05
    """

    def __init__(self, initial_learning_rate, decay_steps, decay_rate, staircase=False,
                 name="InverseTimeDecay"):
        super().__init__(initial_learning_rate, decay_steps, decay_rate, staircase, name)

    def __call__(self, step):
        denominator = ops.add(1.0, ops.multiply(float(self.decay_rate), self._ratio(step)))
        return ops.divide(float(self.initial_learning_rate), denominator)


@register_builtin
class PolynomialDecay(LearningRateSchedule):
    """A learning rate that decays along a polynomial to an end rate.

    The rate at ``step`` is ``(initial - end) * (1 - step / decay_steps) ** power + end``,
    with ``step`` capped at ``decay_steps``; with ``cycle`` the horizon grows to the next
    multiple of ``decay_steps`` instead.

    Args:
        initial_learning_rate: The starting rate, a float.
        decay_steps: The number of steps to decay over, a positive number.
        end_learning_rate: The rate reached at ``decay_steps``. Defaults to ``1e-4``.
        power: The polynomial's power; ``1.0`` (default) decays linearly.
        cycle: If ``True``, restart the decay past ``decay_steps`` with a longer horizon.
            Defaults to ``False``.
        name: The schedule's name. Defaults to ``"PolynomialDecay"``.

    Example:

    >>> schedule = PolynomialDecay(0.1, decay_steps=100, end_learning_rate=0.01)
    >>> round(float(schedule(50)), 4)
    0.055
    """

    def __init__(self, initial_learning_rate, decay_steps, end_learning_rate=0.0001,
                 power=1.0, cycle=False, name="PolynomialDecay"):
        owner = type(self).__name__
        self.initial_learning_rate = check_number(owner, "initial_learning_rate",
                                                  initial_learning_rate)
        self.decay_steps = check_number(owner, "decay_steps", decay_steps, positive=True)
        self.end_learning_rate = check_number(owner, "end_learning_rate", end_learning_rate)
        self.power = check_number(owner, "power", power)
        self.cycle = bool(cycle)
        self.name = name

    def __call__(self, step):
        step = step_as_float(step)
        decay_steps = float(self.decay_steps)
        if self.cycle:
            # The first multiple of decay_steps at or above the step (1 at step 0).
            multiplier = ops.where(ops.equal(step, 0.0), 1.0, ops.ceil(step / decay_steps))
            horizon = ops.multiply(multiplier, decay_steps)
        else:
            step = ops.minimum(step, decay_steps)
            horizon = decay_steps
        remaining = ops.subtract(1.0, ops.divide(step, horizon))
        span = float(self.initial_learning_rate) - float(self.end_learning_rate)
        return ops.add(ops.multiply(span, ops.power(remaining, float(self.power))),
                       float(self.end_learning_rate))

    def get_config(self) -> dict:
        return {"initial_learning_rate": self.initial_learning_rate,
                "decay_steps": self.decay_steps, "end_learning_rate": self.end_learning_rate,
                "power": self.power, "cycle": self.cycle, "name": self.name}


@register_builtin
class PiecewiseConstantDecay(LearningRateSchedule):
    """A learning rate that is constant between step boundaries.

    The rate is ``values[0]`` while ``step <= boundaries[0]``, ``values[i]`` while
    ``boundaries[i-1] < step <= boundaries[i]``, and ``values[-1]`` after the last
    boundary.

    Args:
        boundaries: The increasing steps at which the rate changes.
        values: The rates, one more than ``boundaries``.
        name: The schedule's name. Defaults to ``"PiecewiseConstant"``.

    Raises:
        ValueError: If ``values`` does not have one more entry than ``boundaries``.

    Example:

    >>> schedule = PiecewiseConstantDecay([100, 200], [1.0, 0.5, 0.1])
    >>> float(schedule(150))
    0.5
    """

    def __init__(self, boundaries, values, name="PiecewiseConstant"):
        owner = type(self).__name__
        boundaries, values = list(boundaries), list(values)
        if len(boundaries) != len(values) - 1:
            raise ValueError(f"{owner}: argument 'boundaries' must have one element fewer "
                             f"than 'values'; received boundaries={boundaries} of length "
                             f"{len(boundaries)} and values={values} of length {len(values)}")
        self.boundaries = [check_number(owner, "boundaries", b) for b in boundaries]
        self.values = [check_number(owner, "values", v) for v in values]
        if any(b >= c for b, c in zip(self.boundaries, self.boundaries[1:])):
            raise ValueError(f"{owner}: argument 'boundaries' must be strictly increasing; "
                             f"received {self.boundaries}")
        self.name = name

    def __call__(self, step):
        if not isinstance(step, TensorBase):
            step = ops.convert_to_tensor(step)
        # Keras: the values' dtype (floats -> floatx); boundaries compared in the step's dtype.
        dtype = "int32" if all(isinstance(v, int) for v in self.values) else floatx()
        integer_step = is_int(step.dtype)
        result = ops.full_like(step, self.values[-1], dtype=dtype)
        for boundary, value in zip(reversed(self.boundaries), reversed(self.values[:-1])):
            boundary = int(boundary) if integer_step else boundary
            result = ops.where(ops.less_equal(step, boundary), value, result)
        return result

    def get_config(self) -> dict:
        return {"boundaries": self.boundaries, "values": self.values, "name": self.name}
