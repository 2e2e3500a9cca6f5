"""Robust regression losses: quadratic near zero, linear for large errors, so outliers pull
less than with the squared error (Huber and log-cosh, Keras 3's formulas)."""
from __future__ import annotations

import math

from .. import ops
from ..registry import register_builtin
from .checks import check_number, prepare
from .loss import BuiltinLoss

_LOG_2 = math.log(2.0)


@register_builtin
def huber(y_true, y_pred, delta=1.0):
    """``mean(0.5 * e**2 if |e| <= delta else delta * |e| - 0.5 * delta**2, axis=-1)`` with
    ``e = y_pred - y_true``."""
    name = "huber"
    delta = check_number(name, "delta", delta, 0.0)
    y_true, y_pred = prepare(name, y_true, y_pred)
    error = ops.subtract(y_pred, y_true)
    abs_error = ops.abs(error)
    quadratic = ops.multiply(ops.square(error), 0.5)
    linear = ops.subtract(ops.multiply(abs_error, delta), 0.5 * delta * delta)
    return ops.mean(ops.where(ops.less_equal(abs_error, delta), quadratic, linear), axis=-1)


@register_builtin
def log_cosh(y_true, y_pred):
    """``mean(log(cosh(y_pred - y_true)), axis=-1)``, computed as
    ``|e| + log1p(exp(-2|e|)) - log(2)``: no overflow for large errors, and the gradient
    ``tanh(e)`` is exactly 0 at ``e == 0``."""
    y_true, y_pred = prepare("log_cosh", y_true, y_pred)
    magnitude = ops.abs(ops.subtract(y_pred, y_true))
    value = ops.add(magnitude, ops.log1p(ops.exp(ops.multiply(magnitude, -2.0))))
    return ops.mean(ops.subtract(value, _LOG_2), axis=-1)


@register_builtin
class Huber(BuiltinLoss):
    """:func:`huber` as a loss object (Keras's default name is "huber_loss")."""

    def __init__(self, delta=1.0, reduction="sum_over_batch_size", name="huber_loss",
                 dtype=None):
        super().__init__(huber, name, reduction, dtype,
                         delta=check_number(type(self).__name__, "delta", delta, 0.0))


@register_builtin
class LogCosh(BuiltinLoss):
    """:func:`log_cosh` as a loss object."""

    def __init__(self, reduction="sum_over_batch_size", name="log_cosh", dtype=None):
        super().__init__(log_cosh, name, reduction, dtype)
