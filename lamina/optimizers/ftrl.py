"""FTRL-Proximal (McMahan et al., 2013), as Keras 3 writes it.

Per step, with ``p = -learning_rate_power``, ``n`` the accumulator and ``z`` the linear
term: ``n' = n + g^2``; ``z += g + 2 * l2_shrinkage * w - (n'^p - n^p) / lr * w``;
``w = (clip(z, -l1, l1) - z) / (n'^p / lr + 2 * (l2 + beta / (2 lr)))``; ``n = n'``.
"""
from __future__ import annotations

from .. import initializers, ops
from ..registry import register_builtin
from .arguments import check_number
from .optimizer import Optimizer

_NON_NEGATIVE = ("initial_accumulator_value", "l1_regularization_strength",
                 "l2_regularization_strength", "l2_shrinkage_regularization_strength")


@register_builtin
class Ftrl(Optimizer):
    """FTRL; slots ``<var>_accumulator`` (starting at ``initial_accumulator_value``) and
    ``<var>_linear`` per variable (interleaved).

    Args:
        learning_rate: a float, a ``LearningRateSchedule`` or a callable taking no
            arguments and returning the rate (default 0.001).
        learning_rate_power: float <= 0, the power of the accumulator that scales the
            rate (default -0.5).
        initial_accumulator_value: float >= 0, the starting accumulator (default 0.1).
        l1_regularization_strength: float >= 0 (default 0.0).
        l2_regularization_strength: float >= 0 (default 0.0).
        l2_shrinkage_regularization_strength: float >= 0, an L2 penalty applied to the
            gradient (magnitude penalty) rather than the loss (default 0.0).
        beta: float, added to the accumulator's root in the denominator (default 0.0).
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

    def __init__(self, learning_rate=0.001, learning_rate_power=-0.5,
                 initial_accumulator_value=0.1, l1_regularization_strength=0.0,
                 l2_regularization_strength=0.0, l2_shrinkage_regularization_strength=0.0,
                 beta=0.0, weight_decay=None, clipnorm=None, clipvalue=None,
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
        values = {"initial_accumulator_value": initial_accumulator_value,
                  "l1_regularization_strength": l1_regularization_strength,
                  "l2_regularization_strength": l2_regularization_strength,
                  "l2_shrinkage_regularization_strength": l2_shrinkage_regularization_strength}
        # Keras's own sentences (its tests anchor them): they name the argument, the
        # bound and the value received.
        for arg in _NON_NEGATIVE:
            value = check_number("Ftrl", arg, values[arg])
            if value < 0:
                raise ValueError(f"`{arg}` needs to be positive or zero. "
                                 f"Received: {arg}={values[arg]}.")
            setattr(self, arg, value)
        power = check_number("Ftrl", "learning_rate_power", learning_rate_power)
        if power > 0:
            raise ValueError("`learning_rate_power` needs to be negative or zero. "
                             f"Received: learning_rate_power={learning_rate_power}.")
        self.learning_rate_power = power
        self.beta = check_number("Ftrl", "beta", beta)

    def build(self, var_list) -> None:
        if self.built:
            return
        super().build(var_list)
        self._accumulators, self._linears = self.add_optimizer_variables(
            var_list, ["accumulator", "linear"],
            initializer=[initializers.Constant(self.initial_accumulator_value), "zeros"])

    def update_step(self, gradient, variable, learning_rate) -> None:
        lr = ops.cast(learning_rate, variable.dtype)
        index = self._get_variable_index(variable)
        accumulator, linear = self._accumulators[index], self._linears[index]
        power = -self.learning_rate_power
        l2 = ops.add(ops.divide(self.beta / 2.0, lr), self.l2_regularization_strength)
        shrunk = ops.add(gradient, ops.multiply(variable,
                                                2.0 * self.l2_shrinkage_regularization_strength))
        new_accumulator = ops.add(accumulator, ops.square(gradient))
        new_scale = ops.power(new_accumulator, power)
        sigma = ops.divide(ops.subtract(new_scale, ops.power(accumulator, power)), lr)
        self.assign_add(linear, ops.subtract(shrunk, ops.multiply(sigma, variable)))
        quadratic = ops.add(ops.divide(new_scale, lr), ops.multiply(l2, 2.0))
        l1 = self.l1_regularization_strength
        self.assign(variable, ops.divide(ops.subtract(ops.clip(linear, -l1, l1), linear),
                                         quadratic))
        self.assign(accumulator, new_accumulator)

    def get_config(self) -> dict:
        config = super().get_config()
        config.update({"learning_rate_power": self.learning_rate_power,
                       **{arg: getattr(self, arg) for arg in _NON_NEGATIVE},
                       "beta": self.beta})
        return config
