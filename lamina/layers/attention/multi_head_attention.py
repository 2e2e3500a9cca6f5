"""``MultiHeadAttention`` (Vaswani et al., 2017) with Keras 3's weight layout."""
from __future__ import annotations

import math

from ... import constraints, initializers, ops, regularizers
from ...core.tensor import TensorBase
from ...errors import ShapeError, describe_shape
from ...random import SeedGenerator
from ..layer import Layer
from .dot_product import combined_mask, multi_head_attention
from .projection import HeadProjection


class MultiHeadAttention(Layer):
    """Multi-head attention (Keras 3's ``MultiHeadAttention``).

    ``call(query, value, key=None, ...)``: query ``(batch, T, dim)``, value/key
    ``(batch, S, dim_v)``; ``[query, value(, key)]`` as the first argument works too. The
    query, key and value are projected to ``num_heads`` heads (sublayers ``query``, ``key``,
    ``value``: kernel ``(dim, num_heads, key_dim)``, bias ``(num_heads, key_dim)``),
    scores ``q.k / sqrt(key_dim)`` are softmaxed over the keys with masked positions
    excluded, and the heads' outputs go through ``attention_output`` (kernel
    ``(num_heads, value_dim, dim)``, bias ``(dim,)``). ``use_gate`` adds a sublayer
    ``gate`` whose sigmoid scales the heads' outputs; ``sliding_window=w`` lets position
    ``i`` see keys ``|i - j| < w`` only. Masks (the inputs' Keras masks, ``attention_mask``
    ``(batch, T, S)``, causal, sliding window) are combined with AND. ``attention_axes``
    selects the axes of N-D inputs to attend over (default all but batch and features).
    """

    def __init__(self, num_heads, key_dim, value_dim=None, dropout=0.0, use_bias=True,
                 output_shape=None, attention_axes=None, sliding_window=None,
                 flash_attention=None, kernel_initializer="glorot_uniform",
                 bias_initializer="zeros", kernel_regularizer=None, bias_regularizer=None,
                 activity_regularizer=None, kernel_constraint=None, bias_constraint=None,
                 use_gate=False, seed=None, **kwargs):
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        for arg, value in (("num_heads", num_heads), ("key_dim", key_dim),
                           ("value_dim", value_dim or key_dim),
                           ("sliding_window", 1 if sliding_window is None else sliding_window)):
            if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
                raise ValueError(f"{self.name}: argument '{arg}' must be a positive int; "
                                 f"received {value!r}")
        if isinstance(dropout, bool) or not isinstance(dropout, (int, float)) or \
                not 0 <= dropout < 1:
            raise ValueError(f"{self.name}: argument 'dropout' must be a float in [0, 1); "
                             f"received {dropout!r}")
        if isinstance(output_shape, int):
            output_shape = (output_shape,)
        if isinstance(attention_axes, int):
            attention_axes = (attention_axes,)
        for arg, value in (("output_shape", output_shape), ("attention_axes", attention_axes)):
            if value is not None and not (isinstance(value, (list, tuple)) and all(
                    isinstance(v, int) and not isinstance(v, bool) for v in value)):
                raise TypeError(f"{self.name}: argument '{arg}' must be an int, a tuple of "
                                f"ints or None; received {value!r}")
        self.num_heads, self.key_dim = num_heads, key_dim
        self.value_dim = value_dim or key_dim
        self.dropout, self.use_bias, self.seed = dropout, bool(use_bias), seed
        self._output_shape = tuple(output_shape) if output_shape else None
        self.attention_axes = tuple(attention_axes) if attention_axes is not None else None
        self.sliding_window, self.use_gate = sliding_window, bool(use_gate)
        self.flash_attention = flash_attention       # accepted; Lamina has no fused kernel
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        self.kernel_constraint = constraints.get(kernel_constraint)
        self.bias_constraint = constraints.get(bias_constraint)
        self.seed_generator = SeedGenerator(seed) if dropout > 0 else None
        self.supports_masking = True

    def __call__(self, *args, **kwargs):
        if not args and "query" in kwargs:      # mha(query=q, value=v), as Keras allows
            args = (kwargs.pop("query"),)
        return super().__call__(*args, **kwargs)

    # ---------------------------------------------------------------- build
    def build(self, query_shape, value_shape=None, key_shape=None):
        if value_shape is None and query_shape and isinstance(query_shape[0], (list, tuple)):
            query_shape, value_shape, key_shape = (list(query_shape) + [None])[:3]
        given_key = key_shape
        query_shape, value_shape, key_shape = self._input_shapes(query_shape, value_shape,
                                                                 key_shape)
        rank = len(query_shape)
        axes = self.attention_axes or tuple(range(1, rank - 1))
        self._attn_axes = tuple(sorted({a + rank if a < 0 else a for a in axes}))
        if any(not 1 <= a < rank - 1 for a in self._attn_axes):
            raise ValueError(f"{self.name}: argument 'attention_axes' {self.attention_axes} "
                             f"must name axes between the batch and feature axes of the "
                             f"query, shape {describe_shape(query_shape)}")
        self.query_dense = self._projection("query", (self.num_heads, self.key_dim))
        self.key_dense = self._projection("key", (self.num_heads, self.key_dim))
        self.gate_dense = None
        if self.use_gate:           # created between key and value, as Keras orders weights
            self.gate_dense = self._projection("gate", (self.num_heads, self.value_dim))
        self.value_dense = self._projection("value", (self.num_heads, self.value_dim))
        self.output_dense = self._projection("attention_output",
                                             self._output_shape or (query_shape[-1],), 2)
        for layer, shape in ((self.query_dense, query_shape), (self.key_dense, key_shape),
                             (self.gate_dense, query_shape), (self.value_dense, value_shape),
                             (self.output_dense,     # the full rank: int8 scales need it
                              (*query_shape[:-1], self.num_heads, self.value_dim))):
            if layer is not None:
                layer.build(shape)            # the base class scopes it: "<mha>/query/..."
        self._shapes_dict = {"query_shape": query_shape, "value_shape": value_shape}
        if given_key is not None:
            self._shapes_dict["key_shape"] = given_key

    def _input_shapes(self, query_shape, value_shape, key_shape):
        query_shape, value_shape, key_shape = attention_input_shapes(
            self.name, query_shape, value_shape, key_shape)
        if len(query_shape) != len(value_shape) or len(query_shape) < 3:
            raise ShapeError(f"{self.name}: query and value must have the same rank, at "
                             f"least 3 (batch, steps, features); received query "
                             f"{describe_shape(query_shape)}, value "
                             f"{describe_shape(value_shape)}")
        return tuple(query_shape), tuple(value_shape), tuple(key_shape)

    def _projection(self, name, shape, contract=1):
        return HeadProjection(
            shape, contract, self.use_bias, name=name, dtype=self.dtype_policy,
            kernel_initializer=initializers.get(initializers.serialize(self.kernel_initializer)),
            bias_initializer=initializers.get(initializers.serialize(self.bias_initializer)),
            kernel_regularizer=self.kernel_regularizer, bias_regularizer=self.bias_regularizer,
            kernel_constraint=self.kernel_constraint, bias_constraint=self.bias_constraint)

    def get_build_config(self) -> dict | None:
        """Keras 3's form for a build with several shapes: ``{"shapes_dict": {...}}``."""
        shapes = getattr(self, "_shapes_dict", None)
        if shapes is None:
            return None
        return {"shapes_dict": {k: list(v) for k, v in shapes.items()}}

    def build_from_config(self, config: dict) -> None:
        shapes = (config or {}).get("shapes_dict")
        if shapes is None:
            return super().build_from_config(config)
        if not self.built:
            self.build(**{k: None if v is None else tuple(v) for k, v in shapes.items()})

    # ---------------------------------------------------------------- call
    def call(self, query, value=None, key=None, query_mask=None, value_mask=None,
             key_mask=None, attention_mask=None, return_attention_scores=False,
             training=None, use_causal_mask=False):
        if value is None and isinstance(query, (list, tuple)):
            query, value, key = (list(query) + [None])[:3]
        query_mask = _mask_of(query) if query_mask is None else query_mask
        value_mask = _mask_of(value) if value_mask is None else value_mask
        if key is not None and key_mask is None:
            key_mask = _mask_of(key)
        query, value = self._as_input(query), self._as_input(value)
        key = value if key is None else self._as_input(key)
        mask = combined_mask(query_mask, value_mask, key_mask, attention_mask,
                             (query.shape[1], value.shape[1]), use_causal_mask,
                             self.sliding_window)
        dropout = None
        if training and self.dropout > 0:
            def dropout(x):
                return ops.dropout(x, self.dropout, seed=self.seed_generator)
        # Keras zeroes fully masked rows only off its fused path (scores returned,
        # dropout, inputs of rank > 3); its fused path leaves them uniform.
        explicit = return_attention_scores or dropout is not None or len(query.shape) != 3
        output, scores = multi_head_attention(
            self.query_dense(query), self.key_dense(key), self.value_dense(value),
            self._attn_axes, 1.0 / math.sqrt(float(self.key_dim)), mask, explicit, dropout)
        if self.gate_dense is not None:
            output = ops.multiply(output, ops.sigmoid(self.gate_dense(query)))
        output = self.output_dense(output)
        return (output, scores) if return_attention_scores else output

    def _as_input(self, x):
        """Other arguments than the first get the conversion and autocast it gets."""
        if not isinstance(x, TensorBase):
            x = ops.convert_to_tensor(x)
        if "float" in x.dtype and x.dtype != self.compute_dtype:
            x = ops.cast(x, self.compute_dtype)
        return x

    def compute_output_shape(self, query_shape, value_shape=None, key_shape=None):
        query_shape, _, _ = self._input_shapes(query_shape, value_shape, key_shape)
        return (*query_shape[:-1], *(self._output_shape or query_shape[-1:]))

    def get_config(self) -> dict:
        return {**super().get_config(), "num_heads": self.num_heads, "key_dim": self.key_dim,
                "value_dim": self.value_dim, "dropout": self.dropout,
                "use_bias": self.use_bias, "output_shape": self._output_shape,
                "attention_axes": self.attention_axes, "use_gate": self.use_gate,
                "sliding_window": self.sliding_window,
                **weight_options_config(self), "seed": self.seed}



