"""Abs-max quantization (Keras 3's ``keras.quantizers``): ``Quantizer``, ``AbsMaxQuantizer``,
``abs_max_quantize`` and the grouped, zero-point variant.

The symmetric scheme of Keras's int8 layers: along ``axis``,
``scale = value_range[1] / (max|x| + epsilon)`` (in the input's dtype), and
``q = clip(round(x * scale), *value_range)`` cast to ``dtype``; ``x ~ q / scale``.
``round`` is round-half-to-even, as numpy's and JAX's.
"""
from __future__ import annotations

import math

from .. import backend as lamina_backend
from .. import ops
from ..registry import register_builtin

EPSILON = 1e-07          # keras.backend.epsilon() when Keras defines the defaults


@register_builtin
class Quantizer:
    """The base of quantizers: called on a tensor, returns its quantized form (the base
    returns the input unchanged).

    Args:
        output_dtype: the dtype of the quantized values (default ``"int8"``).
    """

    _keras_module = "keras.quantizers"

    def __init__(self, output_dtype="int8"):
        self.output_dtype = output_dtype

    def __call__(self, x):
        return x

    @classmethod
    def from_config(cls, config):
        return cls(**config)

    def get_config(self):
        raise NotImplementedError(f"{self} does not implement get_config()")


def _on_host(fn, *tensors):
    """Run ``fn`` on host copies of ``tensors`` (Keras's ``to_numpy=True``: the work stays
    off the device), and bring the results back to the active backend."""
    with lamina_backend.use("numpy"):
        results = fn(*(ops.convert_to_tensor(ops.convert_to_numpy(t)) for t in tensors))
        results = [ops.convert_to_numpy(r) for r in results]
    return tuple(ops.convert_to_tensor(r) for r in results)


def _abs_max(x, axis, value_range, dtype, epsilon):
    axis = tuple(axis) if isinstance(axis, list) else axis
    peak = ops.max(ops.abs(x), axis=axis, keepdims=True)
    scale = ops.cast(ops.divide(value_range[1], ops.add(peak, epsilon)), x.dtype)
    q = ops.clip(ops.round(ops.multiply(x, scale)), value_range[0], value_range[1])
    return ops.cast(q, dtype), scale


def abs_max_quantize(inputs, axis, value_range=(-127, 127), dtype="int8", epsilon=EPSILON,
                     to_numpy=False):
    """``(quantized, scale)``: ``inputs`` quantized symmetrically along ``axis`` (the
    reduced axes keep size 1 in ``scale``). ``to_numpy=True`` computes on the host.

    Args:
        inputs: the float tensor to quantize.
        axis: int or tuple of ints, the axes over which each scale's maximum is taken.
        value_range: a ``(min, max)`` pair of the quantized values (default
            ``(-127, 127)``).
        dtype: the dtype of the quantized values (default ``"int8"``).
        epsilon: a small float keeping the scale finite for all-zero inputs
            (default 1e-7).
        to_numpy: bool; compute on the host with numpy (default False).

    Returns:
        A tuple ``(quantized, scale)``; ``inputs ~ quantized / scale``.
    """
    inputs = ops.convert_to_tensor(inputs)
    if to_numpy:
        return _on_host(lambda x: _abs_max(x, axis, value_range, dtype, epsilon), inputs)
    return _abs_max(inputs, axis, value_range, dtype, epsilon)


def _grouped(x, block_size, value_range, dtype, epsilon):
    input_dim, output_dim = x.shape
    groups = math.ceil(input_dim / block_size)
    qmin, qmax = value_range
    padded = x
    if groups * block_size > input_dim:
        padding = ops.zeros((groups * block_size - input_dim, output_dim), dtype=x.dtype)
        padded = ops.concatenate([x, padding], axis=0)
    blocks = ops.reshape(padded, (groups, block_size, output_dim))
    low = ops.min(blocks, axis=1, keepdims=True)
    high = ops.max(blocks, axis=1, keepdims=True)
    scale = ops.divide(ops.add(ops.subtract(high, low), epsilon), qmax - qmin)
    zero = ops.clip(ops.add(ops.round(ops.divide(ops.negative(low), scale)), qmin), qmin, qmax)
    q = ops.clip(ops.add(ops.round(ops.divide(blocks, scale)), zero), qmin, qmax)
    q = ops.reshape(ops.cast(q, dtype), (groups * block_size, output_dim))[:input_dim]
    return (q, ops.cast(ops.squeeze(scale, axis=1), x.dtype),
            ops.cast(ops.squeeze(zero, axis=1), "int8"))


