"""Lamb (You et al., https://arxiv.org/abs/1904.00962), as Keras 3 writes it: Adam's
bias-corrected direction ``u = m_hat / (sqrt(v_hat) + epsilon)``, scaled per variable by
the trust ratio ``||w|| / ||u||`` (1 when either norm is 0): ``w -= ratio * lr * u``.
"""
from __future__ import annotations

from .. import ops
from ..registry import register_builtin
from .arguments import check_number, check_range
from .optimizer import Optimizer


@register_builtin
class Lamb(Optimizer):
    """Lamb; slots ``<var>_momentum`` and ``<var>_velocity`` per variable (interleaved).

    Args:
        learning_rate: a float, a ``LearningRateSchedule`` or a callable taking no
            arguments and returning the rate (default 0.001).
        beta_1: float in [0, 1), decay rate of the first-moment estimate (default 0.9).
        beta_2: float in [0, 1), decay rate of the second-moment estimate (default 0.999).
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
        self.beta_1 = check_range("Lamb", "beta_1", beta_1, 0.0, 1.0, high_inclusive=False)
        self.beta_2 = check_range("Lamb", "beta_2", beta_2, 0.0, 1.0, high_inclusive=False)
        self.epsilon = check_number("Lamb", "epsilon", epsilon, non_negative=True)

    def build(self, var_list) -> None:
        if self.built:
            return
        super().build(var_list)
        self._momentums, self._velocities = self.add_optimizer_variables(
            var_list, ["momentum", "velocity"])

    def update_step(self, gradient, variable, learning_rate) -> None:
        dtype = variable.dtype
        lr = ops.cast(learning_rate, dtype)
        local_step = ops.cast(ops.add(self.iterations, 1), dtype)
        index = self._get_variable_index(variable)
        m, v = self._momentums[index], self._velocities[index]
        self.assign_add(m, ops.multiply(ops.subtract(gradient, m), 1.0 - self.beta_1))
        self.assign_add(v, ops.multiply(ops.subtract(ops.square(gradient), v),
                                        1.0 - self.beta_2))
        m_hat = ops.divide(m, ops.subtract(1.0, ops.power(self.beta_1, local_step)))
        v_hat = ops.divide(v, ops.subtract(1.0, ops.power(self.beta_2, local_step)))
        update = ops.divide(m_hat, ops.add(ops.sqrt(v_hat), self.epsilon))
        w_norm = ops.sqrt(ops.sum(ops.square(variable)))
        u_norm = ops.sqrt(ops.sum(ops.square(update)))
        both_positive = ops.logical_and(ops.greater(w_norm, 0.0), ops.greater(u_norm, 0.0))
        ratio = ops.where(both_positive, ops.divide(w_norm, u_norm), ops.ones_like(w_norm))
        self.assign_sub(variable, ops.multiply(ops.multiply(ratio, lr), update))

    def get_config(self) -> dict:
        config = super().get_config()
        config.update({"beta_1": self.beta_1, "beta_2": self.beta_2,
                       "epsilon": self.epsilon})
        return config
