"""Confusion-matrix counts at a list of thresholds (Keras's ``metrics_utils``).

At each threshold ``t`` a prediction ``p`` counts as positive when ``p > t`` and a label
as positive when it is nonzero; each (label, prediction) pair adds its weight to one of
the true/false positive/negative counts. When the thresholds are evenly spaced over
[0, 1] (AUC's default), Keras assigns each prediction to a bucket,
``ceil(p * (T - 1)) - 1``, and counts it positive at every threshold index up to its
bucket; we do the same, so boundary cases round exactly as Keras's do.
"""
from __future__ import annotations

import numbers

from .. import ops
from ..errors import ShapeError, describe_shape
from ..core.op import broadcast_shapes
from .metrics_utils import divide_no_nan, squeeze_or_expand_to_same_rank, to_tensor

NEG_INF = -1e10          # what top_k filtering gives the predictions it drops (Keras)
KINDS = ("tp", "fp", "tn", "fn")


def parse_thresholds(owner: str, thresholds, default: float) -> list:
    """``thresholds`` (None, a number, or a list of numbers in [0, 1]) as a list."""
    if thresholds is None:
        return [default]
    if hasattr(thresholds, "tolist"):
        thresholds = thresholds.tolist()
    values = list(thresholds) if isinstance(thresholds, (list, tuple)) else [thresholds]
    invalid = [t for t in values if isinstance(t, bool) or not isinstance(t, numbers.Real)
               or not 0 <= t <= 1]
    if invalid or not values:
        # Keras's phrase lists the values out of range; then the whole argument.
        raise ValueError(f"{owner}: Threshold values must be in [0, 1]. Received: {invalid} "
                         f"(argument 'thresholds' must be a float or a non-empty list of "
                         f"floats in [0, 1]; received thresholds={thresholds!r})")
    return [float(t) for t in values]


def as_given(thresholds):
    """``thresholds`` as the user wrote them, but JSON-friendly (arrays become lists)."""
    return thresholds.tolist() if hasattr(thresholds, "tolist") else thresholds


def evenly_distributed(thresholds) -> bool:
    """Whether ``thresholds`` are ``i / (n - 1)`` for i = 0..n-1, n >= 3 (to within 1e-7)."""
    n = len(thresholds)
    return n >= 3 and all(abs(t - i / (n - 1)) <= 1e-7 + 1e-5 * (i / (n - 1))
                          for i, t in enumerate(thresholds))


def filter_top_k(x, k: int):
    """``x`` with all but the ``k`` largest entries of each last-axis row set to NEG_INF.
    Ties go to the lower index, as ``top_k`` orders them. Ranks come from comparing every
    pair in a row (lamina.ops has no top_k), so memory grows with classes squared."""
    size = x.shape[-1]
    index = to_tensor(list(range(size)), dtype="int32", like=x)
    earlier = ops.less(ops.expand_dims(index, 0), ops.expand_dims(index, 1))   # [i, j]: j < i
    xi, xj = ops.expand_dims(x, -1), ops.expand_dims(x, -2)
    ahead = ops.logical_or(ops.greater(xj, xi), ops.logical_and(ops.equal(xj, xi), earlier))
    rank = ops.sum(ops.cast(ahead, "int32"), axis=-1)
    keep = ops.cast(ops.less(rank, k), x.dtype)
    return ops.add(ops.multiply(x, keep), ops.multiply(NEG_INF, ops.subtract(1, keep)))


def _predicted_positive(y_pred, thresholds: list, evenly: bool):
    """Booleans of shape ``(T,) + y_pred.shape``: is each prediction above each threshold."""
    count = len(thresholds)
    extra = (1,) * y_pred.ndim
    if evenly:
        y_pred = ops.clip(y_pred, 0.0, 1.0)
        bucket = ops.subtract(ops.ceil(ops.multiply(y_pred, float(count - 1))), 1.0)
        if thresholds[0] < 0 or thresholds[-1] > 1:      # end points -eps and 1 + eps
            bucket = ops.maximum(bucket, 0.0)
        index = to_tensor(list(range(count)), dtype=y_pred.dtype, like=y_pred)
        return ops.greater_equal(ops.expand_dims(bucket, 0), ops.reshape(index, (count,) + extra))
    levels = to_tensor(thresholds, dtype=y_pred.dtype, like=y_pred)
    return ops.greater(ops.expand_dims(y_pred, 0), ops.reshape(levels, (count,) + extra))