def abs_max_quantize_grouped_with_zero_point(inputs, block_size, value_range=(-8, 7),
                                             dtype="int8", epsilon=EPSILON, to_numpy=False):
    """Asymmetric quantization of a 2-D ``(input_dim, output_dim)`` tensor in groups of
    ``block_size`` rows: ``(quantized, scale, zero_point)``, the last two of shape
    ``(ceil(input_dim / block_size), output_dim)``; ``x ~ (q - zero_point) * scale``.

    Args:
        inputs: a 2-D float tensor ``(input_dim, output_dim)``.
        block_size: int, the rows sharing a scale and zero point.
        value_range: a ``(min, max)`` pair of the quantized values (default ``(-8, 7)``).
        dtype: the dtype of the quantized values (default ``"int8"``).
        epsilon: a small float keeping the scale finite for constant groups
            (default 1e-7).
        to_numpy: bool; compute on the host with numpy (default False).

    Returns:
        A tuple ``(quantized, scale, zero_point)``.
    """
    inputs = ops.convert_to_tensor(inputs)
    if len(inputs.shape) != 2:
        raise ValueError(f"abs_max_quantize_grouped_with_zero_point: argument 'inputs' must "
                         f"be 2-D (input_dim, output_dim); received shape "
                         f"{tuple(inputs.shape)}")
    if isinstance(block_size, bool) or not isinstance(block_size, int) or block_size <= 0:
        raise ValueError(f"abs_max_quantize_grouped_with_zero_point: argument 'block_size' "
                         f"must be a positive int; received {block_size!r}")
    fn = lambda x: _grouped(x, block_size, value_range, dtype, epsilon)  # noqa: E731
    return _on_host(fn, inputs) if to_numpy else fn(inputs)


@register_builtin
class AbsMaxQuantizer(Quantizer):
    """Calls :func:`abs_max_quantize` along ``axis`` (the call's ``axis``, else the
    constructor's, else -1); returns ``(quantized, scale)``.

    Args:
        axis: int or tuple of ints, the axes reduced to find each scale's absolute
            maximum (None: the call's ``axis``, else -1).
        value_range: a ``(min, max)`` pair of the quantized values (default
            ``(-127, 127)``).
        epsilon: a small float keeping the scale finite for all-zero inputs
            (default 1e-7).
        output_dtype: the dtype of the quantized values (default ``"int8"``).

    Example:

    >>> import lamina as keras
    >>> q = keras.quantizers.AbsMaxQuantizer(axis=-1)
    >>> values, scale = q(keras.ops.convert_to_tensor([[1.0, -2.0, 0.5]]))
    >>> values.numpy()
    array([[ 64, -127,  32]], dtype=int8)
    """

    def __init__(self, axis=None, value_range=(-127, 127), epsilon=EPSILON,
                 output_dtype="int8"):
        super().__init__(output_dtype=output_dtype)
        self.axis = None if axis is None else (
            (axis,) if isinstance(axis, int) else tuple(axis))
        self.value_range = value_range
        self.epsilon = epsilon
        if output_dtype == "int8" and (value_range[0] < -128 or value_range[1] > 127):
            raise ValueError(f"Quantizer with output_dtype='int8' requires value_range to be "
                             f"within the interval [-128, 127]. Received: "
                             f"value_range={value_range}")

    def __call__(self, x, axis=None, to_numpy=False):
        if axis is None:
            axis = self.axis if self.axis is not None else -1
        return abs_max_quantize(x, axis, self.value_range, self.output_dtype, self.epsilon,
                                to_numpy)

    def get_config(self):
        config = {"value_range": self.value_range, "epsilon": self.epsilon,
                  "output_dtype": self.output_dtype}
        if self.axis is not None:
            config["axis"] = self.axis
        return config
