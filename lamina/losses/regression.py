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
    """Compute the mean of the squares of the errors between labels and predictions.

    ``loss = mean(square(y_true - y_pred), axis=-1)``. Also known as ``"mse"``.

    Args:
        y_true: The labels (ground truth), of shape ``(batch, ..., d)``.
        y_pred: The predictions, of the same shape as ``y_true``.

    Returns:
        The loss per sample: a tensor of shape ``y_true.shape[:-1]``.

    Example:

    >>> y_true = np.array([[0.0, 1.0], [0.0, 0.0]])
    >>> y_pred = np.array([[0.6, 0.4], [0.4, 0.6]])
    >>> lamina.losses.mean_squared_error(y_true, y_pred).numpy().round(4)
    array([0.36, 0.26])
    """
    y_true, y_pred = prepare("mean_squared_error", y_true, y_pred)
    return ops.mean(ops.square(ops.subtract(y_true, y_pred)), axis=-1)


@register_builtin
def mean_absolute_error(y_true, y_pred):
    """Compute the mean of the absolute errors between labels and predictions.

    ``loss = mean(abs(y_true - y_pred), axis=-1)``. Also known as ``"mae"``.

    Args:
        y_true: The labels (ground truth), of shape ``(batch, ..., d)``.
        y_pred: The predictions, of the same shape as ``y_true``.

    Returns:
        The loss per sample: a tensor of shape ``y_true.shape[:-1]``.

    Example:

    >>> y_true = np.array([[0.0, 1.0], [0.0, 0.0]])
    >>> y_pred = np.array([[0.6, 0.4], [0.4, 0.6]])
    >>> lamina.losses.mean_absolute_error(y_true, y_pred).numpy().round(4)
    array([0.6, 0.5])
    """
    y_true, y_pred = prepare("mean_absolute_error", y_true, y_pred)
    return ops.mean(ops.abs(ops.subtract(y_true, y_pred)), axis=-1)


@register_builtin
def mean_absolute_percentage_error(y_true, y_pred):
    """Compute the mean absolute percentage error between labels and predictions.

    ``loss = 100 * mean(abs((y_true - y_pred) / max(abs(y_true), epsilon)), axis=-1)``.
    Also known as ``"mape"``.

    Args:
        y_true: The labels (ground truth), of shape ``(batch, ..., d)``.
        y_pred: The predictions, of the same shape as ``y_true``.

    Returns:
        The loss per sample: a tensor of shape ``y_true.shape[:-1]``.

    Example:

    >>> y_true = np.array([[1.0, 2.0], [4.0, 5.0]])
    >>> y_pred = np.array([[1.5, 2.0], [4.0, 4.0]])
    >>> lamina.losses.mean_absolute_percentage_error(y_true, y_pred).numpy().round(4)
    array([25., 10.])
    """
    y_true, y_pred = prepare("mean_absolute_percentage_error", y_true, y_pred)
    scale = ops.maximum(ops.abs(y_true), epsilon())
    return ops.multiply(ops.mean(ops.abs(ops.divide(ops.subtract(y_true, y_pred), scale)),
                                 axis=-1), 100.0)


@register_builtin
def mean_squared_logarithmic_error(y_true, y_pred):
    """Compute the mean squared logarithmic error between labels and predictions.

    ``loss = mean(square(log(y_pred + 1) - log(y_true + 1)), axis=-1)``; values below
    ``epsilon`` are raised to ``epsilon`` first. Also known as ``"msle"``.

    Args:
        y_true: The labels (ground truth), of shape ``(batch, ..., d)``.
        y_pred: The predictions, of the same shape as ``y_true``.

    Returns:
        The loss per sample: a tensor of shape ``y_true.shape[:-1]``.

    Example:

    >>> y_true = np.array([[0.0, 1.0], [0.0, 0.0]])
    >>> y_pred = np.array([[0.6, 0.4], [0.4, 0.6]])
    >>> lamina.losses.mean_squared_logarithmic_error(y_true, y_pred).numpy().round(4)
    array([0.1741, 0.1671])
    """
    y_true, y_pred = prepare("mean_squared_logarithmic_error", y_true, y_pred)
    first = ops.log(ops.add(ops.maximum(y_pred, epsilon()), 1.0))
    second = ops.log(ops.add(ops.maximum(y_true, epsilon()), 1.0))
    return ops.mean(ops.square(ops.subtract(first, second)), axis=-1)


@register_builtin
class MeanSquaredError(BuiltinLoss):
    """Compute the mean of the squares of the errors between labels and predictions.

    The loss object of :func:`mean_squared_error`, reduced over the batch.

    ``loss = mean(square(y_true - y_pred), axis=-1)``. Also known as ``"mse"``.

    Args:
        reduction: How the per-sample losses are reduced: ``"sum_over_batch_size"``
            (default: their mean), ``"sum"``, ``"mean"``, ``"mean_with_sample_weight"``
            (the weighted sum over the sum of the weights), or ``"none"``/``None`` (no
            reduction).
        name: The loss's name. Defaults to ``"mean_squared_error"``.
        dtype: The dtype the loss is computed in, or a dtype policy (its compute dtype);
            ``None`` (default) takes ``floatx()``.

    Example:

    >>> y_true = np.array([[0.0, 1.0], [0.0, 0.0]])
    >>> y_pred = np.array([[0.6, 0.4], [0.4, 0.6]])
    >>> loss = lamina.losses.MeanSquaredError()
    >>> round(float(loss(y_true, y_pred)), 4)
    0.31
    >>> model.compile(optimizer="adam", loss=lamina.losses.MeanSquaredError())
    """

    def __init__(self, reduction="sum_over_batch_size", name="mean_squared_error", dtype=None):
        super().__init__(mean_squared_error, name, reduction, dtype)


