"""Cosine similarity as a loss: ``-cos(y_true, y_pred)``, so minimizing it aligns the
vectors (Keras 3's ``cosine_similarity``; 0 when either vector is zero)."""
from __future__ import annotations

from .. import ops
from ..settings import epsilon
from ..registry import register_builtin
from .checks import check_axis, class_axis, prepare
from .loss import BuiltinLoss


def l2_normalize(x, axis: int):
    """``x / max(||x||, epsilon)`` along ``axis`` (a zero vector stays zero)."""
    eps = epsilon()
    squares = ops.sum(ops.square(x), axis=axis, keepdims=True)
    return ops.multiply(x, ops.rsqrt(ops.maximum(squares, eps * eps)))


@register_builtin
def cosine_similarity(y_true, y_pred, axis=-1):
    """``-sum(l2_normalize(y_true) * l2_normalize(y_pred), axis)``, in [-1, 1]."""
    name = "cosine_similarity"
    y_true, y_pred = prepare(name, y_true, y_pred)
    axis = class_axis(name, check_axis(name, axis), y_pred)
    return ops.negative(ops.sum(ops.multiply(l2_normalize(y_true, axis),
                                             l2_normalize(y_pred, axis)), axis=axis))


@register_builtin
class CosineSimilarity(BuiltinLoss):
    """:func:`cosine_similarity` as a loss object."""

    def __init__(self, axis=-1, reduction="sum_over_batch_size", name="cosine_similarity",
                 dtype=None):
        super().__init__(cosine_similarity, name, reduction, dtype,
                         axis=check_axis(type(self).__name__, axis))