def attention_input_shapes(name, query_shape, value_shape, key_shape):
    """(query, value, key) shapes from either calling convention, key defaulting to value,
    with the checks every attention layer makes (ranks are each layer's own)."""
    if value_shape is None and query_shape and isinstance(query_shape[0], (list, tuple)):
        query_shape, value_shape, key_shape = (list(query_shape) + [None])[:3]
    if value_shape is None:
        raise ValueError(f"{name}: call(query, value, key=None) needs a 'value' "
                         f"tensor; received only a query")
    key_shape = value_shape if key_shape is None else key_shape
    if tuple(value_shape[1:-1]) != tuple(key_shape[1:-1]):
        raise ShapeError(f"{name}: value and key must agree on all axes but the last; "
                         f"received value {describe_shape(value_shape)}, key "
                         f"{describe_shape(key_shape)}")
    return query_shape, value_shape, key_shape


def weight_options_config(layer) -> dict:
    """The initializers, regularizers and constraints of an attention layer's projections,
    serialized as Keras writes them."""
    return {"kernel_initializer": initializers.serialize(layer.kernel_initializer),
            "bias_initializer": initializers.serialize(layer.bias_initializer),
            "kernel_regularizer": regularizers.serialize(layer.kernel_regularizer),
            "bias_regularizer": regularizers.serialize(layer.bias_regularizer),
            "activity_regularizer": regularizers.serialize(layer.activity_regularizer),
            "kernel_constraint": constraints.serialize(layer.kernel_constraint),
            "bias_constraint": constraints.serialize(layer.bias_constraint)}


def _mask_of(x):
    return getattr(x, "_keras_mask", None)
