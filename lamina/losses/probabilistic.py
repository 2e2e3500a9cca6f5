"""Losses between distributions and counts: Kullback-Leibler divergence and Poisson
(Keras 3's formulas)."""
from __future__ import annotations

from .. import ops
from ..settings import epsilon
from ..registry import register_builtin
from .checks import prepare
from .loss import BuiltinLoss


@register_builtin
def kl_divergence(y_true, y_pred):
    """``sum(y_true * log(y_true / y_pred), axis=-1)`` with both clipped to
    ``[epsilon, 1]``."""
    y_true, y_pred = prepare("kl_divergence", y_true, y_pred)
    y_true = ops.clip(y_true, epsilon(), 1.0)
    y_pred = ops.clip(y_pred, epsilon(), 1.0)
    return ops.sum(ops.multiply(y_true, ops.log(ops.divide(y_true, y_pred))), axis=-1)


@register_builtin
def poisson(y_true, y_pred):
    """``mean(y_pred - y_true * log(y_pred + epsilon), axis=-1)``."""
    y_true, y_pred = prepare("poisson", y_true, y_pred)
    log_rate = ops.log(ops.add(y_pred, epsilon()))
    return ops.mean(ops.subtract(y_pred, ops.multiply(y_true, log_rate)), axis=-1)


@register_builtin
class KLDivergence(BuiltinLoss):
    """:func:`kl_divergence` as a loss object ("kld")."""

    def __init__(self, reduction="sum_over_batch_size", name="kl_divergence", dtype=None):
        super().__init__(kl_divergence, name, reduction, dtype)


@register_builtin
class Poisson(BuiltinLoss):
    """:func:`poisson` as a loss object."""

    def __init__(self, reduction="sum_over_batch_size", name="poisson", dtype=None):
        super().__init__(poisson, name, reduction, dtype)
