"""Adadelta (Zeiler, https://arxiv.org/abs/1212.5701), as Keras 3 writes it.

``Eg = rho * Eg + (1 - rho) * g^2``; ``delta = -sqrt(Edx + eps) * g / sqrt(Eg + eps)``;
``Edx = rho * Edx + (1 - rho) * delta^2``; ``w += lr * delta``.
"""
from __future__ import annotations

from .. import ops
from ..registry import register_builtin
from .arguments import check_number, check_range
from .optimizer import Optimizer


@register_builtin
class Adadelta(Optimizer):
    """Adadelta; slots ``<var>_accumulated_grad`` and ``<var>_accumulated_delta_var`` per
    variable (interleaved).

    Args:
        learning_rate: a float, a ``LearningRateSchedule`` or a callable taking no
            arguments and returning the rate (default 0.001).
        rho: float, decay rate of the accumulated squared gradients and updates
            (default 0.95).
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

    def __init__(self, learning_rate=0.001, rho=0.95, epsilon=1e-7, weight_decay=None,
                 clipnorm=None, clipvalue=None, global_clipnorm=None, use_ema=False,
                 ema_momentum=0.99, ema_overwrite_frequency=None, loss_scale_factor=None,
                 gradient_accumulation_steps=None, name=None, **kwargs):
        super().__init__(learning_rate=learning_rate, weight_decay=weight_decay,
                         clipnorm=clipnorm, clipvalue=clipvalue,
                         global_clipnorm=global_clipnorm, use_ema=use_ema,
                         ema_momentum=ema_momentum,
                         ema_overwrite_frequency=ema_overwrite_frequency,
                         loss_scale_factor=loss_scale_factor,
                         gradient_accumulation_steps=gradient_accumulation_steps, name=name,
                         **kwargs)
        self.rho = check_range("Adadelta", "rho", rho, 0.0, 1.0)
        self.epsilon = check_number("Adadelta", "epsilon", epsilon, non_negative=True)

    def build(self, var_list) -> None:
        if self.built:
            return
        super().build(var_list)
        self._accumulated_grads, self._accumulated_delta_vars = self.add_optimizer_variables(
            var_list, ["accumulated_grad", "accumulated_delta_var"])

    def _rms(self, x):
        return ops.sqrt(ops.add(x, self.epsilon))

    def update_step(self, grad, variable, learning_rate) -> None:
        lr = ops.cast(learning_rate, variable.dtype)
        index = self._get_variable_index(variable)
        grads_avg = self._accumulated_grads[index]
        deltas_avg = self._accumulated_delta_vars[index]
        rho = self.rho
        self.assign(grads_avg, ops.add(ops.multiply(rho, grads_avg),
                                       ops.multiply(1.0 - rho, ops.square(grad))))
        delta = ops.negative(ops.divide(ops.multiply(self._rms(deltas_avg), grad),
                                        self._rms(grads_avg)))
        self.assign(deltas_avg, ops.add(ops.multiply(rho, deltas_avg),
                                        ops.multiply(1.0 - rho, ops.square(delta))))
        self.assign_add(variable, ops.multiply(lr, delta))

    def get_config(self) -> dict:
        config = super().get_config()
        config.update({"rho": self.rho, "epsilon": self.epsilon})
        return config
