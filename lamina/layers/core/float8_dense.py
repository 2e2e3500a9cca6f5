"""float8 training of ``Dense`` and ``EinsumDense`` (Keras 3's delayed scaling).

The kernel stays a float variable. Around the product, the inputs and the kernel are
quantized to float8_e4m3fn and back (``x / scale`` clipped and rounded, times ``scale``),
and, in the backward pass, so is the output gradient, in float8_e5m2. Each of the three
has a ``<name>_scale`` (float32, shape ``()``, starting at 1) and a
``<name>_amax_history`` (float32, ``(amax_history_length,)`` from the policy, 1024 by
default, starting at 0): ``inputs``, ``kernel``, ``outputs_grad``.

Training updates that state through the gradient, as Keras does: the custom gradient of
each quantize-dequantize gives, as the "gradient" of its scale, the new scale computed from
the history so far (``dtype_max / max(history)``, kept while the history is empty) and, as
the "gradient" of its history, the history rolled by one with this step's ``max|x|`` in
front. The variables are trainable with ``overwrite_with_gradient=True``, so optimizers
assign those values instead of stepping. The inputs' and kernel's gradients pass straight
through (the output gradient's own quantization aside). Outside training
(``training=False``) the state does not move and the outputs are the same.

Keras rounds a float32 layer's bias to bfloat16 before adding it (for XLA's bias-add
fusion); so does Lamina, for the same numbers.
"""
from __future__ import annotations

from ... import ops
from ...dtype_policies.quantized import QuantizedFloat8DTypePolicy
from ...quantizers.float8 import (FLOAT8_FORMATS, compute_float8_amax_history,
                                  compute_float8_scale, quantize_and_dequantize)

STATE = ("inputs", "kernel", "outputs_grad")
_NAMES = tuple(f"{prefix}_{kind}" for prefix in STATE for kind in ("scale", "amax_history"))


def build(layer) -> list:
    """Create the six float8 state variables (scales 1, histories 0); returns them."""
    length = getattr(layer.dtype_policy, "amax_history_length",
                     QuantizedFloat8DTypePolicy.default_amax_history_length)
    layer._is_quantized = True
    common = dict(dtype="float32", trainable=True, autocast=False,
                  overwrite_with_gradient=True)
    created = []
    for name in _NAMES:
        shape, initializer = ((), "ones") if name.endswith("scale") else ((length,), "zeros")
        variable = layer.add_weight(shape=shape, name=name, initializer=initializer,
                                    **common)
        setattr(layer, name, variable)
        created.append(variable)
    return created


def quantize(layer, config) -> None:
    """Give a built float layer the float8 state (its kernel stays as it is)."""
    kernel = layer._own_variable("kernel")
    layer._place_beside(kernel, build(layer))


def _quantize_dequantize(compute_dtype, training):
    """The e4m3 quantize-dequantize of an operand, whose gradient carries its new state."""
    @ops.custom_gradient
    def qdq(x, scale, history):
        new_scale = new_history = None
        if training:
            new_scale = compute_float8_scale(ops.max(history, axis=0), scale,
                                             FLOAT8_FORMATS["float8_e4m3fn"][2])
            new_history = compute_float8_amax_history(x, history)

        def grad(*args, upstream=None):
            upstream = args[0] if upstream is None else upstream
            return upstream, new_scale, new_history

        return quantize_and_dequantize(x, scale, "float8_e4m3fn", compute_dtype), grad
    return qdq


def _output_gradient_quantizer(compute_dtype):
    """Identity forward; the output gradient is quantized to e5m2 on the way back."""
    @ops.custom_gradient
    def qdq_gradient(y, scale, history):
        def grad(*args, upstream=None):
            upstream = args[0] if upstream is None else upstream
            new_scale = compute_float8_scale(ops.max(history, axis=0), scale,
                                             FLOAT8_FORMATS["float8_e5m2"][2])
            return (quantize_and_dequantize(upstream, scale, "float8_e5m2", compute_dtype),
                    new_scale, compute_float8_amax_history(upstream, history))

        return ops.multiply(y, ops.ones((), dtype=y.dtype)), grad
    return qdq_gradient


def product(layer, inputs, contract, training):
    """``contract(inputs, kernel)`` (matmul, or the layer's einsum) the float8 way."""
    compute_dtype = layer.compute_dtype
    qdq = _quantize_dequantize(compute_dtype, training)
    x = contract(qdq(inputs, layer.inputs_scale, layer.inputs_amax_history),
                 qdq(layer._own_variable("kernel"), layer.kernel_scale,
                     layer.kernel_amax_history))
    return _output_gradient_quantizer(compute_dtype)(x, layer.outputs_grad_scale,
                                                     layer.outputs_grad_amax_history)


def bias(layer):
    """The bias as Keras's float8 layers add it: through bfloat16 when computing in
    float32."""
    if layer.compute_dtype == "float32":
        return ops.cast(ops.cast(layer.bias, "bfloat16"), layer.bias.dtype)
    return layer.bias
