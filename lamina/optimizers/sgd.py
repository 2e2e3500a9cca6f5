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
    """Stochastic gradient descent; slots ``<var>_momentum`` only when ``momentum > 0``.

    Args:
        learning_rate: a float, a ``LearningRateSchedule`` or a callable taking no
            arguments and returning the rate (default 0.01).
        momentum: float >= 0 that accelerates descent along consistent directions
            (default 0.0: plain SGD).
        nesterov: bool; use Nesterov momentum (default False).
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

    Example:

    >>> import lamina as keras
    >>> opt = keras.optimizers.SGD(learning_rate=0.1)
    >>> w = keras.Variable([1.0, 2.0])
    >>> opt.apply([keras.ops.convert_to_tensor([0.5, -0.5])], [w])
    >>> w.numpy()
    array([0.95, 2.05], dtype=float32)
    """

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
