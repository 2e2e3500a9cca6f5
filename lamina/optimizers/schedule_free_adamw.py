"""Schedule-free AdamW (Defazio et al., https://arxiv.org/abs/2405.15682), as Keras 3
writes it.

The trained variable holds ``y``; the slot ``momentum`` holds ``z`` (starting at the
variable's value) and ``velocity`` Adam's second moment. With ``t = iterations + 1`` and
the rate warmed up over ``warmup_steps``: ``v += (g^2 - v)(1 - beta_2)``, ``z -= lr * g /
(sqrt(v / (1 - beta_2^t)) + epsilon)``, ``x = (y - (1 - beta_1) z_old) / beta_1``,
``x' = (1 - 1/t) x + z / t`` and ``y = (1 - beta_1) z + beta_1 x'``.
"""
from __future__ import annotations

import numbers

from .. import ops
from ..registry import register_builtin
from .arguments import check_number, check_range
from .optimizer import Optimizer


@register_builtin
class ScheduleFreeAdamW(Optimizer):
    """Schedule-free AdamW; slots ``<var>_momentum`` and ``<var>_velocity`` (interleaved).

    Args:
        learning_rate: a float, a ``LearningRateSchedule`` or a callable taking no
            arguments and returning the rate (default 0.0025).
        beta_1: float in [0, 1), decay rate of the first-moment estimate (default 0.9).
        beta_2: float in [0, 1), decay rate of the second-moment estimate (default 0.999).
        epsilon: a small float added to the denominator for stability (default 1e-8).
        warmup_steps: int >= 0, steps of linear learning-rate warm-up (default 0).
        weight_decay: a float; when set, each step first shrinks every variable by
            ``learning_rate * weight_decay`` times itself (decoupled weight decay).
        clipnorm: a float; clip each gradient so that its own L2 norm is at most this.
        clipvalue: a float; clip each gradient element into ``[-clipvalue, clipvalue]``.
        global_clipnorm: a float; clip all gradients together so that their joint L2
            norm is at most this (not with ``clipnorm``).
        use_ema: bool; keep an exponential moving average of the weights (default False).
        ema_momentum: float in [0, 1], the moving average's momentum (default 0.99).
        ema_overwrite_frequency: int or None; every this many steps, write the moving
            average into the variables (None: only at ``finalize_variable_values``).
        loss_scale_factor: a float or None; the loss is multiplied by it and the gradients
            divided by it (for mixed precision).
        gradient_accumulation_steps: int > 1 or None; apply the mean gradient once every
            this many calls to ``apply``.
        name: a string, or None for the snake_case class name made unique (``adam_1``).
        **kwargs: Keras 2's ``lr`` (an alias of ``learning_rate``, with a warning) and
            ``decay`` (ignored, with a warning); any other keyword raises ValueError.
    """

    def __init__(self, learning_rate=0.0025, beta_1=0.9, beta_2=0.999, epsilon=1e-8,
                 warmup_steps=0, weight_decay=None, clipnorm=None, clipvalue=None,
                 global_clipnorm=None, use_ema=False, ema_momentum=0.99,
                 ema_overwrite_frequency=None, loss_scale_factor=None,
                 gradient_accumulation_steps=None, name=None, **kwargs):
        super().__init__(learning_rate=learning_rate, weight_decay=weight_decay,
                         clipnorm=clipnorm, clipvalue=clipvalue,
                         global_clipnorm=global_clipnorm, use_ema=use_ema,
                         ema_momentum=ema_momentum,
                         ema_overwrite_frequency=ema_overwrite_frequency,
                         loss_scale_factor=loss_scale_factor,
                         gradient_accumulation_steps=gradient_accumulation_steps, name=name,
                         **kwargs)
        owner = "ScheduleFreeAdamW"
        # beta_1 = 0 would divide by zero when recovering x from y.
        self.beta_1 = check_range(owner, "beta_1", beta_1, 0.0, 1.0, low_inclusive=False)
        self.beta_2 = check_range(owner, "beta_2", beta_2, 0.0, 1.0, high_inclusive=False)
        self.epsilon = check_number(owner, "epsilon", epsilon, non_negative=True)
        if (isinstance(warmup_steps, bool) or not isinstance(warmup_steps, numbers.Integral)
                or warmup_steps < 0):
            raise ValueError(f"{owner}: argument 'warmup_steps' must be an integer >= 0; "
                             f"received {warmup_steps!r}")
        self.warmup_steps = int(warmup_steps)

    def build(self, var_list) -> None:
        if self.built:
            return
        super().build(var_list)
        self._momentums, self._velocities = self.add_optimizer_variables(
            var_list, ["momentum", "velocity"])
        for z, variable in zip(self._momentums, var_list):
            z.assign(variable)

    def update_step(self, gradient, variable, learning_rate) -> None:
        dtype = variable.dtype
        lr = ops.cast(learning_rate, dtype)
        local_step = ops.cast(ops.add(self.iterations, 1), dtype)
        if self.warmup_steps > 0:
            lr = ops.multiply(lr, ops.minimum(ops.divide(local_step, self.warmup_steps), 1.0))
        index = self._get_variable_index(variable)
        z, v = self._momentums[index], self._velocities[index]
        b1 = self.beta_1
        # x from y and the old z, read before z is written.
        x_old = ops.divide(ops.subtract(variable, ops.multiply(z, 1.0 - b1)), b1)
        self.assign_add(v, ops.multiply(ops.subtract(ops.square(gradient), v),
                                        1.0 - self.beta_2))
        correction = ops.subtract(1.0, ops.power(self.beta_2, local_step))
        denominator = ops.add(ops.sqrt(ops.divide(v, correction)), self.epsilon)
        self.assign_sub(z, ops.divide(ops.multiply(gradient, lr), denominator))
        weight = ops.divide(1.0, local_step)
        x_new = ops.add(ops.multiply(x_old, ops.subtract(1.0, weight)),
                        ops.multiply(z, weight))
        self.assign(variable, ops.add(ops.multiply(z, 1.0 - b1), ops.multiply(x_new, b1)))

    def get_config(self) -> dict:
        config = super().get_config()
        config.update({"beta_1": self.beta_1, "beta_2": self.beta_2,
                       "epsilon": self.epsilon, "warmup_steps": self.warmup_steps})
        return config
