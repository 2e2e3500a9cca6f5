"""``EinsumDense``: ``activation(einsum(equation, inputs, kernel) + bias)``."""
from __future__ import annotations

from ... import activations, constraints, initializers, ops, quantizers, regularizers
from ..input_spec import InputSpec
from ...quantizers.quantization_config import layer_quantization_config
from ..layer import Layer
from ..lora import LoraMixin, adapted_weight
from . import int8_einsum
from .einsum_equation import analyze, einsum, expand, split_equation


class EinsumDense(LoraMixin, Layer):
    """A dense layer whose product is an einsum (Keras 3's ``EinsumDense``).

    ``equation`` has the form ``'ab,bc->ac'``, ``'...ab,bc->...ac'`` or
    ``'ab...,bc->ac...'``; ``output_shape`` is the output's shape without the batch axis and
    the ellipsis (None where the input gives it). Weights: ``kernel`` (shape from the
    equation) and, when ``bias_axes`` names output indices, ``bias`` shaped as Keras's;
    quantized to int8, ``kernel`` is int8 and ``kernel_scale`` holds its scales in Keras's
    layout (see ``int8_einsum.py``). ``lora_rank`` (or ``enable_lora(rank)``) adapts the
    kernel by LoRA (``lora.py``).
    """

    _quantized_variable_order = ("kernel", "bias", "kernel_scale")
    kernel = adapted_weight("kernel", "The kernel, with LoRA's update once it is enabled.")

    def __init__(self, equation, output_shape, activation=None, bias_axes=None,
                 kernel_initializer="glorot_uniform", bias_initializer="zeros",
                 kernel_regularizer=None, bias_regularizer=None, kernel_constraint=None,
                 bias_constraint=None, lora_rank=None, lora_alpha=None,
                 gptq_unpacked_column_size=None, quantization_config=None, **kwargs):
        super().__init__(**kwargs)       # activity_regularizer arrives in kwargs, as Keras
        if gptq_unpacked_column_size is not None:
            raise ValueError(f"{self.name}: argument 'gptq_unpacked_column_size' (GPTQ "
                             f"quantization) is not supported by Lamina; received "
                             f"{gptq_unpacked_column_size!r}")
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
        if self.quantization_mode == "int8":
            int8_einsum.build(self, kernel_shape, self.quantization_config)
        else:
            self.kernel = self.add_weight(shape=kernel_shape, name="kernel",
                                          initializer=self.kernel_initializer,
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

    def call(self, inputs):
        if self.quantization_mode == "int8":
            x = int8_einsum.product(self, inputs, self.kernel, self.kernel_scale)
        else:
            x = einsum(inputs, self.kernel, *expand(self.name, self.equation,
                                                    len(inputs.shape)))
        if self.bias is not None:
            x = ops.add(x, self.bias)
        return self.activation(x)

    def _quantize_int8(self, config) -> None:
        int8_einsum.quantize(self, config)

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
                **self._lora_config()}
