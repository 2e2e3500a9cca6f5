"""``GroupQueryAttention`` (Ainslie et al., 2023): query heads share fewer key/value heads."""
from __future__ import annotations

from ... import constraints, initializers, ops, regularizers
from ...errors import ShapeError, describe_shape
from ...random import SeedGenerator
from ..layer import Layer
from .dot_product import combined_mask
from .multi_head_attention import (MultiHeadAttention, attend, attention_input_shapes,
                                   check_dropout, check_scores_allowed, weight_options_config)
from .projection import HeadProjection


def _positive_int(layer, arg, value):
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise ValueError(f"{layer.name}: argument `{arg}` must be a positive int; received "
                         f"{value!r}")
    return value


class GroupedQueryAttention(Layer):
    """Grouped-query attention (Keras 3's ``GroupQueryAttention``, class name
    ``GroupedQueryAttention`` as in Keras's saved configs).

    ``call(query, value, key=None, ...)`` with query ``(batch, T, dim)`` and value/key
    ``(batch, S, dim_v)``. Sublayers (weights in Keras's order): ``query`` kernel
    ``(dim, num_query_heads, head_dim)``, ``key`` and ``value`` kernels
    ``(dim_v, num_key_value_heads, head_dim)``, ``gate`` (with ``use_gate``, a sigmoid
    scaling the heads' outputs) and ``attention_output`` ``(num_query_heads, head_dim,
    dim)``; biases shaped like the projections' outputs. Each key/value head serves
    ``num_query_heads // num_key_value_heads`` consecutive query heads. Masks combine as
    in :class:`MultiHeadAttention`; ``return_attention_scores`` gives
    ``(batch, num_query_heads, T, S)``.

    Args:
        head_dim: Size of each attention head.
        num_query_heads: Number of query heads.
        num_key_value_heads: Number of key and value heads; must divide ``num_query_heads``.
        dropout: Fraction of the attention weights dropped in training, in [0, 1).
        use_bias: Whether the projections add biases.
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
    """

    def __init__(self, head_dim, num_query_heads, num_key_value_heads, dropout=0.0,
                 use_bias=True, sliding_window=None, flash_attention=None,
                 kernel_initializer="glorot_uniform", bias_initializer="zeros",
                 kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 kernel_constraint=None, bias_constraint=None, use_gate=False, seed=None,
                 **kwargs):
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        self.head_dim = _positive_int(self, "head_dim", head_dim)
        self.num_query_heads = _positive_int(self, "num_query_heads", num_query_heads)
        self.num_key_value_heads = _positive_int(self, "num_key_value_heads",
                                                 num_key_value_heads)
        if num_query_heads % num_key_value_heads:
            raise ValueError(f"{self.name}: argument 'num_query_heads' must be divisible by "
                             f"'num_key_value_heads'; received {num_query_heads} and "
                             f"{num_key_value_heads}")
        if sliding_window is not None:
            _positive_int(self, "sliding_window", sliding_window)
        check_dropout(self, dropout, flash_attention)
        self.num_repeats = num_query_heads // num_key_value_heads
        self.dropout, self.use_bias, self.use_gate = dropout, bool(use_bias), bool(use_gate)
        self.sliding_window, self.seed = sliding_window, seed
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
        self._return_attention_scores = False      # set by each call (Keras's state)
        self.supports_masking = True

    # ---------------------------------------------------------------- build
    def build(self, query_shape, value_shape=None, key_shape=None):
        if value_shape is None and query_shape and isinstance(query_shape[0], (list, tuple)):
            query_shape, value_shape, key_shape = (list(query_shape) + [None])[:3]
        given_key = key_shape
        query_shape, value_shape, key_shape = self._input_shapes(query_shape, value_shape,
                                                                 key_shape)
        self._shapes_dict = {"query_shape": query_shape, "value_shape": value_shape}
        if given_key is not None:
            self._shapes_dict["key_shape"] = given_key
        # Keras's attribute names: its .weights.h5 files store the projections under them.
        heads_q = (self.num_query_heads, self.head_dim)
        heads_kv = (self.num_key_value_heads, self.head_dim)
        self._query_dense = self._projection("query", heads_q)
        self._key_dense = self._projection("key", heads_kv)
        self._gate_dense = self._projection("gate", heads_q) if self.use_gate else None
        self._value_dense = self._projection("value", heads_kv)
        self._output_dense = self._projection("attention_output", (query_shape[-1],), 2)
        for layer, shape in ((self._query_dense, query_shape), (self._key_dense, key_shape),
                             (self._gate_dense, query_shape), (self._value_dense, value_shape),
                             (self._output_dense, (*query_shape[:-1], *heads_q))):
            if layer is not None:
                layer.build(shape)

    # Keras 3's build config for several shapes, {"shapes_dict": {...}}, as MHA writes it.
    get_build_config = MultiHeadAttention.get_build_config
    build_from_config = MultiHeadAttention.build_from_config

    def _input_shapes(self, query_shape, value_shape, key_shape):
        query_shape, value_shape, key_shape = attention_input_shapes(
            self.name, query_shape, value_shape, key_shape)
        if len(query_shape) != 3 or len(value_shape) != 3 or len(key_shape) != 3:
            raise ShapeError(f"{self.name}: query, value and key must have rank 3 (batch, "
                             f"steps, features); received query {describe_shape(query_shape)}, "
                             f"value {describe_shape(value_shape)}, key "
                             f"{describe_shape(key_shape)}")
        return tuple(query_shape), tuple(value_shape), tuple(key_shape)

    def _projection(self, name, shape, contract=1):
        return HeadProjection(
            shape, contract, self.use_bias, name=name, dtype=self.dtype_policy,
            kernel_initializer=initializers.get(initializers.serialize(self.kernel_initializer)),
            bias_initializer=initializers.get(initializers.serialize(self.bias_initializer)),
            kernel_regularizer=self.kernel_regularizer, bias_regularizer=self.bias_regularizer,
            kernel_constraint=self.kernel_constraint, bias_constraint=self.bias_constraint)

    # ---------------------------------------------------------------- call
    def call(self, query, value=None, key=None, query_mask=None, value_mask=None,
             key_mask=None, attention_mask=None, return_attention_scores=False,
             training=None, use_causal_mask=False):
        if value is None and isinstance(query, (list, tuple)):
            query, value, key = (list(query) + [None])[:3]
        query_mask = getattr(query, "_keras_mask", None) if query_mask is None else query_mask
        value_mask = getattr(value, "_keras_mask", None) if value_mask is None else value_mask
        if key is not None and key_mask is None:
            key_mask = getattr(key, "_keras_mask", None)
        check_scores_allowed(self, return_attention_scores)
        query, value = self._as_input(query), self._as_input(value)
        key = value if key is None else self._as_input(key)
        mask = combined_mask(query_mask, value_mask, key_mask, attention_mask,
                             (query.shape[1], value.shape[1]), use_causal_mask,
                             self.sliding_window)
        keys = ops.repeat(self._key_dense(key), self.num_repeats, axis=2)
        values = ops.repeat(self._value_dense(value), self.num_repeats, axis=2)
        # Keras passes return_attention_scores to _compute_attention as layer state
        self._return_attention_scores = bool(return_attention_scores)
        output, scores = self._compute_attention(self._query_dense(query), keys, values,
                                                 attention_mask=mask, training=training)
        if self._gate_dense is not None:
            output = ops.multiply(output, ops.sigmoid(self._gate_dense(query)))
        output = self._output_dense(output)
        return (output, scores) if return_attention_scores else output

    def _compute_attention(self, query, key, value, attention_mask=None, training=None,
                           use_causal_mask=False):
        """Keras's override point: attention over the projected query and the repeated key
        and value heads, all ``(batch, T or S, num_query_heads, head_dim)``; returns
        ``(output, scores)``. Scores are wanted when ``self._return_attention_scores``."""
        wanted = getattr(self, "_return_attention_scores", False)
        check_scores_allowed(self, wanted)
        return attend(self, query, key, value, (1,), self.head_dim, attention_mask, training,
                      wanted, use_causal_mask)

    _as_input = MultiHeadAttention._as_input
    _flash_attention = MultiHeadAttention._flash_attention

    def compute_output_shape(self, query_shape, value_shape=None, key_shape=None):
        if value_shape is not None and query_shape[-1] != value_shape[-1]:   # Keras's order
            raise ShapeError(f"{self.name}: the last dimension of query and value must be "
                             f"equal; received query {describe_shape(query_shape)}, value "
                             f"{describe_shape(value_shape)}")
        query_shape, value_shape, _ = self._input_shapes(query_shape, value_shape, key_shape)
        return query_shape

    def get_config(self) -> dict:
        return {**super().get_config(), "head_dim": self.head_dim,
                "num_query_heads": self.num_query_heads,
                "num_key_value_heads": self.num_key_value_heads, "use_bias": self.use_bias,
                "use_gate": self.use_gate, "sliding_window": self.sliding_window,
                "dropout": self.dropout, **weight_options_config(self), "seed": self.seed}


GroupQueryAttention = GroupedQueryAttention          # Keras 3's exported name
