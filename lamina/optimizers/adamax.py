"""Adamax, Adam's infinity-norm variant (Kingma & Ba, section 7.1), as Keras 3 writes it.

With ``t = iterations + 1``: ``m += (g - m)(1 - beta_1)``, ``u = max(beta_2 * u, |g|)``
and ``w -= lr * m / ((1 - beta_1^t)(u + epsilon))``.
"""
from __future__ import annotations

from .. import ops
from ..registry import register_builtin
from .arguments import check_number, check_range
from .optimizer import Optimizer


@register_builtin
class Adamax(Optimizer):
    """Adamax; slots ``<var>_momentum`` and ``<var>_norm`` per variable (interleaved).

    Args:
        learning_rate: a float, a ``LearningRateSchedule`` or a callable taking no
            arguments and returning the rate (default 0.001).
        beta_1: float in [0, 1), decay rate of the first-moment estimate (default 0.9).
        beta_2: float in [0, 1), decay rate of the exponentially weighted infinity
            norm (default 0.999).
        epsilon: a small float added to the denominator for stability (default 1e-7).
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

    def __init__(self, learning_rate=0.001, beta_1=0.9, beta_2=0.999, epsilon=1e-7,
                 weight_decay=None, clipnorm=None, clipvalue=None, global_clipnorm=None,
                 use_ema=False, ema_momentum=0.99, ema_overwrite_frequency=None,
                 loss_scale_factor=None, gradient_accumulation_steps=None, name=None,
                 **kwargs):
        super().__init__(learning_rate=learning_rate, weight_decay=weight_decay,
                         clipnorm=clipnorm, clipvalue=clipvalue,
                         global_clipnorm=global_clipnorm, use_ema=use_ema,
                         ema_momentum=ema_momentum,
                         ema_overwrite_frequency=ema_overwrite_frequency,
                         loss_scale_factor=loss_scale_factor,
                         gradient_accumulation_steps=gradient_accumulation_steps, name=name,
                         **kwargs)
        self.beta_1 = check_range("Adamax", "beta_1", beta_1, 0.0, 1.0, high_inclusive=False)
        self.beta_2 = check_range("Adamax", "beta_2", beta_2, 0.0, 1.0)
        self.epsilon = check_number("Adamax", "epsilon", epsilon, non_negative=True)

    def build(self, var_list) -> None:
        if self.built:
            return
        super().build(var_list)
        self._m, self._u = self.add_optimizer_variables(var_list, ["momentum", "norm"])

    def update_step(self, gradient, variable, learning_rate) -> None:
        dtype = variable.dtype
        lr = ops.cast(learning_rate, dtype)
        beta_1_power = self._per_step(("beta_1_power", dtype), lambda: ops.power(
            self.beta_1, ops.cast(ops.add(self.iterations, 1), dtype)))
        index = self._get_variable_index(variable)
        m, u = self._m[index], self._u[index]
        self.assign_add(m, ops.multiply(ops.subtract(gradient, m), 1.0 - self.beta_1))
        self.assign(u, ops.maximum(ops.multiply(self.beta_2, u), ops.abs(gradient)))
        self.assign_sub(variable, ops.divide(
            ops.multiply(lr, m),
            ops.multiply(ops.subtract(1.0, beta_1_power), ops.add(u, self.epsilon))))

    def get_config(self) -> dict:
        config = super().get_config()
        config.update({"beta_1": self.beta_1, "beta_2": self.beta_2, "epsilon": self.epsilon})
        return config
