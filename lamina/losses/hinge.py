"""Hinge losses for maximum-margin classifiers (Keras 3's formulas). ``hinge`` and
``squared_hinge`` expect labels in {-1, 1}; labels that are all 0 or 1 are mapped to
{-1, 1} first, as Keras does."""
from __future__ import annotations

from .. import ops
from ..registry import register_builtin
from .checks import prepare
from .loss import BuiltinLoss


def convert_binary_labels_to_hinge(y_true):
    """``2 * y_true - 1`` when every label is 0 or 1, else ``y_true`` unchanged (decided by
    a tensor condition, so it also works while tracing)."""
    binary = ops.all(ops.logical_or(ops.equal(y_true, 0.0), ops.equal(y_true, 1.0)))
    return ops.where(binary, ops.subtract(ops.multiply(y_true, 2.0), 1.0), y_true)


def _margins(name: str, y_true, y_pred):
    y_true, y_pred = prepare(name, y_true, y_pred)
    y_true = convert_binary_labels_to_hinge(y_true)
    return ops.relu(ops.subtract(1.0, ops.multiply(y_true, y_pred)))


@register_builtin
def hinge(y_true, y_pred):
    """``mean(maximum(1 - y_true * y_pred, 0), axis=-1)``."""
    return ops.mean(_margins("hinge", y_true, y_pred), axis=-1)


@register_builtin
def squared_hinge(y_true, y_pred):
    """``mean(square(maximum(1 - y_true * y_pred, 0)), axis=-1)``."""
    return ops.mean(ops.square(_margins("squared_hinge", y_true, y_pred)), axis=-1)


@register_builtin
def categorical_hinge(y_true, y_pred):
    """``maximum(neg - pos + 1, 0)`` with ``pos = sum(y_true * y_pred)`` and
    ``neg = max((1 - y_true) * y_pred)`` over the last axis (one-hot ``y_true``)."""
    y_true, y_pred = prepare("categorical_hinge", y_true, y_pred)
    pos = ops.sum(ops.multiply(y_true, y_pred), axis=-1)
    neg = ops.max(ops.multiply(ops.subtract(1.0, y_true), y_pred), axis=-1)
    return ops.relu(ops.add(ops.subtract(neg, pos), 1.0))


@register_builtin
class Hinge(BuiltinLoss):
    """:func:`hinge` as a loss object."""

    def __init__(self, reduction="sum_over_batch_size", name="hinge", dtype=None):
        super().__init__(hinge, name, reduction, dtype)


@register_builtin
class SquaredHinge(BuiltinLoss):
    """:func:`squared_hinge` as a loss object."""

    def __init__(self, reduction="sum_over_batch_size", name="squared_hinge", dtype=None):
        super().__init__(squared_hinge, name, reduction, dtype)


@register_builtin
class CategoricalHinge(BuiltinLoss):
    """:func:`categorical_hinge` as a loss object."""

    def __init__(self, reduction="sum_over_batch_size", name="categorical_hinge", dtype=None):
        super().__init__(categorical_hinge, name, reduction, dtype)
