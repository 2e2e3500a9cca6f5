"""Cosine decay with an optional linear warmup, and cosine decay with warm restarts (SGDR),
as Keras 3 computes them (Loshchilov & Hutter, https://arxiv.org/abs/1608.03983)."""
from __future__ import annotations

import math

from ... import ops
from ...registry import register_builtin
from .learning_rate_schedule import LearningRateSchedule, check_number, step_as_float


def _cosine(fraction, alpha: float):
    """``(1 - alpha) * 0.5 * (1 + cos(pi * fraction)) + alpha``."""
    cosine = ops.multiply(0.5, ops.add(1.0, ops.cos(ops.multiply(math.pi, fraction))))
    return ops.add(ops.multiply(1.0 - alpha, cosine), alpha)


@register_builtin
class CosineDecay(LearningRateSchedule):
    """A learning rate that follows a cosine curve down, after an optional linear warmup.

    Without ``warmup_target``, the rate at ``step`` is ``initial_learning_rate *
    decayed(min(step, decay_steps) / decay_steps)``, where
    ``decayed(f) = (1 - alpha) * 0.5 * (1 + cos(pi f)) + alpha``. With
    ``warmup_target``, the rate ramps linearly from ``initial_learning_rate`` to
    ``warmup_target`` over ``warmup_steps``, then decays from ``warmup_target`` over
    ``decay_steps``.

    Args:
        initial_learning_rate: The starting rate, a float.
        decay_steps: The number of steps to decay over, a positive number.
        alpha: The fraction of the starting rate that the decay ends at. Defaults to
            ``0.0``.
        name: The schedule's name. Defaults to ``"CosineDecay"``.
        warmup_target: The rate reached at the end of the warmup; ``None`` (default) for
            no warmup.
        warmup_steps: The number of warmup steps. Defaults to ``0``.

    Example:

    >>> schedule = CosineDecay(0.1, decay_steps=100)
    >>> round(float(schedule(50)), 4)
    0.05
    >>> optimizer = lamina.optimizers.SGD(learning_rate=schedule)
    """

    def __init__(self, initial_learning_rate, decay_steps, alpha=0.0, name="CosineDecay",
                 warmup_target=None, warmup_steps=0):
        owner = type(self).__name__
        self.initial_learning_rate = check_number(owner, "initial_learning_rate",
                                                  initial_learning_rate)
        self.decay_steps = check_number(owner, "decay_steps", decay_steps, positive=True)
        self.alpha = check_number(owner, "alpha", alpha)
        self.name = name
        self.warmup_target = (None if warmup_target is None else
                              check_number(owner, "warmup_target", warmup_target))
        self.warmup_steps = check_number(owner, "warmup_steps", warmup_steps,
                                         non_negative=True)

    def __call__(self, step):
        step = step_as_float(step)
        decay_steps = float(self.decay_steps)
        if self.warmup_target is None:
            fraction = ops.divide(ops.minimum(step, decay_steps), decay_steps)
            return ops.multiply(float(self.initial_learning_rate),
                                _cosine(fraction, float(self.alpha)))
        warmup_steps = float(self.warmup_steps)
        target, initial = float(self.warmup_target), float(self.initial_learning_rate)
        step = ops.minimum(step, decay_steps + warmup_steps)
        # Both branches are computed and one is selected, so the step stays one op graph.
        # With no warmup steps the ramp is never selected; dividing by 1 avoids 0 / 0.
        ramp = ops.add(ops.multiply(target - initial,
                                    ops.divide(step, warmup_steps or 1.0)), initial)
        fraction = ops.divide(ops.subtract(step, warmup_steps), decay_steps)
        decay = ops.multiply(target, _cosine(fraction, float(self.alpha)))
        return ops.where(ops.less(step, warmup_steps), ramp, decay)

    def get_config(self) -> dict:
        return {"initial_learning_rate": self.initial_learning_rate,
                "decay_steps": self.decay_steps, "alpha": self.alpha, "name": self.name,
                "warmup_target": self.warmup_target, "warmup_steps": self.warmup_steps}


@register_builtin
class CosineDecayRestarts(LearningRateSchedule):
    """A cosine-decay learning rate with warm restarts (SGDR).

    The rate decays along a cosine from ``initial_learning_rate`` to ``alpha`` times it
    over ``first_decay_steps``, then restarts: period ``i`` lasts ``t_mul ** i`` times
    longer and starts from ``m_mul ** i`` times the initial rate.

    Args:
        initial_learning_rate: The starting rate, a float.
        first_decay_steps: The number of steps of the first period.
        t_mul: How many times longer each period is than the one before. Defaults to
            ``2.0``.
        m_mul: How many times the rate each period starts from is of the one before.
            Defaults to ``1.0``.
        alpha: The fraction of the period's starting rate the decay ends at. Defaults to
            ``0.0``.
        name: The schedule's name. Defaults to ``"SGDRDecay"``.

    Example:

    >>> schedule = CosineDecayRestarts(0.1, first_decay_steps=100)
    >>> round(float(schedule(100)), 4)     # the first restart
    0.1
    """

    def __init__(self, initial_learning_rate, first_decay_steps, t_mul=2.0, m_mul=1.0,
                 alpha=0.0, name="SGDRDecay"):
        owner = type(self).__name__
        self.initial_learning_rate = check_number(owner, "initial_learning_rate",
                                                  initial_learning_rate)
        self.first_decay_steps = check_number(owner, "first_decay_steps", first_decay_steps,
                                              positive=True)
        self._t_mul = check_number(owner, "t_mul", t_mul, positive=True)
        self._m_mul = check_number(owner, "m_mul", m_mul, non_negative=True)
        self.alpha = check_number(owner, "alpha", alpha)
        self.name = name

    def _restart_and_fraction(self, fraction):
        """The index of the current period and the fraction of it completed."""
        t_mul = float(self._t_mul)
        if t_mul == 1.0:
            restart = ops.floor(fraction)
            return restart, ops.subtract(fraction, restart)
        # Periods 1, t, t^2, ... end at (1 - t^i) / (1 - t); invert that sum with a log.
        # log(t_mul) is taken in the schedule's dtype, as Keras does, so the floor agrees
        # with Keras at the restart boundaries.
        log_t = ops.log(ops.full_like(fraction, t_mul))
        restart = ops.floor(ops.divide(
            ops.log(ops.subtract(1.0, ops.multiply(fraction, 1.0 - t_mul))), log_t))
        t_power = ops.power(t_mul, restart)
        elapsed = ops.divide(ops.subtract(1.0, t_power), 1.0 - t_mul)
        return restart, ops.divide(ops.subtract(fraction, elapsed), t_power)

    def __call__(self, step):
        fraction = ops.divide(step_as_float(step), float(self.first_decay_steps))
        restart, fraction = self._restart_and_fraction(fraction)
        scale = ops.power(float(self._m_mul), restart)
        alpha = float(self.alpha)
        cosine = ops.multiply(ops.multiply(0.5, scale),
                              ops.add(1.0, ops.cos(ops.multiply(math.pi, fraction))))
        decayed = ops.add(ops.multiply(1.0 - alpha, cosine), alpha)
        return ops.multiply(float(self.initial_learning_rate), decayed)

    def get_config(self) -> dict:
        return {"initial_learning_rate": self.initial_learning_rate,
                "first_decay_steps": self.first_decay_steps, "t_mul": self._t_mul,
                "m_mul": self._m_mul, "alpha": self.alpha, "name": self.name}
