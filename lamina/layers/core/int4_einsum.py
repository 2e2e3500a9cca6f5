"""int4 ``EinsumDense`` (Keras 3's layout and numbers).

Keras stores the kernel flattened to 2-D ``(rows, columns)`` -- rows the product of the
contracted axes' sizes, columns the product of the others -- by a plain reshape of the
kernel (so for a kernel whose contracted axis is not its first, a "column" mixes axes, as
in Keras), packed two values per byte along the columns: ``kernel`` int8 ``(rows,
ceil(columns / 2))``. Per channel ``kernel_scale`` is ``(columns,)`` (abs-max over rows,
in [-8, 7]); in groups of ``block_size`` rows, ``kernel_scale`` and ``kernel_zero`` are
``(groups, columns)`` and ``g_idx`` ``(rows,)`` names each row's group.

The call dequantizes the kernel back to its shape and runs the layer's einsum (on inputs
quantized over their contracted axes when the config has an ``activation_quantizer``);
the inputs' gradient goes through the dequantized kernel. Like Keras's, the per-channel
weights are always quantized by abs-max: a config's ``weight_quantizer`` is not used here
(a warning says so).
"""
from __future__ import annotations

import math
import warnings

from ... import ops
from ...quantizers.abs_max import abs_max_quantize, abs_max_quantize_grouped_with_zero_point
from ...quantizers.grouped import dequantize_with_sz_map
from ...quantizers.int4_packing import pack_int4
from ...quantizers.quantization_config import (QuantizationConfig, int4_block_size,
                                               is_sub_channel)
from . import int4_weights
from .einsum_equation import einsum, expand
from .int8_einsum import arrange, scale_layout

_warned = []


def _flat_shape(kernel_shape, layout) -> tuple:
    rows = math.prod(d for i, d in enumerate(kernel_shape) if i in layout.kernel_reduced)
    columns = math.prod(d for i, d in enumerate(kernel_shape)
                        if i not in layout.kernel_reduced)
    return rows, columns


def _layout(layer):
    return scale_layout(*expand(layer.name, layer.equation, layer.input_spec.ndim))


