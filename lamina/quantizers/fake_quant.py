"""``fake_quant_with_min_max_vars``: quantize to ``num_bits`` and back, in ``[min, max]``,
with gradients for the input (inside the range) and for ``min``/``max`` (outside it), as
Keras 3 (and TensorFlow's op of that name): the range is nudged so that 0 is exact."""
from __future__ import annotations

from .. import ops


def _nudge(low, high, num_bits, narrow_range):
    dtype = "float64" if "float64" in (low.dtype, high.dtype) else "float32"
    low, high = ops.cast(low, dtype), ops.cast(high, dtype)
    quant_max = (1 << num_bits) - 1
    quant_min = 1 if narrow_range else 0
    span = ops.subtract(high, low)
    scale = ops.divide(span, quant_max - quant_min)
    inv_scale = ops.divide(quant_max - quant_min, span)
    zero = ops.round(ops.clip(ops.subtract(quant_min, ops.divide(low, scale)),
                              quant_min, quant_max))
    nudged_low = ops.multiply(ops.subtract(quant_min, zero), scale)
    nudged_high = ops.multiply(ops.subtract(quant_max, zero), scale)
    return nudged_low, nudged_high, scale, inv_scale


def fake_quant_with_min_max_vars(inputs, min_vals, max_vals, num_bits=8, narrow_range=False,
                                 axis=None):
    """``inputs`` clamped to ``[min_vals, max_vals]`` (scalars, or per channel along
    ``axis``) and rounded to one of the ``2**num_bits`` (less one with ``narrow_range``)
    levels of that range; the result keeps the input's dtype.

    Args:
        inputs: the float tensor.
        min_vals: the lower end of the range, a scalar or one value per channel.
        max_vals: the upper end of the range, the shape of ``min_vals``.
        num_bits: int, the bits of the levels (default 8).
        narrow_range: bool; use ``2**num_bits - 1`` levels (default False).
        axis: int or None, the channel axis of per-channel ranges (default None).

    Returns:
        A tensor the shape and dtype of ``inputs``.

    Example:

    >>> import lamina as keras
    >>> keras.quantizers.fake_quant_with_min_max_vars(
    ...     keras.ops.convert_to_tensor([-1.0, 0.3, 2.0]), 0.0, 1.0, num_bits=2).numpy()
    array([0.        , 0.33333334, 1.        ], dtype=float32)
    """
    inputs = ops.convert_to_tensor(inputs)
    min_vals = ops.convert_to_tensor(min_vals)
    max_vals = ops.convert_to_tensor(max_vals)
    num_bits = int(num_bits)
    if axis is not None:
        axis = axis % len(inputs.shape)

    @ops.custom_gradient
    def fake_quant(x, low, high):
        nudged_low, nudged_high, scale, inv_scale = _nudge(low, high, num_bits, narrow_range)
        quant_zero = ops.floor(ops.add(ops.multiply(ops.negative(nudged_low), inv_scale), 0.5))
        clamped = ops.clip(ops.cast(x, nudged_low.dtype), nudged_low, nudged_high)
        shifted = ops.subtract(ops.multiply(ops.subtract(clamped, nudged_low), inv_scale),
                               quant_zero)
        result = ops.cast(ops.multiply(ops.floor(ops.add(shifted, 0.5)), scale), x.dtype)
        inside = ops.logical_and(ops.greater_equal(x, nudged_low),
                                 ops.less_equal(x, nudged_high))

        def grad(*args, upstream=None):
            if upstream is None:
                (upstream,) = args
            others = [i for i in range(len(upstream.shape)) if i != axis]

            def to_bound(mask, bound):
                g = ops.where(mask, upstream, 0.0)
                g = ops.sum(g, axis=others) if axis is not None else ops.sum(g)
                return ops.reshape(g, bound.shape)
            return (ops.where(inside, upstream, 0.0),
                    to_bound(ops.less_equal(x, nudged_low), low),
                    to_bound(ops.greater_equal(x, nudged_high), high))

        return result, grad

    return fake_quant(inputs, min_vals, max_vals)
