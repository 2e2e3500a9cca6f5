"""Gradient descent, with optional (Nesterov) momentum (Keras 3's ``keras.optimizers.SGD``).

Without momentum: ``w -= lr * g``. With momentum ``mu`` Keras keeps a velocity
``m = mu * m - lr * g`` and adds it, ``w += m``; Nesterov adds ``mu * m - lr * g`` instead.
"""
from __future__ import annotations

from .. import ops
from ..registry import register_builtin
from .arguments import check_number
from .optimizer import Optimizer


@register_builtin
class SGD(Optimizer):
    """Stochastic gradient descent; slots ``<var>_momentum`` only when ``momentum > 0``."""

    def __init__(self, learning_rate=0.01, momentum=0.0, nesterov=False, weight_decay=None,
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
        self.momentum = check_number("SGD", "momentum", momentum)
        if not 0.0 <= self.momentum <= 1.0:
            raise ValueError(f"SGD: argument `momentum` must be a float between [0, 1]; "
                             f"received momentum={self.momentum}")
        self.nesterov = bool(nesterov)

    def build(self, variables) -> None:
        if self.built:
            return
        super().build(variables)
        self.momentums = (self.add_optimizer_variables(variables, "momentum")
                          if self.momentum != 0 else [])

    def update_step(self, gradient, variable, learning_rate) -> None:
        lr = ops.cast(learning_rate, variable.dtype)
        step = ops.multiply(gradient, lr)
        if self.momentum == 0:
            self.assign_sub(variable, step)
            return
        m = self.momentums[self._get_variable_index(variable)]
        self.assign(m, ops.subtract(ops.multiply(m, self.momentum), step))
        if self.nesterov:
            self.assign_add(variable, ops.subtract(ops.multiply(m, self.momentum), step))
        else:
            self.assign_add(variable, m)

    def get_config(self) -> dict:
        config = super().get_config()
        config.update({"momentum": self.momentum, "nesterov": self.nesterov})
        return config
