"""3-D max and average pooling from Lamina's 2-D pooling kernels.

A box window is separable: pooling (height, width) of every depth slice, then depth, gives
the 3-D max, and the 3-D mean too (the real elements of a box window are a box as well, so
their count is the product of the per-axis counts, padding excluded as in TensorFlow).
"""
from __future__ import annotations

from ... import ops


def pool3d(x, mode: str, pool_size, strides, padding):
    """Pool NDHWC ``x`` with ``mode`` 'max' or 'average'."""
    pool = ops.max_pool if mode == "max" else ops.average_pool
    _, depth, height, width, channels = x.shape
    y = pool(ops.reshape(x, (-1, height, width, channels)), pool_size[1:],
             strides=strides[1:], padding=padding)             # (B * D, Ho, Wo, C)
    out_h, out_w = y.shape[1], y.shape[2]
    y = pool(ops.reshape(y, (-1, depth, out_h * out_w, channels)), (pool_size[0], 1),
             strides=(strides[0], 1), padding=padding)         # (B, Do, Ho * Wo, C)
    return ops.reshape(y, (-1, y.shape[1], out_h, out_w, channels))
