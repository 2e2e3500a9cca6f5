"""Quantization with a zero point, per tensor, per channel or in groups (Keras 3's
``compute_quantization_parameters`` and the ``*_with_zero_point`` / ``*_with_sz_map``
helpers GPTQ and the int4 layers use).

A weight matrix ``(out_features, in_features)`` gets a scale and a zero point per output
row (or one for the whole tensor, or one per group of ``group_size`` input columns):
``q = clip(round(w / scale + zero), 0, maxq)``, ``w ~ (q - zero) * scale``. With
``g_idx`` (each position's group along an axis) the per-group parameters are spread over
the matrix before the element-wise step.
"""
from __future__ import annotations

from .. import ops


def compute_quantization_parameters(x, *, bits, symmetric=False, per_channel=False,
                                    group_size=-1, compute_dtype="float32", epsilon=0.0,
                                    signed=False):
    """``(scale, zero, maxq)`` for the 2-D weights ``x`` (Keras's rules): the range
    ``[min, max]`` of each row (``per_channel``), of each group of ``group_size`` columns
    (``per_channel`` and ``group_size > 0``: shapes ``(out, groups)``) or of the tensor
    (tiled to ``(out, 1)``), made symmetric if asked, widened by 1 each way where it is
    empty, over ``maxq = 2**bits - 1`` levels. ``signed`` puts the zero point in
    ``[-2**(bits-1), 2**(bits-1) - 1]`` (int8), else in ``[0, maxq]`` (uint8)."""
    if x is None:
        raise ValueError(f"Input tensor {x} cannot be None.")
    x = ops.convert_to_tensor(x)
    if len(x.shape) < 2:
        raise ValueError(f"Input weight tensor {x} must have a rank of at least 2, but got "
                         f"rank {len(x.shape)}.")
    if ops.size(x) == 0:
        raise ValueError("Input tensor 'x' cannot be empty.")
    out_features, in_features = x.shape[0], x.shape[1]
    groups = -(-in_features // group_size) if per_channel and group_size > 0 else 1
    if groups > 1:
        if in_features % group_size:
            x = ops.pad(x, [[0, 0], [0, group_size - in_features % group_size]],
                        constant_values=0.0)
        grouped = ops.reshape(x, [out_features, groups, group_size])
        low, high = ops.min(grouped, axis=2), ops.max(grouped, axis=2)
    else:
        rows = ops.reshape(x, [out_features, -1] if per_channel else [1, -1])
        low, high = ops.min(rows, axis=1), ops.max(rows, axis=1)
    if symmetric:
        largest = ops.maximum(ops.abs(low), high)
        low = ops.where(ops.less(low, 0), ops.negative(largest), low)
        high = largest
    empty = ops.equal(low, high)
    low = ops.where(empty, ops.subtract(low, 1), low)
    high = ops.where(empty, ops.add(high, 1), high)
    maxq = ops.cast(2 ** bits - 1, compute_dtype)
    span = ops.subtract(high, low)
    if epsilon > 0:
        span = ops.add(span, epsilon)
    scale = ops.divide(span, maxq)
    scale = ops.where(ops.less_equal(scale, 0), 1e-8, scale)
    if signed:
        qmin, qmax = -(2 ** (bits - 1)), 2 ** (bits - 1) - 1
        if symmetric:
            zero = ops.full_like(scale, 2 ** (bits - 1) + qmin)
        else:
            zero = ops.add(ops.round(ops.divide(ops.negative(low), scale)), qmin)
        zero = ops.clip(zero, qmin, qmax)
    elif symmetric:
        zero = ops.full_like(scale, 2 ** (bits - 1))
    else:
        # Keras casts to uint8 as JAX does, saturating (a range above zero gives 0).
        zero = ops.clip(ops.round(ops.divide(ops.negative(low), scale)), 0, 255)
    if groups == 1:
        if per_channel:
            scale, zero = ops.reshape(scale, [-1, 1]), ops.reshape(zero, [-1, 1])
        else:
            scale = ops.tile(ops.reshape(scale, (1, 1)), (out_features, 1))
            zero = ops.tile(ops.reshape(zero, (1, 1)), (out_features, 1))
    return scale, ops.cast(zero, "int8" if signed else "uint8"), maxq


def quantize_with_zero_point(input_tensor, scale, zero, maxq):
    """``clip(round(x / scale + zero), 0, maxq)`` (a zero scale divides by 1e-8), in the
    scale's dtype."""
    safe = ops.where(ops.equal(scale, 0), ops.cast(1e-8, scale.dtype), scale)
    q = ops.round(ops.add(ops.divide(input_tensor, safe), ops.cast(zero, scale.dtype)))
    return ops.clip(q, 0, maxq)


def dequantize_with_zero_point(input_tensor, scale, zero):
    """``scale * (q - zero)``."""
    return ops.multiply(scale, ops.subtract(input_tensor, ops.cast(zero, scale.dtype)))


def quantize_with_sz_map(weights_matrix, scale, zero, g_idx, maxq, group_axis=-1):
    """:func:`quantize_with_zero_point` with per-group parameters (``group_axis`` of
    ``scale``/``zero`` indexed by ``g_idx``)."""
    groups = ops.cast(g_idx, "int32")
    return quantize_with_zero_point(weights_matrix, ops.take(scale, groups, axis=group_axis),
                                    ops.take(zero, groups, axis=group_axis), maxq)


def dequantize_with_sz_map(weights_matrix, scale, zero, g_idx, group_axis=-1):
    """``weights_matrix`` dequantized by the per-group ``scale`` and ``zero`` (n_groups
    along ``group_axis``), ``g_idx`` giving the group of each position along that axis;
    the zero point is cast to the scale's dtype first, as Keras does."""
    groups = ops.cast(g_idx, "int32")
    scales = ops.take(scale, groups, axis=group_axis)
    zeros = ops.cast(ops.take(zero, groups, axis=group_axis), scales.dtype)
    return ops.multiply(ops.subtract(weights_matrix, zeros), scales)
