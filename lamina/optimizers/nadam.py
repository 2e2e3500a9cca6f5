"""Nadam, Adam with Nesterov momentum (Dozat, 2015), as Keras 3 writes it.

With ``t = iterations + 1`` and the momentum schedule ``u_t = beta_1 (1 - 0.5 * 0.96^t)``,
a running product ``u_product`` (a state variable, updated once per step before the
variables) gives ``m_hat = u_{t+1} m / (1 - u_product * u_{t+1}) + (1 - u_t) g /
(1 - u_product)`` and ``w -= lr * m_hat / (sqrt(v / (1 - beta_2^t)) + epsilon)``.
"""
from __future__ import annotations

from .. import ops
from ..dtypes import floatx
from ..registry import register_builtin
from .arguments import check_number, check_range
from .optimizer import Optimizer


@register_builtin
class Nadam(Optimizer):
    """Nadam; slots ``<var>_momentum`` and ``<var>_velocity`` per variable (interleaved),
    then the scalar ``u_product``.

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
        self.beta_1 = check_range("Nadam", "beta_1", beta_1, 0.0, 1.0, high_inclusive=False)
        self.beta_2 = check_range("Nadam", "beta_2", beta_2, 0.0, 1.0, high_inclusive=False)
        self.epsilon = check_number("Nadam", "epsilon", epsilon, non_negative=True)

    def build(self, var_list) -> None:
        if self.built:
            return
        var_list = list(var_list)
        dtype = var_list[0].dtype if var_list else floatx()
        super().build(var_list)
        self._momentums, self._velocities = self.add_optimizer_variables(
            var_list, ["momentum", "velocity"])
        self._u_product = self.add_variable((), initializer="ones", dtype=dtype,
                                            name="u_product")

    def _momentum_cache(self, step):
        """``u_t = beta_1 * (1 - 0.5 * 0.96^t)`` for a float step tensor ``t``."""
        return ops.multiply(self.beta_1,
                            ops.subtract(1.0, ops.multiply(0.5, ops.power(0.96, step))))

    def _backend_update_step(self, grads, trainable_variables, learning_rate) -> None:
        step = ops.cast(ops.add(self.iterations, 1), self._u_product.dtype)
        # Keras's association: (u_product * beta_1) * (1 - 0.5 * 0.96^t).
        decay = ops.subtract(1.0, ops.multiply(0.5, ops.power(0.96, step)))
        self.assign(self._u_product,
                    ops.multiply(ops.multiply(self._u_product, self.beta_1), decay))
        super()._backend_update_step(grads, trainable_variables, learning_rate)

    def _step_scalars(self, learning_rate, dtype):
        """The scalars every variable of ``dtype`` shares in this step."""
        local_step = ops.cast(ops.add(self.iterations, 1), dtype)
        u_t_1 = self._momentum_cache(ops.add(local_step, 1.0))
        u_product_t = ops.cast(self._u_product, dtype)
        return (ops.cast(learning_rate, dtype), self._momentum_cache(local_step), u_t_1,
                u_product_t, ops.multiply(u_product_t, u_t_1),
                ops.power(self.beta_2, local_step))

    def update_step(self, gradient, variable, learning_rate) -> None:
        lr, u_t, u_t_1, u_product_t, u_product_t_1, beta_2_power = self._per_step(
            ("nadam", variable.dtype), lambda: self._step_scalars(learning_rate, variable.dtype))
        index = self._get_variable_index(variable)
        m, v = self._momentums[index], self._velocities[index]
        self.assign_add(m, ops.multiply(ops.subtract(gradient, m), 1.0 - self.beta_1))
        self.assign_add(v, ops.multiply(ops.subtract(ops.square(gradient), v),
                                        1.0 - self.beta_2))
        m_hat = ops.add(
            ops.divide(ops.multiply(u_t_1, m), ops.subtract(1.0, u_product_t_1)),
            ops.divide(ops.multiply(ops.subtract(1.0, u_t), gradient),
                       ops.subtract(1.0, u_product_t)))
        v_hat = ops.divide(v, ops.subtract(1.0, beta_2_power))
        self.assign_sub(variable, ops.divide(ops.multiply(m_hat, lr),
                                             ops.add(ops.sqrt(v_hat), self.epsilon)))

    def get_config(self) -> dict:
        config = super().get_config()
        config.update({"beta_1": self.beta_1, "beta_2": self.beta_2, "epsilon": self.epsilon})
        return config
