"""Circle loss (Sun et al. 2020) for metric learning on L2-normalized embeddings, as Keras 3
computes it: pairs of the same label are pulled together, others pushed apart, each pair
weighted by how far it is from its optimum."""
from __future__ import annotations

from .. import ops
from ..registry import register_builtin
from .checks import as_prediction
from .loss import BuiltinLoss
from .reduction import convert_like

_LOG_ZERO = -1e30


def _pair_masks(query_labels, key_labels, remove_diagonal: bool):
    """``(positive, negative)`` boolean masks of shape ``(queries, keys)``: same label or not;
    with ``remove_diagonal`` a query is not its own positive."""
    query = ops.reshape(query_labels, (-1, 1))
    key = ops.reshape(key_labels, (1, -1))
    positive = ops.equal(query, key)
    negative = ops.logical_not(positive)
    if remove_diagonal:
        rows = ops.reshape(ops.arange(query.shape[0], dtype="int32"), (-1, 1))
        cols = ops.reshape(ops.arange(key.shape[1], dtype="int32"), (1, -1))
        positive = ops.logical_and(positive, ops.not_equal(rows, cols))
    return positive, negative


@register_builtin
def circle(y_true, y_pred, ref_labels=None, ref_embeddings=None, remove_diagonal=True,
           gamma=80, margin=0.4):
    """Compute the Circle loss, for metric learning of embeddings.

    After Sun et al., 2020: pulls embeddings of the same label together and pushes
    those of other labels apart, weighting each pair by how far it is from its optimum.

    Args:
        y_true: Integer labels, of shape ``(batch,)``.
        y_pred: L2-normalized embeddings, of shape ``(batch, dim)``.
        ref_labels: The labels of the reference embeddings; ``None`` (default) uses
            ``y_true``.
        ref_embeddings: The reference embeddings; ``None`` (default) uses ``y_pred``.
        gamma: The scale of the similarities. Defaults to 80.
        margin: The relaxation margin. Defaults to 0.4.
        remove_diagonal: If ``True`` (default), an embedding is not its own positive
            pair (with the batch as reference).

    Returns:
        The loss per embedding: a tensor of shape ``(batch,)``.

    Example:

    >>> y_true = np.array([0, 0, 1])
    >>> y_pred = np.array([[1.0, 0.0], [0.8, 0.6], [0.0, 1.0]])
    >>> lamina.losses.circle(y_true, y_pred).numpy().round(4)
    array([0.    , 6.4017, 0.    ])
    """
    y_pred = as_prediction(y_pred)
    labels = ops.cast(convert_like(y_true, y_pred), "int32")
    refs = y_pred if ref_embeddings is None else convert_like(ref_embeddings, y_pred)
    ref_labels = labels if ref_labels is None else \
        ops.cast(convert_like(ref_labels, y_pred), "int32")
    distances = ops.maximum(ops.subtract(1.0, ops.matmul(y_pred, ops.transpose(refs))), 0.0)
    positive, negative = _pair_masks(labels, ref_labels, remove_diagonal)
    pos_mask = ops.cast(positive, distances.dtype)
    neg_mask = ops.cast(negative, distances.dtype)
    pos_weights = ops.maximum(ops.multiply(ops.add(distances, margin), pos_mask), 0.0)
    neg_weights = ops.maximum(ops.multiply(ops.subtract(1.0 + margin, distances), neg_mask),
                              0.0)
    pos_terms = ops.multiply(-gamma, ops.multiply(pos_weights, ops.subtract(margin, distances)))
    neg_terms = ops.multiply(gamma, ops.multiply(neg_weights,
                                                 ops.subtract(1.0 - margin, distances)))
    # Keras masks with -inf; a finite "log 0" gives the same loss (softplus of it is 0) and
    # keeps the gradient of a row without positives (or negatives) 0 instead of NaN.
    log_zero = ops.full_like(distances, _LOG_ZERO)
    p_loss = ops.logsumexp(ops.where(positive, pos_terms, log_zero), axis=1)
    n_loss = ops.logsumexp(ops.where(negative, neg_terms, log_zero), axis=1)
    loss = ops.softplus(ops.add(p_loss, n_loss))
    loss._keras_mask = ops.greater(loss, 0.0)
    return loss


@register_builtin
class Circle(BuiltinLoss):
    """Compute the Circle loss, for metric learning of embeddings.

    The loss object of :func:`circle`, reduced over the batch.

    After Sun et al., 2020: pulls embeddings of the same label together and pushes
    those of other labels apart, weighting each pair by how far it is from its optimum.

    Args:
        gamma: The scale of the similarities. Defaults to 80.
        margin: The relaxation margin. Defaults to 0.4.
        remove_diagonal: If ``True`` (default), an embedding is not its own positive
            pair (with the batch as reference).
        reduction: How the per-sample losses are reduced: ``"sum_over_batch_size"``
            (default: their mean), ``"sum"``, ``"mean"``, ``"mean_with_sample_weight"``
            (the weighted sum over the sum of the weights), or ``"none"``/``None`` (no
            reduction).
        name: The loss's name. Defaults to ``"circle"``.
        dtype: The dtype the loss is computed in, or a dtype policy (its compute dtype);
            ``None`` (default) takes ``floatx()``.

    Example:

    >>> y_true = np.array([0, 0, 1])
    >>> y_pred = np.array([[1.0, 0.0], [0.8, 0.6], [0.0, 1.0]])
    >>> loss = lamina.losses.Circle()
    >>> round(float(loss(y_true, y_pred)), 4)
    3.2008
    >>> model.compile(optimizer="adam", loss=lamina.losses.Circle())
    """

    def __init__(self, gamma=80.0, margin=0.4, remove_diagonal=True,
                 reduction="sum_over_batch_size", name="circle", dtype=None):
        super().__init__(circle, name, reduction, dtype, gamma=gamma, margin=margin,
                         remove_diagonal=remove_diagonal)
