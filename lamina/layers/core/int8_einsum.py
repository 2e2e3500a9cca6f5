"""int8 ``EinsumDense`` (Keras 3's layout and numbers): ``kernel`` int8 and ``kernel_scale``
float, one abs-max scale per kernel entry not contracted by the equation.

Keras lays the scales out so they broadcast against the output: a scale (the reduced
axes kept with size 1) is transposed into the output's label order, gets size-1 axes where
the output has labels the operand lacks, and loses the reduced axes that found no such
slot. :func:`scale_layout` derives those steps from the equation as Keras does -- including
Keras's reuse of the last insertion slot once the free slots run out -- so
``kernel_scale`` has Keras's shape and values and files move both ways.

The call quantizes the inputs over their contracted axes, contracts int8 by int8 exactly
(``ops.int8_matmul`` inside the layer's einsum) and divides by ``input_scale *
kernel_scale``; the inputs' gradient goes through the dequantized kernel, as in Keras.
"""
from __future__ import annotations

from typing import NamedTuple

from ... import ops
from ...quantizers.abs_max import AbsMaxQuantizer, abs_max_quantize
from ...quantizers.quantization_config import QuantizationConfig
from .einsum_equation import einsum, expand


class ScaleLayout(NamedTuple):
    input_reduced: tuple
    kernel_reduced: tuple
    input_steps: tuple       # (transpose, expand, squeeze) for an input scale
    kernel_steps: tuple      # the same for the kernel scale
    gradient_specs: tuple    # (out_spec, w_spec, in_spec): the inputs' gradient einsum


def scale_layout(in_spec: str, w_spec: str, out_spec: str) -> ScaleLayout:
    """Keras's quantization layout of the equation ``in_spec,w_spec->out_spec``."""
    reduced = [[i for i, c in enumerate(spec) if c not in out_spec] for spec in (in_spec,
                                                                              w_spec)]
    expands = [[i for i, c in enumerate(out_spec) if c not in spec] for spec in (in_spec,
                                                                             w_spec)]
    transposes = [[spec.index(c) for c in out_spec if c in spec] for spec in (in_spec,
                                                                          w_spec)]
    squeezes = [[], []]
    # Each reduced axis takes the next free expand slot; when none is left Keras inserts it
    # at the last slot used (first: where the kernel's last label sits in the output) and
    # squeezes it away afterwards.
    slot = out_spec.find(w_spec[-1])
    for operand in (0, 1):
        for axis in reduced[operand]:
            if expands[operand]:
                slot = expands[operand].pop(0)
            else:
                squeezes[operand].append(axis)
            transposes[operand].insert(slot, axis)
    steps = [(tuple(transposes[k]), tuple(expands[k]), tuple(squeezes[k])) for k in (0, 1)]
    return ScaleLayout(tuple(reduced[0]), tuple(reduced[1]), steps[0], steps[1],
                       (out_spec, w_spec, in_spec))


def arrange(scale, steps):
    """A scale with its reduced axes kept (size 1) -> Keras's layout of it."""
    transpose, expand_axes, squeeze_axes = steps
    if transpose:
        scale = ops.transpose(scale, transpose)
    if expand_axes:
        scale = ops.expand_dims(scale, axis=expand_axes)
    if squeeze_axes:
        scale = ops.squeeze(scale, axis=squeeze_axes)
    return scale


def kernel_scale_shape(kernel_shape, layout: ScaleLayout) -> tuple:
    transpose, expand_axes, squeeze_axes = layout.kernel_steps
    kept = [1 if i in layout.kernel_reduced else d for i, d in enumerate(kernel_shape)]
    shape = [kept[i] for i in transpose]
    for axis in sorted(expand_axes):
        shape.insert(axis, 1)
    for axis in sorted(squeeze_axes, reverse=True):
        shape.pop(axis)
    return tuple(shape)


def _layout(layer) -> ScaleLayout:
    return scale_layout(*expand(layer.name, layer.equation, layer.input_spec.ndim))


