"""Adagrad (Duchi et al., 2011), as Keras 3 writes it: ``acc += g^2`` and
``w -= lr * g / sqrt(acc + epsilon)``, with the accumulator starting at
``initial_accumulator_value``."""
from __future__ import annotations

from .. import ops
from ..initializers import Constant
from ..registry import register_builtin
from .arguments import check_number
from .optimizer import Optimizer


@register_builtin
class Adagrad(Optimizer):
    """Adagrad; one slot ``<var>_accumulator`` per variable."""

    def __init__(self, learning_rate=0.001, initial_accumulator_value=0.1, epsilon=1e-7,
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
        self.initial_accumulator_value = check_number(
            "Adagrad", "initial_accumulator_value", initial_accumulator_value,
            non_negative=True)
        self.epsilon = check_number("Adagrad", "epsilon", epsilon, non_negative=True)

    def build(self, var_list) -> None:
        if self.built:
            return
        super().build(var_list)
        self._accumulators = self.add_optimizer_variables(
            var_list, "accumulator", initializer=Constant(self.initial_accumulator_value))

    def update_step(self, gradient, variable, learning_rate) -> None:
        lr = ops.cast(learning_rate, variable.dtype)
        accumulator = self._accumulators[self._get_variable_index(variable)]
        self.assign_add(accumulator, ops.square(gradient))
        self.assign_sub(variable, ops.divide(ops.multiply(lr, gradient),
                                             ops.sqrt(ops.add(accumulator, self.epsilon))))

    def get_config(self) -> dict:
        config = super().get_config()
        config.update({"initial_accumulator_value": self.initial_accumulator_value,
                       "epsilon": self.epsilon})
        return config