@register_builtin
class MeanAbsoluteError(BuiltinLoss):
    """Compute the mean of the absolute errors between labels and predictions.

    The loss object of :func:`mean_absolute_error`, reduced over the batch.

    ``loss = mean(abs(y_true - y_pred), axis=-1)``. Also known as ``"mae"``.

    Args:
        reduction: How the per-sample losses are reduced: ``"sum_over_batch_size"``
            (default: their mean), ``"sum"``, ``"mean"``, ``"mean_with_sample_weight"``
            (the weighted sum over the sum of the weights), or ``"none"``/``None`` (no
            reduction).
        name: The loss's name. Defaults to ``"mean_absolute_error"``.
        dtype: The dtype the loss is computed in, or a dtype policy (its compute dtype);
            ``None`` (default) takes ``floatx()``.

    Example:

    >>> y_true = np.array([[0.0, 1.0], [0.0, 0.0]])
    >>> y_pred = np.array([[0.6, 0.4], [0.4, 0.6]])
    >>> loss = lamina.losses.MeanAbsoluteError()
    >>> round(float(loss(y_true, y_pred)), 4)
    0.55
    >>> model.compile(optimizer="adam", loss=lamina.losses.MeanAbsoluteError())
    """

    def __init__(self, reduction="sum_over_batch_size", name="mean_absolute_error",
                 dtype=None):
        super().__init__(mean_absolute_error, name, reduction, dtype)


@register_builtin
class MeanAbsolutePercentageError(BuiltinLoss):
    """Compute the mean absolute percentage error between labels and predictions.

    The loss object of :func:`mean_absolute_percentage_error`, reduced over the batch.

    ``loss = 100 * mean(abs((y_true - y_pred) / max(abs(y_true), epsilon)), axis=-1)``.
    Also known as ``"mape"``.

    Args:
        reduction: How the per-sample losses are reduced: ``"sum_over_batch_size"``
            (default: their mean), ``"sum"``, ``"mean"``, ``"mean_with_sample_weight"``
            (the weighted sum over the sum of the weights), or ``"none"``/``None`` (no
            reduction).
        name: The loss's name. Defaults to ``"mean_absolute_percentage_error"``.
        dtype: The dtype the loss is computed in, or a dtype policy (its compute dtype);
            ``None`` (default) takes ``floatx()``.

    Example:

    >>> y_true = np.array([[1.0, 2.0], [4.0, 5.0]])
    >>> y_pred = np.array([[1.5, 2.0], [4.0, 4.0]])
    >>> loss = lamina.losses.MeanAbsolutePercentageError()
    >>> round(float(loss(y_true, y_pred)), 4)
    17.5
    >>> model.compile(optimizer="adam", loss=lamina.losses.MeanAbsolutePercentageError())
    """

    def __init__(self, reduction="sum_over_batch_size",
                 name="mean_absolute_percentage_error", dtype=None):
        super().__init__(mean_absolute_percentage_error, name, reduction, dtype)


@register_builtin
class MeanSquaredLogarithmicError(BuiltinLoss):
    """Compute the mean squared logarithmic error between labels and predictions.

    The loss object of :func:`mean_squared_logarithmic_error`, reduced over the batch.

    ``loss = mean(square(log(y_pred + 1) - log(y_true + 1)), axis=-1)``; values below
    ``epsilon`` are raised to ``epsilon`` first. Also known as ``"msle"``.

    Args:
        reduction: How the per-sample losses are reduced: ``"sum_over_batch_size"``
            (default: their mean), ``"sum"``, ``"mean"``, ``"mean_with_sample_weight"``
            (the weighted sum over the sum of the weights), or ``"none"``/``None`` (no
            reduction).
        name: The loss's name. Defaults to ``"mean_squared_logarithmic_error"``.
        dtype: The dtype the loss is computed in, or a dtype policy (its compute dtype);
            ``None`` (default) takes ``floatx()``.

    Example:

    >>> y_true = np.array([[0.0, 1.0], [0.0, 0.0]])
    >>> y_pred = np.array([[0.6, 0.4], [0.4, 0.6]])
    >>> loss = lamina.losses.MeanSquaredLogarithmicError()
    >>> round(float(loss(y_true, y_pred)), 4)
    0.1706
    >>> model.compile(optimizer="adam", loss=lamina.losses.MeanSquaredLogarithmicError())
    """

    def __init__(self, reduction="sum_over_batch_size",
                 name="mean_squared_logarithmic_error", dtype=None):
        super().__init__(mean_squared_logarithmic_error, name, reduction, dtype)
