"""BatchNormalization(synchronized=True) under DataParallel: the batch statistics of the
global batch, from sums reduced over the processes (``allreduce_sum``, differentiable), so
the forward pass and the gradients equal one process's.

Two passes, as one process computes them: the mean from the summed counts and sums, then
the variance from the summed squared deviations from that mean.
"""
from __future__ import annotations

from .. import ops
from ..settings import epsilon
from ..ops.reduction import num_rows
from .collective_ops import allreduce_sum
from ..ops.random_rows import in_data_parallel_step


def synchronized_moments(layer, x, mask):
    """(mean, variance), shape ``(C,)``, over the global batch; None when no data-parallel
    step is running (one process: nothing to synchronize)."""
    if not in_data_parallel_step():
        return None
    axes = layer._reduction_axes
    channels = (x.shape[layer.axis],)
    if mask is None:
        weights = None
        first = ops.sum(x, axis=axes, keepdims=True)
        count = ops.multiply(ops.ones_like(first), _elements_per_channel(x, axes))
    else:
        weights = ops.expand_dims(ops.cast(mask, x.dtype), -1)
        first = ops.sum(ops.multiply(weights, x), axis=axes, keepdims=True)
        count = ops.multiply(ops.ones_like(first), ops.sum(weights, axis=axes, keepdims=True))
    total = allreduce_sum(ops.concatenate([first, count], axis=layer.axis))
    first, count = ops.split(total, 2, axis=layer.axis)
    if mask is not None:
        count = ops.add(count, epsilon())
    mean = ops.divide(first, count)
    centered = ops.subtract(x if weights is None else ops.multiply(weights, x), mean)
    squared = ops.square(centered)
    if weights is not None:
        squared = ops.multiply(weights, squared)
    variance = ops.divide(allreduce_sum(ops.sum(squared, axis=axes, keepdims=True)), count)
    return ops.reshape(mean, channels), ops.reshape(variance, channels)


def _elements_per_channel(x, axes):
    """Rows times the other reduced sizes, as a scalar tensor (rows unknown when traced)."""
    rows = num_rows(x)
    rows = ops.cast(rows, x.dtype) if hasattr(rows, "dtype") else float(rows)
    other = 1
    for axis in axes:
        if axis != 0:
            other *= int(x.shape[axis])
    return rows * other if isinstance(rows, float) else ops.multiply(rows, float(other))


__all__ = ["synchronized_moments"]
