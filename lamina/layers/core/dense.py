"""``Dense``: ``activation(inputs @ kernel + bias)`` on the last axis."""
from __future__ import annotations

from ... import activations, constraints, initializers, ops, quantizers, regularizers
from ..input_spec import InputSpec
from ...quantizers.quantization_config import layer_quantization_config
from ..layer import Layer
from ..lora import LoraMixin, adapted_weight
from . import int8_dense


class Dense(LoraMixin, Layer):
    """A fully connected layer (Keras 3's ``Dense``); works on the last axis of N-D input.

    Weights: ``kernel`` (input_dim, units) and ``bias`` (units,); quantized to int8
    (``quantize("int8")`` or an ``int8_from_*`` policy), ``kernel`` is int8 and
    ``kernel_scale`` (units,) holds its per-channel scales (see ``int8_dense.py``).
    ``lora_rank`` (or ``enable_lora(rank)``) adapts the kernel by LoRA (``lora.py``).
    """

    _quantized_variable_order = ("kernel", "bias", "kernel_scale")
    kernel = adapted_weight("kernel", "The kernel, with LoRA's update once it is enabled.")

    def __init__(self, units, activation=None, use_bias=True,
                 kernel_initializer="glorot_uniform", bias_initializer="zeros",
                 kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 kernel_constraint=None, bias_constraint=None, lora_rank=None, lora_alpha=None,
                 quantization_config=None, **kwargs):
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        if isinstance(units, bool) or not isinstance(units, int) or units <= 0:
            raise ValueError(f"{self.name}: argument 'units' must be a positive int; "
                             f"received {units!r}")
        self.quantization_config = layer_quantization_config(
            self.name, quantization_config)
        self._init_lora(lora_rank, lora_alpha)
        self.units = units
        self.activation = activations.get(activation)
        self.use_bias = bool(use_bias)
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        self.kernel_constraint = constraints.get(kernel_constraint)
        self.bias_constraint = constraints.get(bias_constraint)
        self.input_spec = InputSpec.described("(batch, ..., features)", min_ndim=2)
        self.supports_masking = True

    def build(self, input_shape):
        input_dim = input_shape[-1]
        if input_dim is None:
            raise ValueError(f"{self.name}: the last dimension of the input must be known "
                             f"to build the layer; received shape {tuple(input_shape)}")
        if self.quantization_mode == "int8":
            int8_dense.build(self, (input_dim, self.units), self.quantization_config)
        else:
            self.kernel = self.add_weight(shape=(input_dim, self.units), name="kernel",
                                          initializer=self.kernel_initializer,
                                          regularizer=self.kernel_regularizer,
                                          constraint=self.kernel_constraint)
        self.bias = None
        if self.use_bias:
            self.bias = self.add_weight(shape=(self.units,), name="bias",
                                        initializer=self.bias_initializer,
                                        regularizer=self.bias_regularizer,
                                        constraint=self.bias_constraint)
        self.input_spec = InputSpec.described("(batch, ..., features)",
                                              min_ndim=2, axes={-1: input_dim})
        self._build_lora()

    def call(self, inputs):
        if self.quantization_mode == "int8":
            x = int8_dense.product(self, inputs, self.kernel, self.kernel_scale)
        else:
            x = ops.matmul(inputs, self.kernel)
        if self.bias is not None:
            x = ops.add(x, self.bias)
        return self.activation(x)

    def _quantize_int8(self, config) -> None:
        int8_dense.quantize(self, config)

    def compute_output_shape(self, input_shape):
        return (*tuple(input_shape)[:-1], self.units)

    def get_config(self) -> dict:
        return {**super().get_config(), "units": self.units,
                "activation": activations.serialize(self.activation),
                "use_bias": self.use_bias,
                "kernel_initializer": initializers.serialize(self.kernel_initializer),
                "bias_initializer": initializers.serialize(self.bias_initializer),
                "kernel_regularizer": regularizers.serialize(self.kernel_regularizer),
                "bias_regularizer": regularizers.serialize(self.bias_regularizer),
                "kernel_constraint": constraints.serialize(self.kernel_constraint),
                "bias_constraint": constraints.serialize(self.bias_constraint),
                "quantization_config": quantizers.serialize(self.quantization_config),
                **self._lora_config()}
