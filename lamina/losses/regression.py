"""Regression losses: squared, absolute, percentage and logarithmic errors, averaged over the
last axis (Keras 3's formulas), each a function and a class."""
from __future__ import annotations

from .. import ops
from ..settings import epsilon
from ..registry import register_builtin
from .checks import prepare
from .loss import BuiltinLoss


@register_builtin
def mean_squared_error(y_true, y_pred):
    """``mean(square(y_true - y_pred), axis=-1)``."""
    y_true, y_pred = prepare("mean_squared_error", y_true, y_pred)
    return ops.mean(ops.square(ops.subtract(y_true, y_pred)), axis=-1)


@register_builtin
def mean_absolute_error(y_true, y_pred):
    """``mean(abs(y_true - y_pred), axis=-1)``."""
    y_true, y_pred = prepare("mean_absolute_error", y_true, y_pred)
    return ops.mean(ops.abs(ops.subtract(y_true, y_pred)), axis=-1)


@register_builtin
def mean_absolute_percentage_error(y_true, y_pred):
    """``100 * mean(abs((y_true - y_pred) / max(abs(y_true), epsilon)), axis=-1)``."""
    y_true, y_pred = prepare("mean_absolute_percentage_error", y_true, y_pred)
    scale = ops.maximum(ops.abs(y_true), epsilon())
    return ops.multiply(ops.mean(ops.abs(ops.divide(ops.subtract(y_true, y_pred), scale)),
                                 axis=-1), 100.0)


@register_builtin
def mean_squared_logarithmic_error(y_true, y_pred):
    """``mean(square(log(y_pred + 1) - log(y_true + 1)), axis=-1)``; values below
    ``epsilon`` are raised to ``epsilon`` first."""
    y_true, y_pred = prepare("mean_squared_logarithmic_error", y_true, y_pred)
    first = ops.log(ops.add(ops.maximum(y_pred, epsilon()), 1.0))
    second = ops.log(ops.add(ops.maximum(y_true, epsilon()), 1.0))
    return ops.mean(ops.square(ops.subtract(first, second)), axis=-1)


@register_builtin
class MeanSquaredError(BuiltinLoss):
    """:func:`mean_squared_error` as a loss object ("mse")."""

    def __init__(self, reduction="sum_over_batch_size", name="mean_squared_error", dtype=None):
        super().__init__(mean_squared_error, name, reduction, dtype)


@register_builtin
class MeanAbsoluteError(BuiltinLoss):
    """:func:`mean_absolute_error` as a loss object ("mae")."""

    def __init__(self, reduction="sum_over_batch_size", name="mean_absolute_error",
                 dtype=None):
        super().__init__(mean_absolute_error, name, reduction, dtype)


@register_builtin
class MeanAbsolutePercentageError(BuiltinLoss):
    """:func:`mean_absolute_percentage_error` as a loss object ("mape")."""

    def __init__(self, reduction="sum_over_batch_size",
                 name="mean_absolute_percentage_error", dtype=None):
        super().__init__(mean_absolute_percentage_error, name, reduction, dtype)


@register_builtin
class MeanSquaredLogarithmicError(BuiltinLoss):
    """:func:`mean_squared_logarithmic_error` as a loss object ("msle")."""

    def __init__(self, reduction="sum_over_batch_size",
                 name="mean_squared_logarithmic_error", dtype=None):
        super().__init__(mean_squared_logarithmic_error, name, reduction, dtype)