def build(layer, kernel_shape, config) -> None:
    """Create the int4 variables (zeros and ones until quantized or loaded)."""
    layout = _layout(layer)
    rows, columns = _flat_shape(kernel_shape, layout)
    layer._is_quantized = True
    layer.inputs_quantizer = QuantizationConfig.activation_quantizer_or_default(config, None)
    layer.quantization_axis = layout.input_reduced
    layer.original_kernel_shape = tuple(kernel_shape)
    block_size = int4_block_size(layer, config)
    layer._int4_block_size = block_size if is_sub_channel(block_size) else None
    layer._int4_unpacked_column_size, layer._int4_rows = columns, rows
    layer.kernel = int4_weights.packed_weight(layer, "kernel", (rows, (columns + 1) // 2))
    shape = int4_weights.scale_shape(rows, columns, block_size, groups_first=True)
    layer.kernel_scale = layer.add_weight(shape=shape, name="kernel_scale",
                                          initializer="ones", trainable=False)
    if is_sub_channel(block_size):
        layer.kernel_zero = layer.add_weight(shape=shape, name="kernel_zero",
                                             initializer="zeros", dtype="int8",
                                             trainable=False)
        layer.g_idx = int4_weights.group_index(layer, rows, block_size)


def _quantized_flat(flat, config, block_size):
    """``(values, scale, zero)`` of the 2-D kernel ``flat`` (zero None per channel)."""
    if is_sub_channel(block_size):
        values, scale, zero = abs_max_quantize_grouped_with_zero_point(
            flat, block_size=block_size, to_numpy=True)
    else:
        if getattr(config, "weight_quantizer", None) is not None and not _warned:
            _warned.append(True)
            warnings.warn("EinsumDense: the int4 kernel is quantized per channel by abs-max "
                          "in [-8, 7]; Int4QuantizationConfig.weight_quantizer is not used "
                          "by EinsumDense (as in Keras 3.15.1)", stacklevel=4)
        values, scale = abs_max_quantize(flat, axis=0, value_range=(-8, 7), dtype="int8",
                                         to_numpy=True)
        scale, zero = ops.squeeze(scale, axis=0), None
    return values, scale, zero


def quantize(layer, config) -> None:
    """Replace the float kernel of a built EinsumDense by its packed int4 form."""
    float_kernel = layer._own_variable("kernel")
    rows, columns = _flat_shape(tuple(float_kernel.shape), _layout(layer))
    flat = ops.reshape(float_kernel, (rows, columns))
    values, scale, zero = _quantized_flat(flat, config, int4_block_size(layer, config))
    packed = pack_int4(values, axis=-1)[0]
    layer._drop_weight(float_kernel)
    build(layer, tuple(float_kernel.shape), config)
    new = [layer._own_variable(n) for n in ("kernel", "kernel_scale", "kernel_zero", "g_idx")]
    layer._place_beside(float_kernel, [v for v in new if v is not None])
    new[0].assign(packed)
    layer.kernel_scale.assign(scale)
    if zero is not None:
        layer.kernel_zero.assign(zero)


def _float_flat(layer, unpacked, scale, zero, g_idx):
    if zero is not None:
        return ops.cast(dequantize_with_sz_map(unpacked, scale, zero, g_idx, group_axis=0),
                        layer.compute_dtype)
    return ops.divide(ops.cast(unpacked, layer.compute_dtype), scale)


def dequantized(layer):
    """The float kernel the int4 variables stand for, in the kernel's shape."""
    unpacked = int4_weights.unpack(layer._own_variable("kernel"),
                                   layer._int4_unpacked_column_size, axis=-1)
    grouped = layer._int4_block_size is not None
    flat = _float_flat(layer, unpacked, layer.kernel_scale,
                       layer.kernel_zero if grouped else None,
                       layer.g_idx if grouped else None)
    return ops.reshape(flat, layer.original_kernel_shape)


def requantized(layer, kernel) -> dict:
    """The int4 variables' values for a float ``kernel`` (flattened, quantized, packed)."""
    flat = ops.reshape(kernel, (layer._int4_rows, layer._int4_unpacked_column_size))
    values, scale, zero = _quantized_flat(flat, None, layer._int4_block_size)
    extra = {} if zero is None else {"kernel_zero": zero}
    return {"kernel": pack_int4(values, axis=-1)[0], "kernel_scale": scale, **extra}


def unpacked_kernel(layer):
    """``layer.kernel`` of an int4 EinsumDense: the int4 values in the kernel's shape."""
    values = int4_weights.unpack(layer._own_variable("kernel"),
                                 layer._int4_unpacked_column_size, axis=-1)
    return ops.reshape(values, layer.original_kernel_shape)


def product(layer, inputs):
    """``einsum(equation, inputs, dequantized kernel)`` the int4 way."""
    specs = expand(layer.name, layer.equation, len(inputs.shape))
    layout = scale_layout(*specs)
    grouped = layer._int4_block_size is not None
    compute_dtype = layer.compute_dtype

    @ops.custom_gradient
    def int4_einsum(x, packed, scale, *groups):
        unpacked = int4_weights.unpack(packed, layer._int4_unpacked_column_size, axis=-1)
        zero, g_idx = groups if grouped else (None, None)
        flat = _float_flat(layer, unpacked, scale, zero, g_idx)
        float_kernel = ops.reshape(flat, layer.original_kernel_shape)

        def grad(*args, upstream=None):
            upstream = args[0] if upstream is None else upstream
            return (einsum(upstream, float_kernel, *layout.gradient_specs),
                    *(None,) * (2 + len(groups)))

        if layer.inputs_quantizer and not grouped:
            x, x_scale = layer.inputs_quantizer(x, axis=layer.quantization_axis)
            x_scale = arrange(x_scale, layout.input_steps)
            y = einsum(ops.cast(x, float_kernel.dtype), float_kernel, *specs)
            return ops.divide(ops.cast(y, compute_dtype), x_scale), grad
        return einsum(x, float_kernel, *specs), grad

    groups = (layer.kernel_zero, layer.g_idx) if grouped else ()
    return int4_einsum(inputs, layer._own_variable("kernel"), layer.kernel_scale, *groups)