def build(layer, kernel_shape, config) -> None:
    """Create the int8 variables (zeros and ones until quantized or loaded)."""
    layer._is_quantized = True
    layout = _layout(layer)
    layer.inputs_quantizer = QuantizationConfig.activation_quantizer_or_default(
        config, AbsMaxQuantizer())
    layer.quantization_axis = layout.input_reduced
    layer.kernel = layer.add_weight(shape=kernel_shape, name="kernel", initializer="zeros",
                                    dtype="int8", trainable=False)
    layer.kernel_scale = layer.add_weight(shape=kernel_scale_shape(kernel_shape, layout),
                                          name="kernel_scale", initializer="ones",
                                          trainable=False)


def quantize(layer, config) -> None:
    """Replace the float kernel of a built EinsumDense by its int8 form."""
    layout = _layout(layer)
    quantizer = QuantizationConfig.weight_quantizer_or_default(
        config, AbsMaxQuantizer(axis=layout.kernel_reduced))
    float_kernel = layer._own_variable("kernel")      # the base kernel, without LoRA
    values, scale = quantizer(float_kernel, to_numpy=True)
    layer._drop_weight(float_kernel)
    build(layer, tuple(float_kernel.shape), config)
    variable = layer._own_variable("kernel")
    layer._place_beside(float_kernel, [variable, layer.kernel_scale])
    variable.assign(values)
    layer.kernel_scale.assign(arrange(scale, layout.kernel_steps))


def unarrange(scale, steps):
    """The kernel scale back in the kernel's axis order (for the dequantized kernel)."""
    transpose, expand_axes, squeeze_axes = steps
    if squeeze_axes:
        scale = ops.expand_dims(scale, axis=squeeze_axes)
    if expand_axes:
        scale = ops.squeeze(scale, axis=expand_axes)
    if transpose:
        scale = ops.transpose(scale, sorted(range(len(transpose)), key=transpose.__getitem__))
    return scale


def dequantized(layer):
    """The float kernel the int8 variables stand for (the scale in the kernel's order)."""
    scale = unarrange(layer.kernel_scale, _layout(layer).kernel_steps)
    return ops.divide(ops.cast(layer._own_variable("kernel"), layer.compute_dtype), scale)


def requantized(layer, kernel) -> dict:
    """The int8 variables' values for a float ``kernel`` (abs-max over the contracted
    axes, the scale in Keras's layout)."""
    layout = _layout(layer)
    values, scale = abs_max_quantize(kernel, axis=layout.kernel_reduced, to_numpy=True)
    return {"kernel": values, "kernel_scale": arrange(scale, layout.kernel_steps)}


def _integer_einsum(x, kernel, specs):
    """The exact int32 einsum of two int8 operands. An index summed in one operand only
    (``'abc,cd->ad'`` sums ``b`` over the inputs) leaves the int8 range, so such equations
    contract in int32 (numpy's integer matmul: exact, without BLAS); the others run through
    ``ops.int8_matmul``."""
    in_spec, w_spec, out_spec = specs
    lone = [c for c in in_spec if c not in w_spec and c not in out_spec] + \
           [c for c in w_spec if c not in in_spec and c not in out_spec]
    if lone:
        return einsum(ops.cast(x, "int32"), ops.cast(kernel, "int32"), *specs)
    return einsum(x, kernel, *specs, matmul=ops.int8_matmul)


def product(layer, inputs, kernel, kernel_scale):
    """``einsum(equation, inputs, dequantized kernel)`` the int8 way."""
    specs = expand(layer.name, layer.equation, len(inputs.shape))
    layout = scale_layout(*specs)
    compute_dtype = layer.compute_dtype

    @ops.custom_gradient
    def int8_einsum(x, kernel, kernel_scale):
        def grad(*args, upstream=None):
            upstream = args[0] if upstream is None else upstream
            float_kernel = ops.divide(ops.cast(kernel, compute_dtype),
                                      unarrange(kernel_scale, layout.kernel_steps))
            return einsum(upstream, float_kernel, *layout.gradient_specs), None, None

        if layer.inputs_quantizer:
            x, x_scale = layer.inputs_quantizer(x, axis=layout.input_reduced)
            x_scale = arrange(x_scale, layout.input_steps)
            y = ops.cast(_integer_einsum(x, kernel, specs), compute_dtype)
            return ops.divide(y, ops.multiply(x_scale, kernel_scale)), grad
        y = einsum(x, ops.cast(kernel, x.dtype), *specs)
        return ops.divide(ops.cast(y, compute_dtype), kernel_scale), grad

    return int8_einsum(inputs, kernel, kernel_scale)
