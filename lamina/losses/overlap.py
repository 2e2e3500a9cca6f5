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
    """Compute the Dice loss between labels and predictions, for segmentation.

    ``loss = 1 - 2 sum(y_true y_pred) / (sum(y_true) + sum(y_pred) + epsilon)`` over
    ``axis``.

    Args:
        y_true: The labels (ground truth), of shape ``(batch, ..., d)``.
        y_pred: The predictions, of the same shape as ``y_true``.
        axis: The axis (or axes) the sums run over; ``None`` (default) sums over all.

    Returns:
        The loss: a scalar with ``axis=None``, else a tensor without the summed axes.

    Example:

    >>> y_true = np.array([[0.0, 1.0], [0.0, 0.0]])
    >>> y_pred = np.array([[0.6, 0.4], [0.4, 0.6]])
    >>> lamina.losses.dice(y_true, y_pred, axis=1).numpy().round(4)
    array([0.6, 1. ])
    """
    y_true, y_pred = _pair(y_true, y_pred)
    overlap = ops.sum(ops.multiply(y_true, y_pred), axis=axis)
    total = ops.add(ops.add(ops.sum(y_true, axis=axis), ops.sum(y_pred, axis=axis)),
                    epsilon())
    return ops.subtract(1.0, ops.divide(ops.multiply(2.0, overlap), total))


@register_builtin
def tversky(y_true, y_pred, alpha=0.5, beta=0.5, axis=None):
    """Compute the Tversky loss, a Dice loss with weighted false positives and negatives.

    ``loss = 1 - tp / (tp + alpha fp + beta fn + epsilon)`` with, as Keras 3 computes
    them, ``tp = sum(y_true y_pred)``, ``fp = sum((1 - y_pred) y_true)`` and
    ``fn = sum(y_pred (1 - y_true))`` over ``axis``; ``alpha = beta = 0.5`` is the
    Dice loss.

    Args:
        y_true: The labels (ground truth), of shape ``(batch, ..., d)``.
        y_pred: The predictions, of the same shape as ``y_true``.
        alpha: The weight of the false positives. Defaults to 0.5.
        beta: The weight of the false negatives. Defaults to 0.5.
        axis: The axis (or axes) the sums run over; ``None`` (default) sums over all.

    Returns:
        The loss: a scalar with ``axis=None``, else a tensor without the summed axes.

    Example:

    >>> y_true = np.array([[0.0, 1.0], [0.0, 0.0]])
    >>> y_pred = np.array([[0.6, 0.4], [0.4, 0.6]])
    >>> lamina.losses.tversky(y_true, y_pred, axis=1).numpy().round(4)
    array([0.6, 1. ])
    """
    y_true, y_pred = _pair(y_true, y_pred)
    tp = ops.sum(ops.multiply(y_true, y_pred), axis=axis)
    fp = ops.sum(ops.multiply(ops.subtract(1.0, y_pred), y_true), axis=axis)
    fn = ops.sum(ops.multiply(y_pred, ops.subtract(1.0, y_true)), axis=axis)
    denominator = ops.add(ops.add(ops.add(tp, ops.multiply(fp, alpha)),
                                  ops.multiply(fn, beta)), epsilon())
    return ops.subtract(1.0, ops.divide(tp, denominator))


@register_builtin
class Dice(BuiltinLoss):
    """Compute the Dice loss between labels and predictions, for segmentation.

    The loss object of :func:`dice`, reduced over the batch.

    ``loss = 1 - 2 sum(y_true y_pred) / (sum(y_true) + sum(y_pred) + epsilon)`` over
    ``axis``.

    Args:
        axis: The axis (or axes) the sums run over; ``None`` (default) sums over all.
        reduction: How the per-sample losses are reduced: ``"sum_over_batch_size"``
            (default: their mean), ``"sum"``, ``"mean"``, ``"mean_with_sample_weight"``
            (the weighted sum over the sum of the weights), or ``"none"``/``None`` (no
            reduction).
        name: The loss's name. Defaults to ``"dice"``.
        dtype: The dtype the loss is computed in, or a dtype policy (its compute dtype);
            ``None`` (default) takes ``floatx()``.

    Example:

    >>> y_true = np.array([[0.0, 1.0], [0.0, 0.0]])
    >>> y_pred = np.array([[0.6, 0.4], [0.4, 0.6]])
    >>> loss = lamina.losses.Dice(axis=1)
    >>> round(float(loss(y_true, y_pred)), 4)
    0.8
    >>> model.compile(optimizer="adam", loss=lamina.losses.Dice())
    """

    def __init__(self, reduction="sum_over_batch_size", name="dice", axis=None, dtype=None):
        super().__init__(dice, name, reduction, dtype, axis=axis)


@register_builtin
class Tversky(BuiltinLoss):
    """Compute the Tversky loss, a Dice loss with weighted false positives and negatives.

    The loss object of :func:`tversky`, reduced over the batch.

    ``loss = 1 - tp / (tp + alpha fp + beta fn + epsilon)`` with, as Keras 3 computes
    them, ``tp = sum(y_true y_pred)``, ``fp = sum((1 - y_pred) y_true)`` and
    ``fn = sum(y_pred (1 - y_true))`` over ``axis``; ``alpha = beta = 0.5`` is the
    Dice loss.

    Args:
        alpha: The weight of the false positives. Defaults to 0.5.
        beta: The weight of the false negatives. Defaults to 0.5.
        axis: The axis (or axes) the sums run over; ``None`` (default) sums over all.
        reduction: How the per-sample losses are reduced: ``"sum_over_batch_size"``
            (default: their mean), ``"sum"``, ``"mean"``, ``"mean_with_sample_weight"``
            (the weighted sum over the sum of the weights), or ``"none"``/``None`` (no
            reduction).
        name: The loss's name. Defaults to ``"tversky"``.
        dtype: The dtype the loss is computed in, or a dtype policy (its compute dtype);
            ``None`` (default) takes ``floatx()``.

    Example:

    >>> y_true = np.array([[0.0, 1.0], [0.0, 0.0]])
    >>> y_pred = np.array([[0.6, 0.4], [0.4, 0.6]])
    >>> loss = lamina.losses.Tversky(axis=1)
    >>> round(float(loss(y_true, y_pred)), 4)
    0.8
    >>> model.compile(optimizer="adam", loss=lamina.losses.Tversky())
    """

    def __init__(self, alpha=0.5, beta=0.5, reduction="sum_over_batch_size", name="tversky",
                 axis=None, dtype=None):
        super().__init__(tversky, name, reduction, dtype, alpha=alpha, beta=beta, axis=axis)
