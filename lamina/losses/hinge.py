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
    """Compute the hinge loss between labels and predictions.

    ``loss = mean(maximum(1 - y_true * y_pred, 0), axis=-1)``. Labels are expected in
    {-1, 1}; labels that are all 0 or 1 are mapped to {-1, 1} first, as Keras does.

    Args:
        y_true: The labels, -1 or 1 (or 0 or 1), of shape ``(batch, ..., d)``.
        y_pred: The predictions, of the same shape as ``y_true``.

    Returns:
        The loss per sample: a tensor of shape ``y_true.shape[:-1]``.

    Example:

    >>> y_true = np.array([[0.0, 1.0], [0.0, 0.0]])
    >>> y_pred = np.array([[0.6, 0.4], [0.4, 0.6]])
    >>> lamina.losses.hinge(y_true, y_pred).numpy().round(4)
    array([1.1, 1.5])
    """
    return ops.mean(_margins("hinge", y_true, y_pred), axis=-1)


@register_builtin
def squared_hinge(y_true, y_pred):
    """Compute the squared hinge loss between labels and predictions.

    ``loss = mean(square(maximum(1 - y_true * y_pred, 0)), axis=-1)``. Labels are
    expected in {-1, 1}; labels that are all 0 or 1 are mapped to {-1, 1} first.

    Args:
        y_true: The labels, -1 or 1 (or 0 or 1), of shape ``(batch, ..., d)``.
        y_pred: The predictions, of the same shape as ``y_true``.

    Returns:
        The loss per sample: a tensor of shape ``y_true.shape[:-1]``.

    Example:

    >>> y_true = np.array([[0.0, 1.0], [0.0, 0.0]])
    >>> y_pred = np.array([[0.6, 0.4], [0.4, 0.6]])
    >>> lamina.losses.squared_hinge(y_true, y_pred).numpy().round(4)
    array([1.46, 2.26])
    """
    return ops.mean(ops.square(_margins("squared_hinge", y_true, y_pred)), axis=-1)


@register_builtin
def categorical_hinge(y_true, y_pred):
    """Compute the categorical hinge loss between one-hot labels and predictions.

    ``loss = maximum(neg - pos + 1, 0)`` with ``pos = sum(y_true * y_pred)`` and
    ``neg = max((1 - y_true) * y_pred)`` over the last axis.

    Args:
        y_true: One-hot labels, of shape ``(batch, ..., num_classes)``.
        y_pred: The predictions, of the same shape as ``y_true``.

    Returns:
        The loss per sample: a tensor of shape ``y_true.shape[:-1]``.

    Example:

    >>> y_true = np.array([[0.0, 1.0], [1.0, 0.0]])
    >>> y_pred = np.array([[0.6, 0.4], [0.4, 0.6]])
    >>> lamina.losses.categorical_hinge(y_true, y_pred).numpy().round(4)
    array([1.2, 1.2])
    """
    y_true, y_pred = prepare("categorical_hinge", y_true, y_pred)
    pos = ops.sum(ops.multiply(y_true, y_pred), axis=-1)
    neg = ops.max(ops.multiply(ops.subtract(1.0, y_true), y_pred), axis=-1)
    return ops.relu(ops.add(ops.subtract(neg, pos), 1.0))


@register_builtin
class Hinge(BuiltinLoss):
    """Compute the hinge loss between labels and predictions.

    The loss object of :func:`hinge`, reduced over the batch.

    ``loss = mean(maximum(1 - y_true * y_pred, 0), axis=-1)``. Labels are expected in
    {-1, 1}; labels that are all 0 or 1 are mapped to {-1, 1} first, as Keras does.

    Args:
        reduction: How the per-sample losses are reduced: ``"sum_over_batch_size"``
            (default: their mean), ``"sum"``, ``"mean"``, ``"mean_with_sample_weight"``
            (the weighted sum over the sum of the weights), or ``"none"``/``None`` (no
            reduction).
        name: The loss's name. Defaults to ``"hinge"``.
        dtype: The dtype the loss is computed in, or a dtype policy (its compute dtype);
            ``None`` (default) takes ``floatx()``.

    Example:

    >>> y_true = np.array([[0.0, 1.0], [0.0, 0.0]])
    >>> y_pred = np.array([[0.6, 0.4], [0.4, 0.6]])
    >>> loss = lamina.losses.Hinge()
    >>> round(float(loss(y_true, y_pred)), 4)
    1.3
    >>> model.compile(optimizer="adam", loss=lamina.losses.Hinge())
    """

    def __init__(self, reduction="sum_over_batch_size", name="hinge", dtype=None):
        super().__init__(hinge, name, reduction, dtype)


@register_builtin
class SquaredHinge(BuiltinLoss):
    """Compute the squared hinge loss between labels and predictions.

    The loss object of :func:`squared_hinge`, reduced over the batch.

    ``loss = mean(square(maximum(1 - y_true * y_pred, 0)), axis=-1)``. Labels are
    expected in {-1, 1}; labels that are all 0 or 1 are mapped to {-1, 1} first.

    Args:
        reduction: How the per-sample losses are reduced: ``"sum_over_batch_size"``
            (default: their mean), ``"sum"``, ``"mean"``, ``"mean_with_sample_weight"``
            (the weighted sum over the sum of the weights), or ``"none"``/``None`` (no
            reduction).
        name: The loss's name. Defaults to ``"squared_hinge"``.
        dtype: The dtype the loss is computed in, or a dtype policy (its compute dtype);
            ``None`` (default) takes ``floatx()``.

    Example:

    >>> y_true = np.array([[0.0, 1.0], [0.0, 0.0]])
    >>> y_pred = np.array([[0.6, 0.4], [0.4, 0.6]])
    >>> loss = lamina.losses.SquaredHinge()
    >>> round(float(loss(y_true, y_pred)), 4)
    1.86
    >>> model.compile(optimizer="adam", loss=lamina.losses.SquaredHinge())
    """

    def __init__(self, reduction="sum_over_batch_size", name="squared_hinge", dtype=None):
        super().__init__(squared_hinge, name, reduction, dtype)


@register_builtin
class CategoricalHinge(BuiltinLoss):
    """Compute the categorical hinge loss between one-hot labels and predictions.

    The loss object of :func:`categorical_hinge`, reduced over the batch.

    ``loss = maximum(neg - pos + 1, 0)`` with ``pos = sum(y_true * y_pred)`` and
    ``neg = max((1 - y_true) * y_pred)`` over the last axis.

    Args:
        reduction: How the per-sample losses are reduced: ``"sum_over_batch_size"``
            (default: their mean), ``"sum"``, ``"mean"``, ``"mean_with_sample_weight"``
            (the weighted sum over the sum of the weights), or ``"none"``/``None`` (no
            reduction).
        name: The loss's name. Defaults to ``"categorical_hinge"``.
        dtype: The dtype the loss is computed in, or a dtype policy (its compute dtype);
            ``None`` (default) takes ``floatx()``.

    Example:

    >>> y_true = np.array([[0.0, 1.0], [1.0, 0.0]])
    >>> y_pred = np.array([[0.6, 0.4], [0.4, 0.6]])
    >>> loss = lamina.losses.CategoricalHinge()
    >>> round(float(loss(y_true, y_pred)), 4)
    1.2
    >>> model.compile(optimizer="adam", loss=lamina.losses.CategoricalHinge())
    """

    def __init__(self, reduction="sum_over_batch_size", name="categorical_hinge", dtype=None):
        super().__init__(categorical_hinge, name, reduction, dtype)
