"""The gradient exchange: each process's gradients, weighted by its share of the global
batch, summed over the processes in buckets.

The loss of a step is the mean over the process's rows, so the global-mean gradient is
``sum_p (rows_p / B) * grad_p``: every gradient is multiplied by the share (a Variable
that the step wrapper sets, so a traced step reads the current value) before the sum.

Buckets are filled in reverse variable order (the backward pass produces the last layer's
gradients first) up to ``DataParallel.bucket_bytes`` and never mix dtypes. Each bucket is
flattened into one buffer, its non-blocking allreduce started (``allreduce_start``), and
all are waited on (``allreduce_wait``) before the optimizer's update; a traced step gets
the starts moved right after their bucket's last gradient by the ``schedule_collectives``
pass.
"""
from __future__ import annotations

import math

from .. import ops
from .collective_ops import allreduce_start, allreduce_wait
from .strategies import data_parallel


def plan_buckets(shapes: list, dtypes: list, bucket_bytes: int) -> list[list[int]]:
    """Indices of the gradients per bucket: reverse order, one dtype per bucket, a bucket
    closed once it holds ``bucket_bytes`` or more."""
    buckets, current, size, dtype = [], [], 0, None
    for i in reversed(range(len(shapes))):
        nbytes = math.prod(shapes[i]) * _itemsize(dtypes[i])
        if current and (dtypes[i] != dtype or size >= bucket_bytes):
            buckets.append(current)
            current, size = [], 0
        current.append(i)
        size += nbytes
        dtype = dtypes[i]
    if current:
        buckets.append(current)
    return buckets


def _itemsize(dtype: str) -> int:
    digits = "".join(c for c in str(dtype) if c.isdigit())
    return max(1, int(digits) // 8) if digits else 1


def reduce_gradients(grads: list) -> list:
    """``grads`` summed over the processes, weighted by each one's share of the batch;
    unchanged when no DataParallel distribution is set."""
    dist = data_parallel()
    if dist is None or not grads:
        return grads
    share = dist.share_variable()
    shapes = [tuple(g.shape) for g in grads]
    dtypes = [str(g.dtype) for g in grads]
    started = []
    for index, bucket in enumerate(plan_buckets(shapes, dtypes, dist.bucket_bytes)):
        weight = ops.cast(share, dtypes[bucket[0]])
        parts = [ops.reshape(ops.multiply(grads[i], weight), (-1,)) for i in bucket]
        flat = parts[0] if len(parts) == 1 else ops.concatenate(parts, axis=0)
        started.append((bucket, allreduce_start(flat, bucket=index)))
    out = list(grads)
    for bucket, pending in started:
        total = allreduce_wait(pending)
        offset = 0
        for i in bucket:
            n = math.prod(shapes[i])
            out[i] = ops.reshape(total[offset:offset + n], shapes[i])
            offset += n
    return out


__all__ = ["plan_buckets", "reduce_gradients"]
