"""``MultiHeadAttention`` (Vaswani et al., 2017) with Keras 3's weight layout."""
from __future__ import annotations

import math

from ... import constraints, initializers, ops, regularizers
from ...core.tensor import TensorBase
from ...errors import ArgumentTypeError, ShapeError, describe_shape
from ...random import SeedGenerator
from ..layer import Layer
from .dot_product import causal_mask, combined_mask, multi_head_attention
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

    Args:
        num_heads: Number of attention heads.
        key_dim: Size of each head of the query and key projections.
        value_dim: Size of each head of the value projection; None means ``key_dim``.
        dropout: Fraction of the attention weights dropped in training, in [0, 1).
        use_bias: Whether the projections add biases.
        output_shape: Size (int or tuple) of the output's trailing axes; None: the query's last
            size.
        attention_axes: Axes attended over for N-D inputs (an int or a tuple); None: all but the
            batch and features axes.
        sliding_window: Int ``w``: each query position ``i`` sees keys with ``|i - j| < w``
            only; None: all keys.
        flash_attention: Keras's switch for its fused attention kernel (None, True or False).
            Lamina computes the same attention either way; True, as in Keras, refuses ``dropout
            > 0`` (ValueError).
        kernel_initializer: Initializer of the projection kernels.
        bias_initializer: Initializer of the projection biases.
        kernel_regularizer: Regularizer of the projection kernels, or None.
        bias_regularizer: Regularizer of the projection biases, or None.
        activity_regularizer: Regularizer applied to the layer's output (added to
            ``layer.losses``), or None.
        kernel_constraint: Constraint of the projection kernels, or None.
        bias_constraint: Constraint of the projection biases, or None.
        use_gate: Whether to add a sublayer ``gate`` whose sigmoid scales the heads' outputs.
        seed: Integer seed of the layer's random draws; None draws a random seed.

    Example:

    >>> layer = lamina.layers.MultiHeadAttention(num_heads=2, key_dim=8)
    >>> query, value = np.ones((2, 4, 16)), np.ones((2, 6, 16))
    >>> layer(query, value).shape
    (2, 4, 16)
    """

    def __init__(self, num_heads, key_dim, value_dim=None, dropout=0.0, use_bias=True,
                 output_shape=None, attention_axes=None, sliding_window=None,
                 flash_attention=None, kernel_initializer="glorot_uniform",
                 bias_initializer="zeros", kernel_regularizer=None, bias_regularizer=None,
                 activity_regularizer=None, kernel_constraint=None, bias_constraint=None,
                 use_gate=False, seed=None, **kwargs):
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        for arg, value in (("num_heads", num_heads), ("key_dim", key_dim),
                           ("value_dim", key_dim if value_dim is None else value_dim),
                           ("sliding_window", 1 if sliding_window is None else sliding_window)):
            if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
                raise ValueError(f"{self.name}: argument `{arg}` must be a positive int; "
                                 f"received {value!r}")
        check_dropout(self, dropout, flash_attention)
        if isinstance(output_shape, int):
            output_shape = (output_shape,)
        if isinstance(attention_axes, int):
            attention_axes = (attention_axes,)
        for arg, value in (("output_shape", output_shape), ("attention_axes", attention_axes)):
            if value is not None and not (isinstance(value, (list, tuple)) and all(
                    isinstance(v, int) and not isinstance(v, bool) for v in value)):
                raise ArgumentTypeError(f"{self.name}: Invalid `{arg}`: argument '{arg}' must "
                                        f"be an int, a tuple of ints or None; received "
                                        f"{value!r}")
        self.num_heads, self.key_dim = num_heads, key_dim
        self.value_dim = key_dim if value_dim is None else value_dim
        self.dropout, self.use_bias, self.seed = dropout, bool(use_bias), seed
        self._output_shape = tuple(output_shape) if output_shape else None
        self.attention_axes = tuple(attention_axes) if attention_axes is not None else None
        self.sliding_window, self.use_gate = sliding_window, bool(use_gate)
        # Lamina has one attention kernel, whose numbers flash attention would give too;
        # flash_attention=True keeps Keras's limits (no dropout, no scores returned).
        self.flash_attention = flash_attention
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

    # Keras's private names for the projections and options, which its tests and user
    # code reaching into the layer read (read-only: the public names own the sublayers).
    _query_dense = property(lambda self: self.query_dense)
    _key_dense = property(lambda self: self.key_dense)
    _value_dense = property(lambda self: self.value_dense)
    _output_dense = property(lambda self: self.output_dense)
    _gate_dense = property(lambda self: self.gate_dense)
    _sliding_window = property(lambda self: self.sliding_window)
    _flash_attention = property(lambda self: bool(self.flash_attention))

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
        check_scores_allowed(self, return_attention_scores)
        query, value = self._as_input(query), self._as_input(value)
        key = value if key is None else self._as_input(key)
        mask = combined_mask(query_mask, value_mask, key_mask, attention_mask,
                             (query.shape[1], value.shape[1]), use_causal_mask,
                             self.sliding_window)
        # the causal mask is folded in above, so an override of _compute_attention with
        # Keras's older signature (no use_causal_mask) still gets it
        output, scores = self._compute_attention(
            self.query_dense(query), self.key_dense(key), self.value_dense(value), mask,
            training, return_attention_scores)
        if self.gate_dense is not None:
            output = ops.multiply(output, ops.sigmoid(self.gate_dense(query)))
        output = self.output_dense(output)
        return (output, scores) if return_attention_scores else output

    def _compute_attention(self, query, key, value, attention_mask=None, training=None,
                           return_attention_scores=False, use_causal_mask=False):
        """Keras's override point: attention over the projected ``(batch, T, heads, size)``
        query and ``(batch, S, heads, size)`` key and value; returns ``(output, scores)``.
        ``attention_mask`` (True = attend) broadcasts against ``(batch, T, S)``;
        ``use_causal_mask`` ANDs the causal mask into it."""
        check_scores_allowed(self, return_attention_scores)
        return attend(self, query, key, value, self._attn_axes, self.key_dim, attention_mask,
                      training, return_attention_scores, use_causal_mask)

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
    for what, shape in (("query", query_shape), ("value", value_shape), ("key", key_shape)):
        if not isinstance(shape, (list, tuple)):
            raise ShapeError(f"{name}: the {what} shape must be a tuple of dimensions; "
                             f"received {shape!r}")
    if tuple(value_shape[1:-1]) != tuple(key_shape[1:-1]):
        raise ShapeError(f"{name}: all dimensions of `value` and `key`, except the last one, "
                         f"must be equal; received value {describe_shape(value_shape)}, key "
                         f"{describe_shape(key_shape)}")
    return query_shape, value_shape, key_shape


def attend(layer, query, key, value, axes, size, attention_mask, training, scores_wanted,
           use_causal_mask):
    """The body of MultiHeadAttention's and GroupedQueryAttention's ``_compute_attention``
    (``layer.dropout`` and ``layer.seed_generator`` drive the dropout)."""
    query, key, value = (ops.convert_to_tensor(x) for x in (query, key, value))
    if attention_mask is not None:
        attention_mask = ops.cast(ops.convert_to_tensor(attention_mask), "bool")
    if use_causal_mask:
        causal = causal_mask(query.shape[1], value.shape[1])
        attention_mask = causal if attention_mask is None else ops.logical_and(attention_mask,
                                                                               causal)
    dropout = None
    if training and layer.dropout > 0:
        def dropout(x):
            return ops.dropout(x, layer.dropout, seed=layer.seed_generator)
    # Keras zeroes fully masked rows only off its fused path (scores returned, dropout > 0,
    # inputs of rank > 3); its fused path leaves them uniform.
    explicit = scores_wanted or layer.dropout > 0 or len(query.shape) != 4
    return multi_head_attention(query, key, value, axes, 1.0 / math.sqrt(float(size)),
                                attention_mask, explicit, dropout)


def check_dropout(layer, dropout, flash_attention) -> None:
    """``dropout`` a float in [0, 1), and 0 with ``flash_attention=True`` (Keras's rule:
    the fused kernel has no dropout)."""
    if isinstance(dropout, bool) or not isinstance(dropout, (int, float)) or \
            not 0 <= dropout < 1:
        raise ValueError(f"{layer.name}: argument 'dropout' must be a float in [0, 1); "
                         f"received {dropout!r}")
    if flash_attention and dropout > 0:
        raise ValueError(f"{layer.name}: Dropout is not supported when flash attention is "
                         f"enabled; received flash_attention=True and dropout={dropout}")


def check_scores_allowed(layer, return_attention_scores) -> None:
    """Keras's rule: flash attention never forms the scores, so they cannot be returned."""
    if return_attention_scores and layer.flash_attention:
        raise ValueError(f"{layer.name}: Returning attention scores is not supported when "
                         f"flash attention is enabled. Please disable flash attention to "
                         f"access attention scores (received flash_attention=True and "
                         f"return_attention_scores=True)")


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
