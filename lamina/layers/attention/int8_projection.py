"""int8 ``HeadProjection`` (the projections inside MultiHeadAttention and
GroupedQueryAttention), with the variables Keras's int8 ``EinsumDense`` sublayers hold:
``kernel`` int8 and ``kernel_scale`` in the layout of the einsum equation Keras builds for
the projection (``abc,cde->abde`` for a query of rank 3: scale ``(1, 1, heads, size)``;
``abcd,cde->abe`` for the output: ``(1, 1, dim)``).

The call keeps the float projection's batched matmuls over the heads (no reshape of the
input, so unknown batch and sequence sizes stay unknown), with ``ops.int8_matmul`` on the
abs-max quantized inputs; the inputs' gradient goes through the dequantized kernel.
"""
from __future__ import annotations

import string

from ... import ops
from ...quantizers.abs_max import AbsMaxQuantizer
from ...quantizers.quantization_config import QuantizationConfig
from ..core.int8_einsum import arrange, kernel_scale_shape, scale_layout, unarrange
from .head_contraction import contract, contract_transposed


def keras_equation(rank: int, contract: int, projected: int) -> tuple:
    """The specs of Keras's ``_build_proj_equation(rank - contract, contract, projected)``."""
    letters = string.ascii_lowercase
    free, bound = letters[:rank - contract], letters[rank - contract:rank]
    out = letters[rank:rank + projected]
    return free + bound, bound + out, free + out


def _layout(layer, rank: int):
    return scale_layout(*keras_equation(rank, layer.contract, len(layer.projected_shape)))


def build(layer, kernel_shape, rank: int, config) -> None:
    """Create the int8 variables (zeros and ones until quantized or loaded)."""
    layer._is_quantized = True
    layer._input_rank = rank
    layer.inputs_quantizer = QuantizationConfig.activation_quantizer_or_default(
        config, AbsMaxQuantizer())
    layer.kernel = layer.add_weight(shape=kernel_shape, name="kernel", initializer="zeros",
                                    dtype="int8", trainable=False)
    layer.kernel_scale = layer.add_weight(
        shape=kernel_scale_shape(kernel_shape, _layout(layer, rank)), name="kernel_scale",
        initializer="ones", trainable=False)


def quantize(layer, config) -> None:
    """Replace the float kernel of a built projection by its int8 form."""
    layout = _layout(layer, layer._input_rank)
    quantizer = QuantizationConfig.weight_quantizer_or_default(
        config, AbsMaxQuantizer(axis=layout.kernel_reduced))
    float_kernel = layer.kernel
    values, scale = quantizer(float_kernel, to_numpy=True)
    layer._drop_weight(float_kernel)
    build(layer, tuple(float_kernel.shape), layer._input_rank, config)
    layer._place_beside(float_kernel, [layer.kernel, layer.kernel_scale])
    layer.kernel.assign(values)
    layer.kernel_scale.assign(arrange(scale, layout.kernel_steps))


def product(layer, inputs):
    """The projection of ``inputs`` the int8 way, as Keras's int8 EinsumDense."""
    layout = _layout(layer, len(inputs.shape))
    compute_dtype = layer.compute_dtype
    axes, shape = layer.contract, layer.projected_shape

    @ops.custom_gradient
    def int8_projection(x, kernel, kernel_scale):
        def grad(*args, upstream=None):
            upstream = args[0] if upstream is None else upstream
            float_kernel = ops.divide(ops.cast(kernel, compute_dtype),
                                      unarrange(kernel_scale, layout.kernel_steps))
            return contract_transposed(upstream, float_kernel, axes, shape), None, None

        if layer.inputs_quantizer:
            x, x_scale = layer.inputs_quantizer(x, axis=layout.input_reduced)
            y = ops.cast(contract(x, kernel, axes, shape, matmul=ops.int8_matmul),
                         compute_dtype)
            return ops.divide(y, ops.multiply(arrange(x_scale, layout.input_steps),
                                              kernel_scale)), grad
        y = contract(x, ops.cast(kernel, x.dtype), axes, shape)
        return ops.divide(ops.cast(y, compute_dtype), kernel_scale), grad

    return int8_projection(inputs, layer.kernel, layer.kernel_scale)
