"""int4 ``Dense`` (Keras 3's layout and numbers).

``kernel`` is int8 ``(input_dim, ceil(units / 2))``: the int4 kernel packed two values per
byte along the units axis (``pack_int4``). Per channel (``block_size`` None or -1),
``kernel_scale`` ``(units,)`` holds ``7 / max|column|`` and the kernel is ``round(w *
scale)`` in [-8, 7]; in groups of ``block_size`` input rows (the default, 128), each group
has its own ``kernel_scale`` and ``kernel_zero`` ``(groups, units)``, with ``w ~ (q - zero)
* scale``, and ``g_idx`` ``(input_dim,)`` names each row's group.

The call unpacks the kernel. Per channel it multiplies the inputs by the int4 values and
divides by the scale (quantizing the inputs per row first when the config has an
``activation_quantizer``, then the product is exact in int32); in groups it dequantizes
the kernel and multiplies in float. The inputs' gradient goes through the dequantized
kernel, as in Keras; the int4 variables are not trainable.
"""
from __future__ import annotations

from ... import ops
from ...quantizers.abs_max import (AbsMaxQuantizer, abs_max_quantize,
                                   abs_max_quantize_grouped_with_zero_point)
from ...quantizers.grouped import dequantize_with_sz_map
from ...quantizers.int4_packing import pack_int4
from ...quantizers.quantization_config import (QuantizationConfig, int4_block_size,
                                               is_sub_channel)
from . import int4_weights

PER_CHANNEL = AbsMaxQuantizer(axis=0, value_range=(-8, 7), output_dtype="int8")


def build(layer, kernel_shape, config) -> None:
    """Create the int4 variables (zeros and ones until quantized or loaded)."""
    input_dim, units = kernel_shape
    layer._is_quantized = True
    layer.inputs_quantizer = QuantizationConfig.activation_quantizer_or_default(config, None)
    layer.kernel = int4_weights.packed_weight(layer, "kernel", (input_dim, (units + 1) // 2))
    block_size = int4_block_size(layer, config)
    layer._int4_block_size = block_size
    shape = int4_weights.scale_shape(input_dim, units, block_size, groups_first=True)
    layer.kernel_scale = layer.add_weight(shape=shape, name="kernel_scale",
                                          initializer="ones", trainable=False)
    if is_sub_channel(block_size):
        layer.kernel_zero = layer.add_weight(shape=shape, name="kernel_zero",
                                             initializer="zeros", dtype="int8",
                                             trainable=False)
        layer.g_idx = int4_weights.group_index(layer, input_dim, block_size)
    layer._orig_input_dim, layer._orig_output_dim = input_dim, units


def quantize(layer, config) -> None:
    """Replace the float kernel of a built Dense by its packed int4 form."""
    float_kernel = layer._own_variable("kernel")
    block_size = int4_block_size(layer, config)
    if is_sub_channel(block_size):
        values, scale, zero = abs_max_quantize_grouped_with_zero_point(
            float_kernel, block_size=block_size, to_numpy=True)
    else:
        quantizer = QuantizationConfig.weight_quantizer_or_default(config, PER_CHANNEL)
        values, scale = quantizer(float_kernel, to_numpy=True)
        scale, zero = ops.squeeze(scale, axis=0), None
    packed = pack_int4(values, axis=-1)[0]
    layer._drop_weight(float_kernel)
    build(layer, tuple(float_kernel.shape), config)
    new = [layer._own_variable(n) for n in ("kernel", "kernel_scale", "kernel_zero", "g_idx")]
    layer._place_beside(float_kernel, [v for v in new if v is not None])
    new[0].assign(packed)
    layer.kernel_scale.assign(scale)
    if zero is not None:
        layer.kernel_zero.assign(zero)


def unpacked_kernel(layer):
    """``layer.kernel`` of an int4 Dense: the int4 values, ``(input_dim, units)``."""
    return int4_weights.unpack(layer._own_variable("kernel"), layer._orig_output_dim,
                               axis=-1)


def dequantized(layer):
    """The float kernel the int4 variables stand for, ``(input_dim, units)``."""
    grouped = is_sub_channel(layer._int4_block_size)
    return _float_kernel(layer, unpacked_kernel(layer), layer.kernel_scale,
                         layer.kernel_zero if grouped else None,
                         layer.g_idx if grouped else None)


def requantized(layer, kernel) -> dict:
    """The int4 variables' values for a float ``kernel``: abs-max per output channel, or
    with zero points in groups of ``block_size`` input rows; packed."""
    block_size = layer._int4_block_size
    if is_sub_channel(block_size):
        values, scale, zero = abs_max_quantize_grouped_with_zero_point(
            kernel, block_size=block_size, to_numpy=True)
        extra = {"kernel_zero": zero}
    else:
        values, scale = abs_max_quantize(kernel, axis=0, value_range=(-8, 7), dtype="int8",
                                         to_numpy=True)
        scale, extra = ops.squeeze(scale, axis=0), {}
    return {"kernel": pack_int4(values, axis=-1)[0], "kernel_scale": scale, **extra}


def _float_kernel(layer, unpacked, scale, zero, g_idx):
    if zero is None:
        return ops.divide(ops.cast(unpacked, layer.compute_dtype), scale)
    kernel = dequantize_with_sz_map(unpacked, scale, zero, g_idx, group_axis=0)
    return ops.cast(kernel, layer.compute_dtype)


def product(layer, inputs):
    """``inputs @ dequantized kernel`` the int4 way, with the inputs' gradient."""
    grouped = is_sub_channel(layer._int4_block_size)
    compute_dtype = layer.compute_dtype

    @ops.custom_gradient
    def int4_product(x, packed, scale, *groups):
        unpacked = int4_weights.unpack(packed, layer._orig_output_dim, axis=-1)
        zero, g_idx = groups if grouped else (None, None)

        def grad(*args, upstream=None):
            upstream = args[0] if upstream is None else upstream
            float_kernel = _float_kernel(layer, unpacked, scale, zero, g_idx)
            return (ops.matmul(upstream, ops.transpose(float_kernel)),
                    *(None,) * (2 + len(groups)))

        if grouped:
            return ops.matmul(x, _float_kernel(layer, unpacked, scale, zero, g_idx)), grad
        output_scale = scale
        if layer.inputs_quantizer:
            x, x_scale = layer.inputs_quantizer(x, axis=-1)
            output_scale = ops.multiply(output_scale, x_scale)
            y = ops.int8_matmul(x, unpacked)
        else:
            y = ops.matmul(x, ops.cast(unpacked, x.dtype))
        return ops.divide(ops.cast(y, compute_dtype), output_scale), grad

    groups = (layer.kernel_zero, layer.g_idx) if grouped else ()
    return int4_product(inputs, layer._own_variable("kernel"), layer.kernel_scale, *groups)
