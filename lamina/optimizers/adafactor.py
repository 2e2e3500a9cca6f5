"""Adafactor (Shazeer & Stern, https://arxiv.org/abs/1804.04235), as Keras 3 writes it.

With ``t = iterations + 1``, ``rho = min(lr, 1 / sqrt(t))``, ``beta_2 = 1 - t^beta_2_decay``
and ``G = g^2 + epsilon_1``: a variable of rank >= 2 keeps the row means ``r`` (last axis
removed) and column means ``c`` (second-to-last removed) of ``G`` as moving averages, and
``v = (r / mean(r))[..., None] * c[..., None, :]``; a vector keeps ``v`` as the moving
average of ``G`` itself. Then ``u = g / sqrt(v)``, ``u /= max(1, rms(u) / clip_threshold)``
and ``w -= max(epsilon_2, rms(w)) * rho * u``.
"""
from __future__ import annotations

from .. import ops
from ..registry import register_builtin
from .arguments import check_number
from .optimizer import Optimizer


def _rms(x):
    return ops.sqrt(ops.mean(ops.square(x)))


@register_builtin
class Adafactor(Optimizer):
    """Adafactor. Per variable, in Keras's order: the factored row and column statistics
    (named like the variable; for a vector two int32 scalar placeholders, as Keras keeps
    them), then ``<var>_velocity``.

    Args:
        learning_rate: a float, a ``LearningRateSchedule`` or a callable taking no
            arguments and returning the rate (default 0.001).
        beta_2_decay: float, the exponent of the step that sets the second-moment decay
            (default -0.8).
        epsilon_1: float, the regularization added to squared gradients (default 1e-30).
        epsilon_2: float, the lower bound of the parameter scale (default 1e-3).
        clip_threshold: float, the bound on the update's root mean square (default 1.0).
        relative_step: bool; cap the rate by ``1 / sqrt(step)`` (default True).
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

    def __init__(self, learning_rate=0.001, beta_2_decay=-0.8, epsilon_1=1e-30,
                 epsilon_2=1e-3, clip_threshold=1.0, relative_step=True, weight_decay=None,
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
        self.beta_2_decay = check_number("Adafactor", "beta_2_decay", beta_2_decay)
        self.epsilon_1 = check_number("Adafactor", "epsilon_1", epsilon_1, non_negative=True)
        self.epsilon_2 = check_number("Adafactor", "epsilon_2", epsilon_2, non_negative=True)
        self.clip_threshold = check_number("Adafactor", "clip_threshold", clip_threshold,
                                           positive=True)
        self.relative_step = bool(relative_step)

    def build(self, var_list) -> None:
        if self.built:
            return
        super().build(var_list)
        self._r, self._c, self._v = [], [], []
        for variable in var_list:
            shape, name = tuple(variable.shape), variable.name
            if len(shape) < 2:
                self._r.append(self.add_variable((), dtype="int32", name=name))
                self._c.append(self.add_variable((), dtype="int32", name=name))
            else:
                self._r.append(self.add_variable(shape[:-1], dtype=variable.dtype, name=name))
                self._c.append(self.add_variable(shape[:-2] + shape[-1:],
                                                 dtype=variable.dtype, name=name))
            self._v.append(self.add_variable_from_reference(variable, "velocity"))

    def update_step(self, gradient, variable, learning_rate) -> None:
        dtype = variable.dtype
        local_step = ops.cast(ops.add(self.iterations, 1), dtype)
        # relative_step caps the rate at 1/sqrt(t); Keras then caps rho the same way, so
        # the result is min(lr, 1/sqrt(t)) whatever relative_step says.
        rho = ops.minimum(ops.cast(learning_rate, dtype), ops.divide(1.0, ops.sqrt(local_step)))
        alpha = ops.multiply(ops.maximum(_rms(variable), self.epsilon_2), rho)
        squared = ops.add(ops.square(gradient), self.epsilon_1)
        beta_2 = ops.subtract(1.0, ops.power(local_step, self.beta_2_decay))
        index = self._get_variable_index(variable)
        r, c, v = self._r[index], self._c[index], self._v[index]

        def average(old, new):
            return ops.add(ops.multiply(beta_2, old), ops.multiply(ops.subtract(1.0, beta_2),
                                                                   new))

        if len(variable.shape) >= 2:
            self.assign(r, average(r, ops.mean(squared, axis=-1)))
            self.assign(c, average(c, ops.mean(squared, axis=-2)))
            row = ops.divide(r, ops.mean(r, axis=-1, keepdims=True))
            self.assign(v, ops.multiply(ops.expand_dims(row, -1), ops.expand_dims(c, -2)))
        else:
            self.assign(v, average(v, squared))
        u = ops.divide(gradient, ops.sqrt(v))
        u = ops.divide(u, ops.maximum(ops.divide(_rms(u), self.clip_threshold), 1.0))
        self.assign_sub(variable, ops.multiply(alpha, u))

    def get_config(self) -> dict:
        config = super().get_config()
        config.update({"beta_2_decay": self.beta_2_decay, "epsilon_1": self.epsilon_1,
                       "epsilon_2": self.epsilon_2, "clip_threshold": self.clip_threshold,
                       "relative_step": self.relative_step})
        return config
