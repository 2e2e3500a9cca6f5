"""int8 ``Dense`` (Keras 3's layout and numbers): ``kernel`` int8 (input_dim, units) and
``kernel_scale`` float (units,), one abs-max scale per output channel.

The call quantizes each input row by its own abs-max scale (the config's activation
quantizer), multiplies the int8 rows by the int8 kernel exactly (``ops.int8_matmul``, int32)
and divides by ``kernel_scale * input_scale``, in Keras's order of operations, so the
outputs are Keras's to the last bit. The gradient reaches the inputs through the
dequantized kernel (``kernel / kernel_scale``), as Keras's custom gradient does; the int8
kernel and its scale are not trainable.
"""
from __future__ import annotations

from ... import ops
from ...quantizers.abs_max import AbsMaxQuantizer, abs_max_quantize
from ...quantizers.quantization_config import QuantizationConfig


def build(layer, kernel_shape, config) -> None:
    """Create the int8 variables (zeros and ones until quantized or loaded)."""
    layer._is_quantized = True
    layer.inputs_quantizer = QuantizationConfig.activation_quantizer_or_default(
        config, AbsMaxQuantizer())
    layer.kernel = layer.add_weight(shape=kernel_shape, name="kernel", initializer="zeros",
                                    dtype="int8", trainable=False)
    layer.kernel_scale = layer.add_weight(shape=(kernel_shape[-1],), name="kernel_scale",
                                          initializer="ones", trainable=False)


def quantize(layer, config) -> None:
    """Replace the float kernel of a built Dense by its int8 form."""
    quantizer = QuantizationConfig.weight_quantizer_or_default(config, AbsMaxQuantizer(axis=0))
    float_kernel = layer._own_variable("kernel")      # the base kernel, without LoRA
    values, scale = quantizer(float_kernel, to_numpy=True)
    layer._drop_weight(float_kernel)
    build(layer, tuple(float_kernel.shape), config)
    variable = layer._own_variable("kernel")
    layer._place_beside(float_kernel, [variable, layer.kernel_scale])
    variable.assign(values)
    layer.kernel_scale.assign(ops.squeeze(scale, axis=0))


def dequantized(layer):
    """The float kernel the int8 variables stand for, ``kernel / kernel_scale``."""
    kernel = ops.cast(layer._own_variable("kernel"), layer.compute_dtype)
    return ops.divide(kernel, layer.kernel_scale)


def requantized(layer, kernel) -> dict:
    """The int8 variables' values for a float ``kernel`` (abs-max per output channel)."""
    values, scale = abs_max_quantize(kernel, axis=0, value_range=(-127, 127), dtype="int8",
                                     to_numpy=True)
    return {"kernel": values, "kernel_scale": ops.squeeze(scale, axis=0)}


def product(layer, inputs, kernel, kernel_scale):
    """``inputs @ dequantized kernel`` the int8 way, with the inputs' gradient."""
    compute_dtype = layer.compute_dtype

    @ops.custom_gradient
    def int8_product(x, kernel, kernel_scale):
        def grad(*args, upstream=None):
            upstream = args[0] if upstream is None else upstream
            float_kernel = ops.divide(ops.cast(kernel, compute_dtype), kernel_scale)
            return ops.matmul(upstream, ops.transpose(float_kernel)), None, None

        output_scale = kernel_scale
        if layer.inputs_quantizer:
            x, x_scale = layer.inputs_quantizer(x, axis=-1)
            output_scale = ops.multiply(output_scale, x_scale)
            y = ops.int8_matmul(x, kernel)
        else:
            y = ops.matmul(x, ops.cast(kernel, x.dtype))
        return ops.divide(ops.cast(y, compute_dtype), output_scale), grad

    return int8_product(inputs, kernel, kernel_scale)
