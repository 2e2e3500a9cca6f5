"""The float8 helpers of Keras 3's ``keras.quantizers``: delayed-scaling factors
(``compute_float8_scale``, ``compute_float8_amax_history``) and ``quantize_and_dequantize``.

Lamina has no float8 dtype; ``quantize_and_dequantize`` rounds to the float8 grid itself:
a float8 number with ``m`` mantissa bits and smallest normal exponent ``e_min`` is a
multiple of ``2**(max(floor(log2|x|), e_min) - m)``, and rounding ``x`` to the nearest such
multiple, ties to even, is exactly the cast (the values are clipped to the finite range
first, as Keras does, so nothing overflows).
"""
from __future__ import annotations

from .. import ops

# name: (mantissa bits, smallest normal exponent, largest finite value)
FLOAT8_FORMATS = {"float8_e4m3fn": (3, -6, 448.0), "float8_e5m2": (2, -14, 57344.0)}


def compute_float8_scale(amax, scale, dtype_max, margin=0):
    """The new scale of delayed scaling (Transformer Engine's rule): ``amax`` maps to
    ``dtype_max / 2**margin``; where ``amax`` is 0 or not finite the scale is kept.

    Args:
        amax: the tensor's recent absolute maximum.
        scale: the current scale.
        dtype_max: the largest value of the float8 dtype (448 for e4m3fn).
        margin: int, a power-of-two headroom below ``dtype_max`` (default 0).

    Returns:
        The new scale, a float tensor.
    """
    amax = ops.convert_to_tensor(amax)
    old = ops.reciprocal(scale)
    positive = ops.greater(amax, 0.0)
    # Divide by 1 where the factor is not used, so an empty history raises no warning.
    factor = ops.divide(ops.divide(dtype_max, ops.where(positive, amax, 1.0)), 2 ** margin)
    factor = ops.where(positive, factor, old)
    factor = ops.where(ops.isfinite(amax), factor, old)
    return ops.reciprocal(factor)


def compute_float8_amax_history(x, amax_history):
    """``amax_history`` rolled by one with ``max|x|`` written at the front.

    Args:
        x: the tensor just seen.
        amax_history: a 1-D tensor of the recent absolute maxima, newest first.

    Returns:
        The updated history, same shape as ``amax_history``.
    """
    amax_history = ops.convert_to_tensor(amax_history)
    amax = ops.cast(ops.max(ops.abs(x)), amax_history.dtype)
    return ops.scatter_update(ops.roll(amax_history, shift=-1), [[0]],
                              ops.reshape(amax, [1]))


def _round_to_grid(x, mantissa, min_exponent):
    magnitude = ops.abs(x)
    exponent = ops.floor(ops.log2(ops.maximum(magnitude, 2.0 ** min_exponent)))
    # log2 may land one off next to a power of two: correct it against the powers.
    exponent = ops.where(ops.greater(ops.power(2.0, exponent), magnitude),
                         ops.subtract(exponent, 1.0), exponent)
    exponent = ops.where(ops.less_equal(ops.power(2.0, ops.add(exponent, 1.0)), magnitude),
                         ops.add(exponent, 1.0), exponent)
    exponent = ops.maximum(exponent, float(min_exponent))
    quantum = ops.cast(ops.power(2.0, ops.subtract(exponent, float(mantissa))), x.dtype)
    return ops.multiply(ops.round(ops.divide(x, quantum)), quantum)


def quantize_and_dequantize(inputs, scale, quantized_dtype, compute_dtype):
    """``inputs / scale`` (``scale`` cast to ``compute_dtype``) clipped to the float8
    range, rounded to ``quantized_dtype`` (``"float8_e4m3fn"`` or ``"float8_e5m2"``) and
    multiplied back by ``scale``, in ``compute_dtype``.

    Args:
        inputs: the float tensor.
        scale: the scale (a scalar tensor).
        quantized_dtype: ``"float8_e4m3fn"`` or ``"float8_e5m2"``.
        compute_dtype: the float dtype of the result, such as ``"float32"``.

    Returns:
        A tensor of ``compute_dtype``, the shape of ``inputs``.
    """
    if quantized_dtype not in FLOAT8_FORMATS:
        raise ValueError(f"quantize_and_dequantize: argument 'quantized_dtype' must be one of "
                         f"{sorted(FLOAT8_FORMATS)}; received {quantized_dtype!r}")
    mantissa, min_exponent, largest = FLOAT8_FORMATS[quantized_dtype]
    scale = ops.cast(scale, compute_dtype)
    # As Keras: the inputs are divided in their own dtype (a float32 kernel of a
    # mixed-precision layer is rounded to float8 from float32), the float8 values -- exact
    # in any float dtype -- are then cast to compute_dtype.
    x = ops.divide(inputs, scale)
    x = ops.clip(x, -largest, largest)
    x = _round_to_grid(x, mantissa, min_exponent)
    return ops.multiply(ops.cast(x, compute_dtype), scale)
