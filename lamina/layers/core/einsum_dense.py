"""``EinsumDense``: ``activation(einsum(equation, inputs, kernel) + bias)``."""
from __future__ import annotations

from ... import activations, constraints, initializers, ops, quantizers, regularizers
from ..input_spec import InputSpec
from ...quantizers.quantization_config import layer_quantization_config
from ..layer import Layer
from ..lora import LoraMixin, adapted_weight
from ..quantize import quantized_view
from . import calibrated_weights, float8_dense, int4_einsum, int8_einsum
from .einsum_equation import (analyze, einsum, expand, kernel_fan_axes, split_equation,
                              with_fan_axes)


class EinsumDense(LoraMixin, calibrated_weights.CalibratedWeightsMixin, Layer):
    """A dense layer whose product is an einsum (Keras 3's ``EinsumDense``).

    ``equation`` has the form ``'ab,bc->ac'``, ``'...ab,bc->...ac'`` or
    ``'ab...,bc->ac...'``; ``output_shape`` is the output's shape without the batch axis and
    the ellipsis (None where the input gives it). Weights: ``kernel`` (shape from the
    equation) and, when ``bias_axes`` names output indices, ``bias`` shaped as Keras's;
    quantized to int8, ``kernel`` is int8 and ``kernel_scale`` holds its scales in Keras's
    layout (see ``int8_einsum.py``); in int4 the variable is Keras's packed 2-D form and
    ``layer.kernel`` gives the int4 values in the kernel's shape (``int4_einsum.py``); in
    float8 the kernel stays float, with the delayed-scaling state of ``float8_dense.py``;
    GPTQ's and AWQ's layout is ``calibrated_weights.py`` (``gptq_unpacked_column_size``,
    which Keras writes in the config of a GPTQ layer, is checked against the kernel).
    ``lora_rank`` (or ``enable_lora(rank)``) adapts the kernel by LoRA (``lora.py``).

    Args:
        equation: Einsum equation such as ``'ab,bc->ac'`` or ``'...ab,bc->...ac'``.
        output_shape: Output shape without the batch axis (an int or tuple; None where the input
            gives the size).
        activation: Activation applied to the output: a name such as 'relu', or a callable; None
            applies none (linear).
        bias_axes: Letters of the output indices that get a bias (e.g. ``'c'``); None: no bias.
        kernel_initializer: Initializer of the ``kernel`` weight (a name, instance or callable).
        bias_initializer: Initializer of the ``bias`` weight.
        kernel_regularizer: Regularizer applied to the ``kernel`` (added to ``layer.losses``),
            or None.
        bias_regularizer: Regularizer applied to the ``bias``, or None.
        kernel_constraint: Constraint applied to the ``kernel`` after each optimizer update, or
            None.
        bias_constraint: Constraint applied to the ``bias`` after each optimizer update, or
            None.
        lora_rank: Rank of a LoRA adapter enabled from the start (trainable low-rank update of
            the kernel, which is frozen); None: no LoRA (see ``enable_lora``).
        lora_alpha: LoRA scaling numerator: the update is scaled by ``lora_alpha / lora_rank``;
            None means ``lora_rank``.
        gptq_unpacked_column_size: Unpacked column count of a GPTQ-quantized kernel, as written
            in Keras configs; checked against the kernel.
        quantization_config: A ``QuantizationConfig`` (e.g. ``Int8QuantizationConfig()``) or its
            serialized dict, used when the layer is quantized; None: the mode's defaults.
    """
    _calibrated_zero = "zero_point"           # Keras's name in EinsumDense

    _lora_quantized = {"int8": int8_einsum, "int4": int4_einsum}
    _quantized_variable_order = {
        "int8": ("kernel", "bias", "kernel_scale"),
        "int4": ("kernel", "bias", "kernel_scale", "kernel_zero", "g_idx"),
        "float8": ("kernel", "bias", "inputs_scale", "inputs_amax_history", "kernel_scale",
                   "kernel_amax_history", "outputs_grad_scale", "outputs_grad_amax_history"),
        "gptq": ("bias", "quantized_kernel", "kernel_scale", "kernel_zero", "g_idx"),
        "awq": ("bias", "quantized_kernel", "kernel_scale", "kernel_zero", "awq_scales",
                "g_idx")}
    kernel = quantized_view(adapted_weight("kernel", "The kernel, with LoRA's update once it "
                                                    "is enabled; an int4 layer's int4 values."),
                            {"int4": int4_einsum.unpacked_kernel,
                             "gptq": calibrated_weights.stored_values,
                             "awq": calibrated_weights.stored_values})

    def __init__(self, equation, output_shape, activation=None, bias_axes=None,
                 kernel_initializer="glorot_uniform", bias_initializer="zeros",
                 kernel_regularizer=None, bias_regularizer=None, kernel_constraint=None,
                 bias_constraint=None, lora_rank=None, lora_alpha=None,
                 gptq_unpacked_column_size=None, quantization_config=None, **kwargs):
        super().__init__(**kwargs)       # activity_regularizer arrives in kwargs, as Keras
        if gptq_unpacked_column_size is not None and (
                isinstance(gptq_unpacked_column_size, bool)
                or not isinstance(gptq_unpacked_column_size, int)
                or gptq_unpacked_column_size <= 0):
            raise ValueError(f"{self.name}: argument 'gptq_unpacked_column_size' must be a "
                             f"positive int or None; received {gptq_unpacked_column_size!r}")
        self.gptq_unpacked_column_size = gptq_unpacked_column_size
        self.quantization_config = layer_quantization_config(
            self.name, quantization_config)
        split_equation(self.name, equation)
        sizes = (output_shape,) if isinstance(output_shape, int) else output_shape
        if not isinstance(sizes, (tuple, list)) or not all(
                d is None or (isinstance(d, int) and not isinstance(d, bool) and d > 0)
                for d in sizes):
            raise ValueError(f"{self.name}: argument 'output_shape' must be a positive int or "
                             f"a tuple of positive ints or None; received {output_shape!r}")
        if bias_axes is not None and not isinstance(bias_axes, str):
            raise ValueError(f"{self.name}: argument 'bias_axes' must be a string of output "
                             f"indices or None; received {bias_axes!r}")
        self._init_lora(lora_rank, lora_alpha)
        self.equation = equation
        self.partial_output_shape = tuple(sizes)
        self.bias_axes = bias_axes
        self.activation = activations.get(activation)
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        self.kernel_constraint = constraints.get(kernel_constraint)
        self.bias_constraint = constraints.get(bias_constraint)

    def build(self, input_shape):
        kernel_shape, bias_shape, self.full_output_shape = analyze(
            self.name, self.equation, self.bias_axes, input_shape, self.partial_output_shape)
        self.input_spec = InputSpec(ndim=len(input_shape))
        mode = self.quantization_mode
        if mode is not None:                 # float8's state comes before the kernel (Keras)
            self.quantized_build(kernel_shape, mode, self.quantization_config)
        if mode in (None, "float8"):
            in_spec, w_spec, out_spec, _ = split_equation(self.name, self.equation)
            initializer = with_fan_axes(self.kernel_initializer,
                                        *kernel_fan_axes(w_spec, out_spec))
            self.kernel = self.add_weight(shape=kernel_shape, name="kernel",
                                          initializer=initializer,
                                          regularizer=self.kernel_regularizer,
                                          constraint=self.kernel_constraint)
        self.bias = None
        if bias_shape is not None:
            self.bias = self.add_weight(shape=bias_shape, name="bias",
                                        initializer=self.bias_initializer,
                                        regularizer=self.bias_regularizer,
                                        constraint=self.bias_constraint)
        self.input_spec = InputSpec(ndim=len(input_shape))
        self._build_lora()

    def call(self, inputs, training=None):
        mode = self.quantization_mode
        specs = expand(self.name, self.equation, len(inputs.shape))
        bias = self.bias
        if mode == "int8":
            x = int8_einsum.product(self, inputs, self._own_variable("kernel"),
                                    self.kernel_scale)
        elif mode == "int4":
            x = int4_einsum.product(self, inputs)
        elif mode in ("gptq", "awq"):
            x = einsum(inputs, calibrated_weights.kernel(self), *specs)
        elif mode == "float8":
            x = float8_dense.product(self, inputs, lambda a, b: einsum(a, b, *specs),
                                     training)
            bias = None if bias is None else float8_dense.bias(self)
        else:
            x = einsum(inputs, self.kernel, *specs)
        if mode in self._lora_quantized and self.lora_enabled:
            x = self._add_lora(x, einsum(inputs, self.lora_kernel_a, *specs))
        if bias is not None:
            x = ops.add(x, bias)
        return x if self.activation is None else self.activation(x)

    def _quantized_build(self, kernel_shape, mode, config) -> None:
        if mode == "int8":
            int8_einsum.build(self, kernel_shape, config)
        elif mode == "int4":
            int4_einsum.build(self, kernel_shape, config)
        elif mode == "float8":
            float8_dense.build(self)
        else:
            calibrated_weights.build(self, kernel_shape, config, self._calibrated_zero,
                                     mode)

    def _quantize_int8(self, config) -> None:
        int8_einsum.quantize(self, config)

    def _quantize_float8(self, config) -> None:
        float8_dense.quantize(self, config)

    def _quantize_int4(self, config) -> None:
        int4_einsum.quantize(self, config)

    def compute_output_shape(self, input_shape):
        return analyze(self.name, self.equation, self.bias_axes, input_shape,
                       self.partial_output_shape)[2]

    def get_config(self) -> dict:
        return {**super().get_config(), "output_shape": self.partial_output_shape,
                "equation": self.equation,
                "activation": activations.serialize(self.activation),
                "bias_axes": self.bias_axes,
                "kernel_initializer": initializers.serialize(self.kernel_initializer),
                "bias_initializer": initializers.serialize(self.bias_initializer),
                "kernel_regularizer": regularizers.serialize(self.kernel_regularizer),
                "bias_regularizer": regularizers.serialize(self.bias_regularizer),
                "kernel_constraint": constraints.serialize(self.kernel_constraint),
                "bias_constraint": constraints.serialize(self.bias_constraint),
                "quantization_config": quantizers.serialize(self.quantization_config),
                **self._gptq_config(), **self._lora_config()}

    def _gptq_config(self) -> dict:
        if not self.gptq_unpacked_column_size:
            return {}
        return {"gptq_unpacked_column_size": self.gptq_unpacked_column_size}
