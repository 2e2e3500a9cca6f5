"""Per-sample accuracy functions (Keras 3's ``keras.metrics.binary_accuracy`` and friends).

Each returns one value per sample (1.0 for a hit, 0.0 for a miss, in ``floatx()``); the
accuracy metric classes average them with ``Mean``. Labels of shape ``(batch,)`` and
``(batch, 1)`` are both accepted where Keras accepts them.
"""
from __future__ import annotations

from .. import ops
from ..dtypes import floatx, is_float
from ..core.op import broadcast_shapes
from ..errors import ShapeError, describe_shape
from ..ops.indexing import checked_take_along_axis
from ..registry import register_builtin
from .metrics_utils import as_pair, check_matching, check_positive_int
from .metrics_utils import squeeze_or_expand_to_same_rank as same_rank


def _hits(y_true, y_pred):
    return ops.cast(ops.equal(y_true, y_pred), floatx())


@register_builtin
def accuracy(y_true, y_pred):
    """1.0 where ``y_pred`` equals ``y_true`` exactly, else 0.0, element by element (Keras 3:
    the metric's mean, not this function, averages)."""
    y_true, y_pred = same_rank(*as_pair(y_true, y_pred))
    return _hits(y_true, y_pred)


@register_builtin
def binary_accuracy(y_true, y_pred, threshold: float = 0.5):
    """1.0 where ``y_pred > threshold`` equals the 0/1 label, else 0.0, element by element
    (as Keras 3).

    Args:
        y_true: the labels.
        y_pred: the predicted probabilities, the same shape as ``y_true``.
        threshold: float; a prediction above it counts as 1 (default 0.5).

    Returns:
        A float tensor of 1.0 and 0.0, the shape of ``y_true``.
    """
    y_true, y_pred = same_rank(*as_pair(y_true, y_pred, true_dtype_from_pred=False))
    y_pred = ops.cast(ops.greater(y_pred, threshold), y_true.dtype)
    return _hits(y_true, y_pred)


@register_builtin
def categorical_accuracy(y_true, y_pred):
    """Whether the argmax of ``y_pred`` is the argmax of the one-hot ``y_true``.

    Args:
        y_true: one-hot labels ``(batch, classes)``.
        y_pred: the scores ``(batch, classes)``.

    Returns:
        A float tensor ``(batch,)`` of 1.0 and 0.0.
    """
    y_true, y_pred = as_pair(y_true, y_pred, true_dtype_from_pred=False)
    true_shape, pred_shape = y_true.shape, y_pred.shape
    labels = ops.argmax(y_true, axis=-1)
    label_shape = labels.shape
    if labels.ndim == y_pred.ndim:          # y_true had an extra trailing axis of size 1
        labels = ops.squeeze(labels, -1)
    predicted = ops.argmax(y_pred, axis=-1)
    check_matching("categorical_accuracy", "one-hot y_true of the shape of y_pred", labels,
                   predicted, true_shape, pred_shape)
    return ops.reshape(_hits(labels, predicted), label_shape)


@register_builtin
def sparse_categorical_accuracy(y_true, y_pred):
    """Whether the argmax of ``y_pred`` is the integer label ``y_true``; labels may have
    shape ``(batch,)`` or ``(batch, 1)``.

    Args:
        y_true: integer labels ``(batch,)`` or ``(batch, 1)``.
        y_pred: the scores ``(batch, classes)``.

    Returns:
        A float tensor ``(batch,)`` of 1.0 and 0.0.
    """
    y_true, y_pred = as_pair(y_true, y_pred, true_dtype_from_pred=False)
    true_shape, pred_shape = y_true.shape, y_pred.shape
    if y_true.ndim == y_pred.ndim and y_true.shape[-1] == 1:
        y_true = ops.squeeze(y_true, -1)
    predicted = ops.cast(ops.argmax(y_pred, axis=-1), y_true.dtype)
    expected = "integer labels y_true of the shape of y_pred without its last axis"
    if tuple(y_true.shape) != tuple(predicted.shape):
        # As Keras: labels and predicted classes of different shapes are compared
        # broadcast ((2, 1) labels against (1, 2) predictions give (2, 2) hits), when they
        # broadcast.
        try:
            broadcast_shapes("sparse_categorical_accuracy", y_true.shape, predicted.shape)
        except ShapeError:
            check_matching("sparse_categorical_accuracy", f"{expected} (or broadcastable "
                           f"to it)", y_true, predicted, true_shape, pred_shape)
        matches = _hits(y_true, predicted)
    else:
        matches = ops.reshape(_hits(y_true, predicted), true_shape)
    if matches.ndim > 1 and matches.shape[-1] == 1:
        matches = ops.squeeze(matches, -1)
    return matches


