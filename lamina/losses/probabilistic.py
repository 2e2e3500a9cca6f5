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
    """Compute the Kullback-Leibler divergence between labels and predictions.

    ``loss = sum(y_true * log(y_true / y_pred), axis=-1)``, both clipped to
    ``[epsilon, 1]`` first. Also known as ``"kld"``.

    Args:
        y_true: The target distributions, of shape ``(batch, ..., d)``.
        y_pred: The predicted distributions, of the same shape.

    Returns:
        The loss per sample: a tensor of shape ``y_true.shape[:-1]``.

    Example:

    >>> y_true = np.array([[0.0, 1.0], [0.5, 0.5]])
    >>> y_pred = np.array([[0.6, 0.4], [0.4, 0.6]])
    >>> lamina.losses.kl_divergence(y_true, y_pred).numpy().round(4)
    array([0.9163, 0.0204])
    """
    y_true, y_pred = prepare("kl_divergence", y_true, y_pred)
    y_true = ops.clip(y_true, epsilon(), 1.0)
    y_pred = ops.clip(y_pred, epsilon(), 1.0)
    return ops.sum(ops.multiply(y_true, ops.log(ops.divide(y_true, y_pred))), axis=-1)


@register_builtin
def poisson(y_true, y_pred):
    """Compute the Poisson loss between labels and predictions.

    ``loss = mean(y_pred - y_true * log(y_pred + epsilon), axis=-1)``, for counts.

    Args:
        y_true: The observed counts, of shape ``(batch, ..., d)``.
        y_pred: The predicted rates, of the same shape.

    Returns:
        The loss per sample: a tensor of shape ``y_true.shape[:-1]``.

    Example:

    >>> y_true = np.array([[0.0, 1.0], [0.0, 0.0]])
    >>> y_pred = np.array([[0.6, 0.4], [0.4, 0.6]])
    >>> lamina.losses.poisson(y_true, y_pred).numpy().round(4)
    array([0.9581, 0.5   ])
    """
    y_true, y_pred = prepare("poisson", y_true, y_pred)
    log_rate = ops.log(ops.add(y_pred, epsilon()))
    return ops.mean(ops.subtract(y_pred, ops.multiply(y_true, log_rate)), axis=-1)


@register_builtin
class KLDivergence(BuiltinLoss):
    """Compute the Kullback-Leibler divergence between labels and predictions.

    The loss object of :func:`kl_divergence`, reduced over the batch.

    ``loss = sum(y_true * log(y_true / y_pred), axis=-1)``, both clipped to
    ``[epsilon, 1]`` first. Also known as ``"kld"``.

    Args:
        reduction: How the per-sample losses are reduced: ``"sum_over_batch_size"``
            (default: their mean), ``"sum"``, ``"mean"``, ``"mean_with_sample_weight"``
            (the weighted sum over the sum of the weights), or ``"none"``/``None`` (no
            reduction).
        name: The loss's name. Defaults to ``"kl_divergence"``.
        dtype: The dtype the loss is computed in, or a dtype policy (its compute dtype);
            ``None`` (default) takes ``floatx()``.

    Example:

    >>> y_true = np.array([[0.0, 1.0], [0.5, 0.5]])
    >>> y_pred = np.array([[0.6, 0.4], [0.4, 0.6]])
    >>> loss = lamina.losses.KLDivergence()
    >>> round(float(loss(y_true, y_pred)), 4)
    0.4684
    >>> model.compile(optimizer="adam", loss=lamina.losses.KLDivergence())
    """

    def __init__(self, reduction="sum_over_batch_size", name="kl_divergence", dtype=None):
        super().__init__(kl_divergence, name, reduction, dtype)


@register_builtin
class Poisson(BuiltinLoss):
    """Compute the Poisson loss between labels and predictions.

    The loss object of :func:`poisson`, reduced over the batch.

    ``loss = mean(y_pred - y_true * log(y_pred + epsilon), axis=-1)``, for counts.

    Args:
        reduction: How the per-sample losses are reduced: ``"sum_over_batch_size"``
            (default: their mean), ``"sum"``, ``"mean"``, ``"mean_with_sample_weight"``
            (the weighted sum over the sum of the weights), or ``"none"``/``None`` (no
            reduction).
        name: The loss's name. Defaults to ``"poisson"``.
        dtype: The dtype the loss is computed in, or a dtype policy (its compute dtype);
            ``None`` (default) takes ``floatx()``.

    Example:

    >>> y_true = np.array([[0.0, 1.0], [0.0, 0.0]])
    >>> y_pred = np.array([[0.6, 0.4], [0.4, 0.6]])
    >>> loss = lamina.losses.Poisson()
    >>> round(float(loss(y_true, y_pred)), 4)
    0.7291
    >>> model.compile(optimizer="adam", loss=lamina.losses.Poisson())
    """

    def __init__(self, reduction="sum_over_batch_size", name="poisson", dtype=None):
        super().__init__(poisson, name, reduction, dtype)
