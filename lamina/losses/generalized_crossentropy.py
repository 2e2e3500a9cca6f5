"""Generalized crossentropy (Zhang & Sabuncu 2018), robust to noisy labels: ``(1 - p^q) / q``
where ``p`` is the predicted probability of the true class (Keras 3's formula)."""
from __future__ import annotations

from .. import ops
from ..registry import register_builtin
from .checks import as_prediction
from .loss import BuiltinLoss
from .reduction import convert_like


def _check_q(owner: str, q):
    if isinstance(q, bool) or not isinstance(q, (int, float)) or not 0 < q < 1:
        raise ValueError(f"{owner}: argument 'q' must be a number in the open interval "
                         f"(0, 1); received q={q!r}")
    return q


@register_builtin
def categorical_generalized_cross_entropy(y_true, y_pred, q):
    """``(1 - p^q) / q`` per sample, with integer labels ``y_true`` and probabilities
    ``y_pred`` of shape ``(..., num_classes)``; q -> 0 tends to crossentropy, q = 1 is MAE."""
    y_pred = as_prediction(y_pred)
    labels = ops.cast(convert_like(y_true, y_pred), "int32")
    hot = ops.one_hot(labels, y_pred.shape[-1], dtype=y_pred.dtype)
    p = ops.sum(ops.multiply(y_pred, hot), axis=-1)
    return ops.divide(ops.subtract(1.0, ops.power(p, q)), q)


@register_builtin
class CategoricalGeneralizedCrossEntropy(BuiltinLoss):
    """:func:`categorical_generalized_cross_entropy` as a loss object."""

    def __init__(self, q=0.5, reduction="sum_over_batch_size",
                 name="categorical_generalized_cross_entropy", dtype=None):
        super().__init__(categorical_generalized_cross_entropy, name, reduction, dtype,
                         q=_check_q(type(self).__name__, q))
