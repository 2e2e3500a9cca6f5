"""Correlation metrics: the Pearson and concordance correlation coefficients of each sample
(along ``axis``), averaged with weights over every batch seen (Keras 3's formulas)."""
from __future__ import annotations

from .. import ops
from ..settings import epsilon
from ..registry import register_builtin
from .loss_wrappers import FixedFunctionMetric
from .metrics_utils import as_pair, float_tensor, squeeze_or_expand_to_same_rank


def _pair(y_true, y_pred):
    y_true, y_pred = as_pair(y_true, float_tensor(y_pred, like=y_true))
    return squeeze_or_expand_to_same_rank(y_true, y_pred)


@register_builtin
def pearson_correlation(y_true, y_pred, axis=-1):
    """``mean(z(y_true) * z(y_pred), axis)`` with ``z(x) = (x - mean(x)) / std(x)`` along
    ``axis``: the Pearson coefficient of each sample, in [-1, 1].

    Args:
        y_true: the labels.
        y_pred: the predictions, the same shape as ``y_true``.
        axis: the axis along which each sample is compared (default -1).

    Returns:
        A tensor of one coefficient per sample (``axis`` removed).
    """
    y_true, y_pred = _pair(y_true, y_pred)
    true_c = ops.subtract(y_true, ops.mean(y_true, axis=axis, keepdims=True))
    pred_c = ops.subtract(y_pred, ops.mean(y_pred, axis=axis, keepdims=True))
    true_z = ops.divide(true_c, ops.std(true_c, axis=axis, keepdims=True))
    pred_z = ops.divide(pred_c, ops.std(pred_c, axis=axis, keepdims=True))
    return ops.mean(ops.multiply(true_z, pred_z), axis=axis)


@register_builtin
def concordance_correlation(y_true, y_pred, axis=-1):
    """Lin's concordance coefficient of each sample along ``axis``, as Keras 3.15 computes
    it: ``mean(2 (y_true - mean(y_pred)) (y_pred - mean(y_pred)) / (var(y_true) +
    var(y_pred) + (mean(y_true) - mean(y_pred))^2 + epsilon), axis)``.

    Args:
        y_true: the labels.
        y_pred: the predictions, the same shape as ``y_true``.
        axis: the axis along which each sample is compared (default -1).

    Returns:
        A tensor of one coefficient per sample (``axis`` removed).
    """
    y_true, y_pred = _pair(y_true, y_pred)
    true_mean = ops.mean(y_true, axis=axis, keepdims=True)
    pred_mean = ops.mean(y_pred, axis=axis, keepdims=True)
    true_var = ops.var(ops.subtract(y_true, true_mean), axis=axis, keepdims=True)
    pred_var = ops.var(ops.subtract(y_pred, pred_mean), axis=axis, keepdims=True)
    # Keras centres y_true on y_pred's mean here; kept so the numbers match Keras's.
    covariance = ops.multiply(ops.subtract(y_true, pred_mean), ops.subtract(y_pred, pred_mean))
    norm = ops.add(ops.add(true_var, pred_var), ops.square(ops.subtract(true_mean, pred_mean)))
    return ops.mean(ops.divide(ops.multiply(2.0, covariance), ops.add(norm, epsilon())),
                    axis=axis)


@register_builtin
class PearsonCorrelation(FixedFunctionMetric):
    """The weighted mean of :func:`pearson_correlation` over the samples seen.

    Args:
        name: the metric's name (default ``"pearson_correlation"``).
        dtype: the dtype of the metric's state and result (default: the float type,
            ``keras.config.floatx()``).
        axis: the axis along which each sample is compared (default -1).
    """

    config_keys = ("axis",)

    def __init__(self, name="pearson_correlation", dtype=None, axis=-1):
        super().__init__(pearson_correlation, name, dtype, direction="up", axis=axis)


@register_builtin
class ConcordanceCorrelation(FixedFunctionMetric):
    """The weighted mean of :func:`concordance_correlation` over the samples seen.

    Args:
        name: the metric's name (default ``"concordance_correlation"``).
        dtype: the dtype of the metric's state and result (default: the float type,
            ``keras.config.floatx()``).
        axis: the axis along which each sample is compared (default -1).
    """

    config_keys = ("axis",)

    def __init__(self, name="concordance_correlation", dtype=None, axis=-1):
        super().__init__(concordance_correlation, name, dtype, direction="up", axis=axis)
