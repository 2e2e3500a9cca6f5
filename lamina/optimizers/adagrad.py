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
    """Adagrad; one slot ``<var>_accumulator`` per variable.

    Args:
        learning_rate: a float, a ``LearningRateSchedule`` or a callable taking no
            arguments and returning the rate (default 0.001).
        initial_accumulator_value: float >= 0, the starting value of the accumulators
            (default 0.1).
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