def update_confusion_matrix(owner: str, variables: dict, y_true, y_pred, thresholds: list,
                            evenly: bool = False, top_k=None, class_id=None,
                            sample_weight=None, multi_label: bool = False,
                            label_weights=None) -> None:
    """Add this batch's weighted counts to ``variables`` (keys among "tp", "fp", "tn",
    "fn"; each of shape ``(T,)``, or ``(T, labels)`` when ``multi_label``)."""
    state = next(iter(variables.values()))
    dtype = state.dtype
    y_pred = ops.cast(to_tensor(y_pred, like=state), dtype)
    y_true = ops.cast(to_tensor(y_true, like=y_pred), dtype)
    y_pred, y_true = squeeze_or_expand_to_same_rank(y_pred, y_true)
    if y_true.shape != y_pred.shape:
        raise ShapeError(f"{owner}: y_true and y_pred must have the same shape (up to a "
                         f"trailing 1); received {describe_shape(y_true.shape)} and "
                         f"{describe_shape(y_pred.shape)}")
    if sample_weight is not None:
        sample_weight = ops.expand_dims(
            ops.cast(to_tensor(sample_weight, like=y_pred), dtype), -1)
        _, sample_weight = squeeze_or_expand_to_same_rank(y_true, sample_weight,
                                                          expand_rank_1=False)
    if top_k is not None:
        y_pred = filter_top_k(y_pred, top_k)
    if class_id is not None:
        if y_pred.ndim < 2 or not 0 <= class_id < y_pred.shape[-1]:
            # Keras's phrase, then the class the shape must have room for.
            raise ValueError(f"{owner}: When class_id is provided, y_pred must be a 2D array "
                             f"with shape (num_samples, num_classes), found shape: "
                             f"{describe_shape(y_pred.shape)} (class_id={class_id} needs "
                             f"num_classes > {class_id})")
        y_true = y_true[..., class_id:class_id + 1]
        y_pred = y_pred[..., class_id:class_id + 1]
    weights = None
    if sample_weight is not None:
        weights = _broadcast(owner, "sample_weight", sample_weight, y_pred.shape)
    if label_weights is not None:
        lw = _broadcast(owner, "label_weights", ops.cast(label_weights, dtype), y_pred.shape)
        weights = lw if weights is None else ops.multiply(weights, lw)
    if not multi_label:
        y_true, y_pred = ops.reshape(y_true, (-1,)), ops.reshape(y_pred, (-1,))
        weights = None if weights is None else ops.reshape(weights, (-1,))
    predicted = ops.cast(_predicted_positive(y_pred, thresholds, evenly), dtype)
    positive = ops.cast(ops.not_equal(y_true, 0), dtype)
    negative = ops.subtract(1.0, positive)
    if weights is not None:
        positive, negative = ops.multiply(positive, weights), ops.multiply(negative, weights)
    missed = ops.subtract(1.0, predicted)
    counts = {"tp": (predicted, positive), "fp": (predicted, negative),
              "tn": (missed, negative), "fn": (missed, positive)}
    for kind, variable in variables.items():
        pred_side, label_side = counts[kind]
        variable.assign_add(ops.sum(ops.multiply(pred_side, label_side), axis=1))


def _broadcast(owner: str, arg: str, weights, shape):
    try:
        ok = broadcast_shapes(owner, weights.shape, shape) == tuple(shape)
    except ShapeError:
        ok = False
    if not ok:
        raise ShapeError(f"{owner}: argument '{arg}' of shape {describe_shape(weights.shape)} "
                         f"does not broadcast to y_pred's shape {describe_shape(shape)}")
    return ops.broadcast_to(weights, shape)


def ratio(numerator, other):
    """``numerator / (numerator + other)``, 0 where both are 0 (precision, recall, rates)."""
    return divide_no_nan(numerator, ops.add(numerator, other))
