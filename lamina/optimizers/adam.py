"""Adam (Kingma & Ba, https://arxiv.org/abs/1412.6980), as Keras 3 writes it.

With ``t = iterations + 1``: ``m += (g - m)(1 - beta_1)``, ``v += (g^2 - v)(1 - beta_2)``,
``alpha = lr * sqrt(1 - beta_2^t) / (1 - beta_1^t)`` and ``w -= alpha * m / (sqrt(v) +
epsilon)`` -- epsilon sits outside the square root and is not bias-corrected. ``amsgrad``
divides by the running maximum of ``v`` instead.
"""
from __future__ import annotations

from .. import ops
from ..registry import register_builtin
from .arguments import check_number, check_range
from .optimizer import Optimizer


@register_builtin
class Adam(Optimizer):
    """Adam; slots ``<var>_momentum`` and ``<var>_velocity`` per variable (interleaved),
    then ``<var>_velocity_hat`` per variable with ``amsgrad``.

    Args:
        learning_rate: a float, a ``LearningRateSchedule`` or a callable taking no
            arguments and returning the rate (default 0.001).
        beta_1: float in [0, 1), decay rate of the first-moment estimate (default 0.9).
        beta_2: float in [0, 1), decay rate of the second-moment estimate (default 0.999).
        epsilon: a small float added to the denominator for stability (default 1e-7).
        amsgrad: bool; use the running maximum of the second moment (AMSGrad).
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

    Example:

    >>> import lamina as keras
    >>> opt = keras.optimizers.Adam(learning_rate=0.1)
    >>> w = keras.Variable([1.0, 2.0])
    >>> opt.apply([keras.ops.convert_to_tensor([0.5, -0.5])], [w])
    """

    def __init__(self, learning_rate=0.001, beta_1=0.9, beta_2=0.999, epsilon=1e-7,
                 amsgrad=False, weight_decay=None, clipnorm=None, clipvalue=None,
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
        owner = type(self).__name__
        self.beta_1 = check_range(owner, "beta_1", beta_1, 0.0, 1.0, high_inclusive=False)
        self.beta_2 = check_range(owner, "beta_2", beta_2, 0.0, 1.0, high_inclusive=False)
        self.epsilon = check_number(owner, "epsilon", epsilon, non_negative=True)
        self.amsgrad = bool(amsgrad)

    def build(self, var_list) -> None:
        if self.built:
            return
        super().build(var_list)
        self._momentums, self._velocities = self.add_optimizer_variables(
            var_list, ["momentum", "velocity"])
        if self.amsgrad:
            self._velocity_hats = self.add_optimizer_variables(var_list, "velocity_hat")

    def _step_size(self, learning_rate, dtype):
        """``alpha = lr * sqrt(1 - beta_2^t) / (1 - beta_1^t)`` with ``t = iterations + 1``."""
        lr = ops.cast(learning_rate, dtype)
        local_step = ops.cast(ops.add(self.iterations, 1), dtype)
        beta_1_power = ops.power(self.beta_1, local_step)
        beta_2_power = ops.power(self.beta_2, local_step)
        return ops.divide(ops.multiply(lr, ops.sqrt(ops.subtract(1.0, beta_2_power))),
                          ops.subtract(1.0, beta_1_power))

    def update_step(self, gradient, variable, learning_rate) -> None:
        alpha = self._per_step(("alpha", variable.dtype),
                               lambda: self._step_size(learning_rate, variable.dtype))
        index = self._get_variable_index(variable)
        m, v = self._momentums[index], self._velocities[index]
        self.assign_add(m, ops.multiply(ops.subtract(gradient, m), 1.0 - self.beta_1))
        self.assign_add(v, ops.multiply(ops.subtract(ops.square(gradient), v),
                                        1.0 - self.beta_2))
        if self.amsgrad:
            v_hat = self._velocity_hats[index]
            self.assign(v_hat, ops.maximum(v_hat, v))
            v = v_hat
        self.assign_sub(variable, ops.divide(ops.multiply(m, alpha),
                                             ops.add(ops.sqrt(v), self.epsilon)))

    def get_config(self) -> dict:
        config = super().get_config()
        config.update({"beta_1": self.beta_1, "beta_2": self.beta_2,
                       "epsilon": self.epsilon, "amsgrad": self.amsgrad})
        return config
