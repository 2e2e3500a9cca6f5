"""Overlap losses for segmentation: Dice and Tversky (Keras 3's formulas). With the
default ``axis=None`` each sums over the whole batch and gives one value; an axis (or a
tuple of axes) gives one value per remaining position."""
from __future__ import annotations

from .. import ops
from ..settings import epsilon
from ..registry import register_builtin
from .checks import as_prediction
from .loss import BuiltinLoss
from .reduction import convert_like


def _pair(y_true, y_pred):
    y_pred = as_prediction(y_pred)
    return convert_like(y_true, y_pred), y_pred


@register_builtin
def dice(y_true, y_pred, axis=None):
    """``1 - 2 sum(y_true y_pred) / (sum(y_true) + sum(y_pred) + epsilon)`` over ``axis``."""
    y_true, y_pred = _pair(y_true, y_pred)
    overlap = ops.sum(ops.multiply(y_true, y_pred), axis=axis)
    total = ops.add(ops.add(ops.sum(y_true, axis=axis), ops.sum(y_pred, axis=axis)),
                    epsilon())
    return ops.subtract(1.0, ops.divide(ops.multiply(2.0, overlap), total))


@register_builtin
def tversky(y_true, y_pred, alpha=0.5, beta=0.5, axis=None):
    """``1 - tp / (tp + alpha fp + beta fn + epsilon)`` with, as Keras 3 computes them,
    ``tp = sum(y_true y_pred)``, ``fp = sum((1 - y_pred) y_true)`` and
    ``fn = sum(y_pred (1 - y_true))`` over ``axis`` (alpha = beta = 0.5 is the Dice loss)."""
    y_true, y_pred = _pair(y_true, y_pred)
    tp = ops.sum(ops.multiply(y_true, y_pred), axis=axis)
    fp = ops.sum(ops.multiply(ops.subtract(1.0, y_pred), y_true), axis=axis)
    fn = ops.sum(ops.multiply(y_pred, ops.subtract(1.0, y_true)), axis=axis)
    denominator = ops.add(ops.add(ops.add(tp, ops.multiply(fp, alpha)),
                                  ops.multiply(fn, beta)), epsilon())
    return ops.subtract(1.0, ops.divide(tp, denominator))


@register_builtin
class Dice(BuiltinLoss):
    """:func:`dice` as a loss object."""

    def __init__(self, reduction="sum_over_batch_size", name="dice", axis=None, dtype=None):
        super().__init__(dice, name, reduction, dtype, axis=axis)


@register_builtin
class Tversky(BuiltinLoss):
    """:func:`tversky` as a loss object."""

    def __init__(self, alpha=0.5, beta=0.5, reduction="sum_over_batch_size", name="tversky",
                 axis=None, dtype=None):
        super().__init__(tversky, name, reduction, dtype, alpha=alpha, beta=beta, axis=axis)
