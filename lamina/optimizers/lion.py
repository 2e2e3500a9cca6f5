"""Lion (Chen et al., https://arxiv.org/abs/2302.06675), as Keras 3 writes it:
``w -= lr * sign(beta_1 * m + (1 - beta_1) * g)``, then ``m = beta_2 * m + (1 - beta_2) * g``.
"""
from __future__ import annotations

from .. import ops
from ..registry import register_builtin
from .arguments import check_number, check_range
from .optimizer import Optimizer


@register_builtin
class Lion(Optimizer):
    """Lion; one slot ``<var>_momentum`` per variable.

    Args:
        learning_rate: a float, a ``LearningRateSchedule`` or a callable taking no
            arguments and returning the rate (default 0.001).
        beta_1: float in [0, 1], the interpolation between gradient and momentum that
            gives the update's sign (default 0.9).
        beta_2: float in [0, 1], decay rate of the momentum (default 0.99).
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

    def __init__(self, learning_rate=0.001, beta_1=0.9, beta_2=0.99, weight_decay=None,
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
        # Keras: beta_1 = 0 would make Lion plain SignSGD, so 0 is refused.
        self.beta_1 = check_number("Lion", "beta_1", beta_1)
        if not 0.0 < self.beta_1 <= 1.0:
            raise ValueError(f"Lion: Argument `beta_1` must be in the [0, 1] range. "
                             f"Otherwise, the optimizer degenerates to SignSGD. Received: "
                             f"beta_1={self.beta_1} (beta_1 must be > 0 and <= 1)")
        self.beta_2 = check_range("Lion", "beta_2", beta_2, 0.0, 1.0)

    def build(self, var_list) -> None:
        if self.built:
            return
        super().build(var_list)
        self._momentums = self.add_optimizer_variables(var_list, "momentum")

    def update_step(self, gradient, variable, learning_rate) -> None:
        lr = ops.cast(learning_rate, variable.dtype)
        m = self._momentums[self._get_variable_index(variable)]
        direction = ops.sign(ops.add(ops.multiply(m, self.beta_1),
                                     ops.multiply(gradient, 1.0 - self.beta_1)))
        self.assign_sub(variable, ops.multiply(lr, direction))
        self.assign(m, ops.add(ops.multiply(m, self.beta_2),
                               ops.multiply(gradient, 1.0 - self.beta_2)))

    def get_config(self) -> dict:
        config = super().get_config()
        config.update({"beta_1": self.beta_1, "beta_2": self.beta_2})
        return config
