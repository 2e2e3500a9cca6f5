"""The dense projections inside ``MultiHeadAttention`` (Keras builds them as
``EinsumDense`` sublayers; only their weights' names and shapes are visible outside)."""
from __future__ import annotations

from ... import ops
from ..layer import Layer


class HeadProjection(Layer):
    """Keras's EinsumDense as MultiHeadAttention uses it. ``contract=1``: ``(..., dim) ->
    (..., heads, size)`` with kernel ``(dim, heads, size)`` (``query``, ``key``, ``value``,
    ``gate``); ``contract=2``: ``(..., heads, size) -> (..., *output_shape)`` with kernel
    ``(heads, size, *output_shape)`` (``attention_output``). The bias has the output's shape.
    """

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

    def build(self, input_shape):
        contracted = tuple(input_shape[-self.contract:])
        if None in contracted:
            raise ValueError(f"{self.name}: the last {self.contract} dimension(s) of the "
                             f"input must be known; received shape {tuple(input_shape)}")
        self.kernel = self.add_weight(shape=contracted + self.projected_shape, name="kernel",
                                      **self._kernel_args)
        self.bias = None
        if self.use_bias:
            self.bias = self.add_weight(shape=self.projected_shape, name="bias",
                                        **self._bias_args)

    def call(self, inputs):
        # Batched matmuls over the heads instead of tensordot: no reshape of the input,
        # so unknown sizes (a symbolic batch or sequence length) are no obstacle.
        if self.contract == 1:          # (..., T, D) -> (..., T, H, size)
            kernel = ops.moveaxis(self.kernel, 0, -2)                   # (H, D, size)
            x = ops.matmul(ops.expand_dims(inputs, -3), kernel)         # (..., H, T, size)
            x = ops.moveaxis(x, -3, -2)
        else:                           # (..., T, H, size) -> (..., T, *output_shape)
            heads, size = self.kernel.shape[:2]
            kernel = ops.reshape(self.kernel, (heads, size, -1))
            x = ops.matmul(ops.moveaxis(inputs, -2, -3), kernel)        # (..., H, T, D)
            x = ops.sum(x, axis=-3)
            if len(self.projected_shape) != 1:
                lead = [-1 if d is None else d for d in x.shape[:-1]]
                x = ops.reshape(x, (*lead, *self.projected_shape))
        return x if self.bias is None else ops.add(x, self.bias)
