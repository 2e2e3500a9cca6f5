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
    """Compute the Huber loss: quadratic for small errors, linear for large ones.

    ``loss = mean(h(e), axis=-1)`` with ``e = y_pred - y_true``, where
    ``h(e) = 0.5 * e**2`` for ``|e| <= delta`` and ``delta * |e| - 0.5 * delta**2``
    beyond.

    Args:
        y_true: The labels (ground truth), of shape ``(batch, ..., d)``.
        y_pred: The predictions, of the same shape as ``y_true``.
        delta: The error size at which the loss turns from quadratic to linear.
            Defaults to 1.0.

    Returns:
        The loss per sample: a tensor of shape ``y_true.shape[:-1]``.

    Example:

    >>> y_true = np.array([[0.0, 1.0], [0.0, 0.0]])
    >>> y_pred = np.array([[0.6, 2.5], [0.4, 0.6]])
    >>> lamina.losses.huber(y_true, y_pred).numpy().round(4)
    array([0.59, 0.13])
    """
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
    """Compute the logarithm of the hyperbolic cosine of the prediction error.

    ``loss = mean(log(cosh(y_pred - y_true)), axis=-1)``, computed as
    ``|e| + log1p(exp(-2|e|)) - log(2)``: no overflow for large errors. It is about
    ``e**2 / 2`` for small errors and ``|e| - log(2)`` for large ones.

    Args:
        y_true: The labels (ground truth), of shape ``(batch, ..., d)``.
        y_pred: The predictions, of the same shape as ``y_true``.

    Returns:
        The loss per sample: a tensor of shape ``y_true.shape[:-1]``.

    Example:

    >>> y_true = np.array([[0.0, 1.0], [0.0, 0.0]])
    >>> y_pred = np.array([[0.6, 0.4], [0.4, 0.6]])
    >>> lamina.losses.log_cosh(y_true, y_pred).numpy().round(4)
    array([0.1701, 0.124 ])
    """
    y_true, y_pred = prepare("log_cosh", y_true, y_pred)
    magnitude = ops.abs(ops.subtract(y_pred, y_true))
    value = ops.add(magnitude, ops.log1p(ops.exp(ops.multiply(magnitude, -2.0))))
    return ops.mean(ops.subtract(value, _LOG_2), axis=-1)


@register_builtin
class Huber(BuiltinLoss):
    """Compute the Huber loss: quadratic for small errors, linear for large ones.

    The loss object of :func:`huber`, reduced over the batch.

    ``loss = mean(h(e), axis=-1)`` with ``e = y_pred - y_true``, where
    ``h(e) = 0.5 * e**2`` for ``|e| <= delta`` and ``delta * |e| - 0.5 * delta**2``
    beyond.

    Args:
        delta: The error size at which the loss turns from quadratic to linear.
            Defaults to 1.0.
        reduction: How the per-sample losses are reduced: ``"sum_over_batch_size"``
            (default: their mean), ``"sum"``, ``"mean"``, ``"mean_with_sample_weight"``
            (the weighted sum over the sum of the weights), or ``"none"``/``None`` (no
            reduction).
        name: The loss's name. Defaults to ``"huber_loss"``.
        dtype: The dtype the loss is computed in, or a dtype policy (its compute dtype);
            ``None`` (default) takes ``floatx()``.

    Example:

    >>> y_true = np.array([[0.0, 1.0], [0.0, 0.0]])
    >>> y_pred = np.array([[0.6, 2.5], [0.4, 0.6]])
    >>> loss = lamina.losses.Huber()
    >>> round(float(loss(y_true, y_pred)), 4)
    0.36
    >>> model.compile(optimizer="adam", loss=lamina.losses.Huber())
    """

    _config_omits_defaults = {"delta": 1.0}

    def __init__(self, delta=1.0, reduction="sum_over_batch_size", name="huber_loss",
                 dtype=None):
        super().__init__(huber, name, reduction, dtype,
                         delta=check_number(type(self).__name__, "delta", delta, 0.0))


@register_builtin
class LogCosh(BuiltinLoss):
    """Compute the logarithm of the hyperbolic cosine of the prediction error.

    The loss object of :func:`log_cosh`, reduced over the batch.

    ``loss = mean(log(cosh(y_pred - y_true)), axis=-1)``, computed as
    ``|e| + log1p(exp(-2|e|)) - log(2)``: no overflow for large errors. It is about
    ``e**2 / 2`` for small errors and ``|e| - log(2)`` for large ones.

    Args:
        reduction: How the per-sample losses are reduced: ``"sum_over_batch_size"``
            (default: their mean), ``"sum"``, ``"mean"``, ``"mean_with_sample_weight"``
            (the weighted sum over the sum of the weights), or ``"none"``/``None`` (no
            reduction).
        name: The loss's name. Defaults to ``"log_cosh"``.
        dtype: The dtype the loss is computed in, or a dtype policy (its compute dtype);
            ``None`` (default) takes ``floatx()``.

    Example:

    >>> y_true = np.array([[0.0, 1.0], [0.0, 0.0]])
    >>> y_pred = np.array([[0.6, 0.4], [0.4, 0.6]])
    >>> loss = lamina.losses.LogCosh()
    >>> round(float(loss(y_true, y_pred)), 4)
    0.1471
    >>> model.compile(optimizer="adam", loss=lamina.losses.LogCosh())
    """

    def __init__(self, reduction="sum_over_batch_size", name="log_cosh", dtype=None):
        super().__init__(log_cosh, name, reduction, dtype)
