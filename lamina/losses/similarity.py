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
    """Compute the negative cosine similarity between labels and predictions.

    ``loss = -sum(l2_normalize(y_true) * l2_normalize(y_pred), axis)``, in [-1, 1]:
    -1 when they point the same way, so minimizing it brings them together.

    Args:
        y_true: The labels (ground truth), of shape ``(batch, ..., d)``.
        y_pred: The predictions, of the same shape as ``y_true``.
        axis: The axis along which the similarity is computed. Defaults to -1.

    Returns:
        The loss per sample: a tensor of the shape of ``y_true`` without ``axis``.

    Example:

    >>> y_true = np.array([[0.0, 1.0], [1.0, 1.0]])
    >>> y_pred = np.array([[1.0, 1.0], [1.0, 1.0]])
    >>> lamina.losses.cosine_similarity(y_true, y_pred, axis=1).numpy().round(4)
    array([-0.7071, -1.    ])
    """
    name = "cosine_similarity"
    y_true, y_pred = prepare(name, y_true, y_pred)
    axis = class_axis(name, check_axis(name, axis), y_pred)
    return ops.negative(ops.sum(ops.multiply(l2_normalize(y_true, axis),
                                             l2_normalize(y_pred, axis)), axis=axis))


@register_builtin
class CosineSimilarity(BuiltinLoss):
    """Compute the negative cosine similarity between labels and predictions.

    The loss object of :func:`cosine_similarity`, reduced over the batch.

    ``loss = -sum(l2_normalize(y_true) * l2_normalize(y_pred), axis)``, in [-1, 1]:
    -1 when they point the same way, so minimizing it brings them together.

    Args:
        axis: The axis along which the similarity is computed. Defaults to -1.
        reduction: How the per-sample losses are reduced: ``"sum_over_batch_size"``
            (default: their mean), ``"sum"``, ``"mean"``, ``"mean_with_sample_weight"``
            (the weighted sum over the sum of the weights), or ``"none"``/``None`` (no
            reduction).
        name: The loss's name. Defaults to ``"cosine_similarity"``.
        dtype: The dtype the loss is computed in, or a dtype policy (its compute dtype);
            ``None`` (default) takes ``floatx()``.

    Example:

    >>> y_true = np.array([[0.0, 1.0], [1.0, 1.0]])
    >>> y_pred = np.array([[1.0, 1.0], [1.0, 1.0]])
    >>> loss = lamina.losses.CosineSimilarity()
    >>> round(float(loss(y_true, y_pred)), 4)
    -0.8536
    >>> model.compile(optimizer="adam", loss=lamina.losses.CosineSimilarity())
    """

    _config_omits_defaults = {"axis": -1}

    def __init__(self, axis=-1, reduction="sum_over_batch_size", name="cosine_similarity",
                 dtype=None):
        super().__init__(cosine_similarity, name, reduction, dtype,
                         axis=check_axis(type(self).__name__, axis))
