"""How a loss turns per-sample values into the number training minimizes (Keras 3's rules).

* ``"sum_over_batch_size"`` (the default) and ``"mean"``: the sum of the weighted values
  divided by the *number of values* (not by the sum of the weights);
* ``"sum"``: the sum of the weighted values;
* ``"mean_with_sample_weight"``: the sum of the weighted values divided by the sum of the
  weights (the number of values when there are no weights);
* ``"none"`` or ``None``: the weighted values themselves.

A mask (``y_pred._keras_mask``, or one a loss function sets on its result) acts as a 0/1
weight; for the two averaging reductions it is rescaled by ``total / valid``, so the result
is the average over the unmasked values, as in Keras.
"""
from __future__ import annotations

import math

from .. import ops
from ..core.tensor import Tensor, TensorBase
from ..errors import ShapeError, describe_shape
from ..ops.core import to_backend_tensor
from ..ops.reduction import num_elements, num_rows  # noqa: F401  (losses use them)

REDUCTIONS = ("sum_over_batch_size", "sum", "mean", "mean_with_sample_weight", "none", None)
_AVERAGES = ("sum_over_batch_size", "mean")


def standardize_reduction(owner: str, reduction):
    """``reduction`` checked against Keras 3's names."""
    if not (reduction is None or isinstance(reduction, str)) or reduction not in REDUCTIONS:
        raise ValueError(f"{owner}: Invalid value for argument `reduction`: it must be one "
                         f"of 'sum_over_batch_size', 'sum', 'mean', 'mean_with_sample_weight', "
                         f"'none' or None; received {reduction!r}")
    return reduction


def squeeze_or_expand_to_same_rank(x1, x2, expand_rank_1: bool = True):
    """Make ranks equal when they differ by one and the longer one ends in a size-1 axis:
    that axis is dropped, or (when the other is 1-D) the other gains one (Keras's rule:
    ``(batch,)`` labels meet ``(batch, 1)`` predictions)."""
    rank1, rank2 = len(x1.shape), len(x2.shape)
    if rank1 == rank2 + 1 and x1.shape[-1] == 1:
        if rank2 == 1 and expand_rank_1:
            x2 = ops.expand_dims(x2, -1)
        else:
            x1 = ops.squeeze(x1, -1)
    elif rank2 == rank1 + 1 and x2.shape[-1] == 1:
        if rank1 == 1 and expand_rank_1:
            x1 = ops.expand_dims(x1, -1)
        else:
            x2 = ops.squeeze(x2, -1)
    return x1, x2


def divide_no_nan(x, y):
    """``x / y``, and 0 where ``y`` is 0 (no warning, no NaN)."""
    zero = ops.equal(y, 0)
    return ops.where(zero, ops.zeros_like(x), ops.divide(x, ops.where(zero, ops.ones_like(y), y)))


def align_weights(owner: str, weights, values, what: str = "sample_weight"):
    """``weights`` with trailing size-1 axes added so that it broadcasts against ``values``
    from the left (``(batch,)`` weights over ``(batch, timesteps)`` losses)."""
    original = weights.shape
    for _ in range(len(values.shape) - len(weights.shape)):
        weights = ops.expand_dims(weights, -1)
    fits = len(weights.shape) <= len(values.shape) and all(
        w in (1, None) or v is None or w == v
        for w, v in zip(weights.shape[::-1], values.shape[::-1]))
    if not fits:
        raise ShapeError(f"{owner}: {what} of shape {describe_shape(original)} does not "
                         f"broadcast to the per-sample losses of shape "
                         f"{describe_shape(values.shape)}; give one weight per sample (batch,) "
                         f"or one per loss value")
    return weights


def apply_mask(owner: str, sample_weight, mask, values, reduction):
    """The mask merged into the sample weights (see the module docstring)."""
    if mask is None:
        return sample_weight
    mask = ops.cast(mask, values.dtype)
    if reduction in _AVERAGES:
        valid = ops.sum(mask)                      # may be 0: then every weight is 0
        scale = divide_no_nan(ops.add(ops.zeros_like(valid), num_elements(mask)), valid)
        mask = ops.multiply(mask, scale)
    if sample_weight is None:
        return mask
    mask, sample_weight = squeeze_or_expand_to_same_rank(mask, sample_weight)
    if len(sample_weight.shape) < len(mask.shape):
        sample_weight = align_weights(owner, sample_weight, mask)
    else:
        mask = align_weights(owner, mask, sample_weight, what="mask")
    return ops.multiply(sample_weight, mask)


def reduce_values(values, sample_weight=None, reduction="sum_over_batch_size"):
    """The reduction of already-weighted ``values``."""
    if reduction in (None, "none") or tuple(values.shape) in ((), (0,)):
        return values
    loss = ops.sum(values)
    if reduction == "sum":
        return loss
    if reduction == "mean_with_sample_weight" and sample_weight is not None:
        # The weights as broadcast over the values: (batch,) weights of (batch, steps)
        # losses count once per step.
        total = ops.sum(ops.multiply(ops.ones_like(values), sample_weight))
        return divide_no_nan(loss, total)
    count = num_elements(values)
    if isinstance(count, int):
        return ops.divide(loss, count) if count > 0 else loss
    return divide_no_nan(loss, ops.cast(count, loss.dtype))


def convert_like(x, reference, dtype=None):
    """``x`` as a tensor of ``dtype`` (default: the reference's) on the reference's backend
    (host data next to a GPU tensor is copied to the GPU)."""
    dtype = dtype or reference.dtype
    if isinstance(x, TensorBase):
        return x if x.dtype == dtype else ops.cast(x, dtype)
    backend = reference.backend if isinstance(reference, Tensor) else None
    return to_backend_tensor(x, dtype=dtype, backend=backend)


def reduce_weighted_values(values, sample_weight=None, mask=None,
                           reduction="sum_over_batch_size", dtype=None, owner: str = "loss"):
    """Weight ``values`` (per-sample losses) by ``sample_weight`` and ``mask``, then reduce."""
    reduction = standardize_reduction(owner, reduction)
    values = ops.convert_to_tensor(values, dtype=dtype)
    if sample_weight is not None:
        sample_weight = convert_like(sample_weight, values)
    sample_weight = apply_mask(owner, sample_weight, mask, values, reduction)
    if sample_weight is not None:
        if not values.shape and sample_weight.shape:
            # One loss for the whole batch (Dice, Tversky with axis=None): as in Keras,
            # each sample's weight scales that loss.
            values = ops.multiply(ops.ones_like(sample_weight), values)
        values, sample_weight = squeeze_or_expand_to_same_rank(values, sample_weight)
        sample_weight = align_weights(owner, sample_weight, values)
        values = ops.multiply(values, sample_weight)
    return reduce_values(values, sample_weight, reduction)
