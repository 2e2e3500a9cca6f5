"""The dense projections inside ``MultiHeadAttention`` (Keras builds them as
``EinsumDense`` sublayers; only their weights' names and shapes are visible outside).
``model.quantize("int8")`` quantizes them as Keras quantizes those sublayers
(``int8_projection.py``)."""
from __future__ import annotations

from ... import initializers, ops
from ..core.einsum_equation import with_fan_axes
from ..layer import Layer
from ..lora import LoraMixin, adapted_weight
from . import int8_projection
from .head_contraction import contract


class HeadProjection(LoraMixin, Layer):
    """Keras's EinsumDense as MultiHeadAttention uses it. ``contract=1``: ``(..., dim) ->
    (..., heads, size)`` with kernel ``(dim, heads, size)`` (``query``, ``key``, ``value``,
    ``gate``); ``contract=2``: ``(..., heads, size) -> (..., *output_shape)`` with kernel
    ``(heads, size, *output_shape)`` (``attention_output``). The bias has the output's shape.
    """

    _quantized_variable_order = ("kernel", "bias", "kernel_scale")
    kernel = adapted_weight("kernel", "The projection kernel (merged with LoRA's update "
                                      "once ``enable_lora`` ran; ``_kernel`` is the base).")

    def __init__(self, output_shape, contract=1, use_bias=True, kernel_initializer=None,
                 bias_initializer=None, kernel_regularizer=None, bias_regularizer=None,
                 kernel_constraint=None, bias_constraint=None, **kwargs):
        super().__init__(**kwargs)
        self.projected_shape = tuple(output_shape)
        self.contract = contract
        self.use_bias = use_bias
        self._kernel_args = dict(initializer=kernel_initializer, regularizer=kernel_regularizer,
                                 constraint=kernel_constraint)
        self._bias_args = dict(initializer=bias_initializer, regularizer=bias_regularizer,
                               constraint=bias_constraint)
        self.quantization_config = None
        self._init_lora(None, None)          # Keras's EinsumDense: enable_lora(rank) later

    def build(self, input_shape):
        contracted = tuple(input_shape[-self.contract:])
        if None in contracted:
            raise ValueError(f"{self.name}: the last {self.contract} dimension(s) of the "
                             f"input must be known; received shape {tuple(input_shape)}")
        self._input_rank = len(input_shape)
        if self.quantization_mode == "int8":
            int8_projection.build(self, contracted + self.projected_shape, len(input_shape),
                                  self.quantization_config)
        else:
            shape = contracted + self.projected_shape
            # fans over the contracted and the projected axes (Keras's EinsumDense)
            args = dict(self._kernel_args, initializer=with_fan_axes(
                initializers.get(self._kernel_args["initializer"] or "glorot_uniform"),
                range(self.contract), range(self.contract, len(shape))))
            self.kernel = self.add_weight(shape=shape, name="kernel", **args)
        self.bias = None
        if self.use_bias:
            self.bias = self.add_weight(shape=self.projected_shape, name="bias",
                                        **self._bias_args)
        self._build_lora()

    def call(self, inputs):
        if self.quantization_mode == "int8":
            x = int8_projection.product(self, inputs)
        else:
            x = contract(inputs, self.kernel, self.contract, self.projected_shape)
        return x if self.bias is None else ops.add(x, self.bias)

    def _quantize_int8(self, config) -> None:
        int8_projection.quantize(self, config)
