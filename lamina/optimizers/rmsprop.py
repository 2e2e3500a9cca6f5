"""RMSprop (Hinton, lecture 6e), as Keras 3 writes it.

``v = rho * v + (1 - rho) * g^2`` and ``inc = lr * g / sqrt(v + epsilon)`` -- centered:
``sqrt(v - a^2 + epsilon)`` with ``a = rho * a + (1 - rho) * g``. With momentum ``mu``:
``mom = mu * mom + inc`` and ``w -= mom``; otherwise ``w -= inc``.
"""
from __future__ import annotations

from .. import ops
from ..registry import register_builtin
from .arguments import check_number, check_range
from .optimizer import Optimizer


@register_builtin
class RMSprop(Optimizer):
    """RMSprop; slots ``<var>_velocity`` for every variable, then ``<var>_momentum``
    (when ``momentum > 0``), then ``<var>_average_gradient`` (when ``centered``)."""

    def __init__(self, learning_rate=0.001, rho=0.9, momentum=0.0, epsilon=1e-7,
                 centered=False, weight_decay=None, clipnorm=None, clipvalue=None,
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
        self.rho = check_range("RMSprop", "rho", rho, 0.0, 1.0)
        self.momentum = check_range("RMSprop", "momentum", momentum, 0.0, 1.0)
        self.epsilon = check_number("RMSprop", "epsilon", epsilon, non_negative=True)
        self.centered = bool(centered)

    def build(self, var_list) -> None:
        if self.built:
            return
        super().build(var_list)
        self._velocities = self.add_optimizer_variables(var_list, "velocity")
        self._momentums = (self.add_optimizer_variables(var_list, "momentum")
                           if self.momentum > 0 else [])
        self._average_gradients = (self.add_optimizer_variables(var_list, "average_gradient")
                                   if self.centered else [])

    def update_step(self, gradient, variable, learning_rate) -> None:
        lr = ops.cast(learning_rate, variable.dtype)
        index = self._get_variable_index(variable)
        velocity, rho = self._velocities[index], self.rho
        self.assign(velocity, ops.add(ops.multiply(rho, velocity),
                                      ops.multiply(1.0 - rho, ops.square(gradient))))
        if self.centered:
            average = self._average_gradients[index]
            self.assign(average, ops.add(ops.multiply(rho, average),
                                         ops.multiply(1.0 - rho, gradient)))
            denominator = ops.add(ops.subtract(velocity, ops.square(average)), self.epsilon)
        else:
            denominator = ops.add(velocity, self.epsilon)
        increment = ops.divide(ops.multiply(lr, gradient), ops.sqrt(denominator))
        if self.momentum > 0:
            momentum = self._momentums[index]
            self.assign(momentum, ops.add(ops.multiply(self.momentum, momentum), increment))
            self.assign_sub(variable, momentum)
        else:
            self.assign_sub(variable, increment)

    def get_config(self) -> dict:
        config = super().get_config()
        config.update({"rho": self.rho, "momentum": self.momentum, "epsilon": self.epsilon,
                       "centered": self.centered})
        return config