def in_top_k(targets, predictions, k: int, name: str = "in_top_k"):
    """Whether each target's score is among the ``k`` largest of its row: fewer than ``k``
    scores are strictly larger (ties with the k-th score count as in, as in Keras; a NaN
    score never does). ``targets`` has shape (n,), ``predictions`` (n, classes); a target
    outside ``[0, classes)`` is an error naming ``name``, in eager and graph mode."""
    if not is_float(predictions.dtype):
        predictions = ops.cast(predictions, floatx())
    if targets.ndim != 1 or predictions.ndim != 2 or targets.shape[0] != predictions.shape[0]:
        raise ShapeError(f"in_top_k: expected targets of shape (n,) and predictions of shape "
                         f"(n, classes); received {describe_shape(targets.shape)} and "
                         f"{describe_shape(predictions.shape)}")
    at_label = checked_take_along_axis(
        predictions, ops.expand_dims(targets, -1), axis=-1,
        range_message=f"{name}: y_true holds the label {{bad}}, outside the valid range "
                      f"[0, {{size}}) for y_pred with {{size}} classes (received labels from "
                      f"{{low}} to {{high}})")
    at_label = ops.where(ops.isnan(at_label), float("-inf"), at_label)
    larger = ops.sum(ops.cast(ops.greater(predictions, at_label), "int32"), axis=-1)
    return ops.less(larger, k)


def _top_k_hits(name, labels, y_pred, k):
    check_positive_int(name, "k", k)
    label_shape = labels.shape
    if y_pred.ndim > 2:
        y_pred = ops.reshape(y_pred, (-1, y_pred.shape[-1]))
    if labels.ndim > 1:
        labels = ops.reshape(labels, (-1,))
    hits = ops.cast(in_top_k(ops.cast(labels, "int32"), y_pred, k, name=name), floatx())
    return ops.reshape(hits, label_shape)


@register_builtin
def top_k_categorical_accuracy(y_true, y_pred, k: int = 5):
    """Whether the class of the one-hot ``y_true`` is among the ``k`` top scores.

    Args:
        y_true: one-hot labels ``(batch, classes)``.
        y_pred: the scores ``(batch, classes)``.
        k: int, how many of the top scores count (default 5).

    Returns:
        A float tensor ``(batch,)`` of 1.0 and 0.0.
    """
    y_true, y_pred = as_pair(y_true, y_pred, true_dtype_from_pred=False)
    check_matching("top_k_categorical_accuracy", "one-hot y_true of the shape of y_pred",
                   y_true, y_pred, y_true.shape, y_pred.shape)
    return _top_k_hits("top_k_categorical_accuracy", ops.argmax(y_true, axis=-1), y_pred, k)


@register_builtin
def sparse_top_k_categorical_accuracy(y_true, y_pred, k: int = 5, from_sorted_ids=False):
    """Whether the integer label ``y_true`` is among the ``k`` top scores of ``y_pred``.

    With ``from_sorted_ids=True``, ``y_pred`` holds instead the ids of the top categories
    from best to worst (shape ``(batch, N)``, ``N >= k``): a hit is ``y_true`` among the
    first ``k`` of them.

    Args:
        y_true: integer labels ``(batch,)`` or ``(batch, 1)``.
        y_pred: the scores ``(batch, classes)``, or the sorted ids with ``from_sorted_ids``.
        k: int, how many of the top scores count (default 5).
        from_sorted_ids: bool; ``y_pred`` holds the top category ids, best first, instead
            of scores (default False).

    Returns:
        A float tensor ``(batch,)`` of 1.0 and 0.0.

    Example:

    >>> import lamina as keras
    >>> keras.metrics.sparse_top_k_categorical_accuracy(
    ...     [2, 1], [[0.1, 0.9, 0.8], [0.05, 0.95, 0]], k=1).numpy()
    array([0., 1.], dtype=float32)
    """
    name = "sparse_top_k_categorical_accuracy"
    y_true, y_pred = as_pair(y_true, y_pred, true_dtype_from_pred=False)
    labels = y_true
    if y_true.ndim == y_pred.ndim and y_true.shape[-1] == 1:
        labels = ops.squeeze(y_true, -1)
    expected_shape = tuple(y_pred.shape[:-1])
    if tuple(labels.shape) != expected_shape:
        raise ShapeError(f"{name}: expected integer labels y_true of shape "
                         f"{describe_shape(expected_shape)} (or with a trailing 1); received "
                         f"y_true of shape {describe_shape(y_true.shape)} and y_pred of "
                         f"shape {describe_shape(y_pred.shape)}")
    if not from_sorted_ids:
        return _top_k_hits(name, y_true, y_pred, k)
    check_positive_int(name, "k", k)
    if y_pred.shape[-1] < k:
        raise ShapeError(f"{name}: with from_sorted_ids=True, y_pred must hold at least k={k} "
                         f"ids per sample; received y_pred of shape "
                         f"{describe_shape(y_pred.shape)}")
    top = ops.cast(y_pred[..., :k], y_true.dtype)
    hits = ops.any(ops.equal(ops.expand_dims(labels, -1), top), axis=-1)
    return ops.reshape(ops.cast(hits, floatx()), y_true.shape)
