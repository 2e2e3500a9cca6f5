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
    (when ``momentum > 0``), then ``<var>_average_gradient`` (when ``centered``).

    Args:
        learning_rate: a float, a ``LearningRateSchedule`` or a callable taking no
            arguments and returning the rate (default 0.001).
        rho: float, decay rate of the moving average of squared gradients (default 0.9).
        momentum: float >= 0; when > 0, a momentum slot is kept (default 0.0).
        epsilon: a small float added to the denominator for stability (default 1e-7).
        centered: bool; normalize by the estimated variance of the gradient instead of
            its second moment (default False).
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
