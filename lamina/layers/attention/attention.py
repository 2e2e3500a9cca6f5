"""``Attention``: dot-product (Luong-style) attention over ``[query, value(, key)]``."""
from __future__ import annotations

from ... import ops
from ...errors import ShapeError, describe_shape
from ...random import SeedGenerator
from ..input_spec import InputSpec
from ..layer import Layer
from .dot_product import causal_mask


class Attention(Layer):
    """Attention over ``inputs = [query, value]`` or ``[query, value, key]`` (Keras 3's
    ``Attention``); query ``(batch, Tq, dim)``, value and key ``(batch, Tv, dim)``. Inputs
    of higher rank (``(batch, ..., T, dim)``, e.g. Conv2D features) attend over their
    second-to-last axis, the other leading axes batching, as in Keras.

    Scores are ``query @ key^T`` (``score_mode='dot'``, times the weight ``scale`` when
    ``use_scale``) or ``concat_score_weight * sum(tanh(scale * (q_i + k_j)))``
    (``'concat'``). Masked keys get ``-1e9`` before the softmax over keys; the output is
    ``softmax(scores) @ value``, zero at masked query positions. ``mask=[query_mask,
    value_mask]`` defaults to the inputs' masks; ``use_causal_mask`` hides keys ``j > i``.

    Args:
        use_scale: Whether to learn a scalar ``scale`` multiplying the scores.
        score_mode: 'dot' (dot-product scores) or 'concat' (tanh of the sum of query and key).
        dropout: Fraction of the attention weights dropped in training, in [0, 1).
        seed: Integer seed of the layer's random draws; None draws a random seed.
    """

    def __init__(self, use_scale=False, score_mode="dot", dropout=0.0, seed=None, **kwargs):
        super().__init__(**kwargs)
        if score_mode not in ("dot", "concat"):
            raise ValueError(f"{self.name}: Invalid value for argument score_mode. Expected "
                             f"one of {{'dot', 'concat'}}; received {score_mode!r}")
        if isinstance(dropout, bool) or not isinstance(dropout, (int, float)) or \
                not 0 <= dropout < 1:
            raise ValueError(f"{self.name}: argument 'dropout' must be a float in [0, 1); "
                             f"received {dropout!r}")
        self.use_scale = bool(use_scale)
        self.score_mode = score_mode
        self.dropout = dropout
        self.seed = seed
        self.seed_generator = SeedGenerator(seed) if dropout > 0 else None
        self.supports_masking = True

    def _validate_inputs(self, shapes) -> list:
        is_list = isinstance(shapes, (list, tuple)) and all(isinstance(s, (list, tuple))
                                                            for s in shapes)
        if not is_list or not 2 <= len(shapes) <= 3:
            what = "a list of 2 or 3 tensors" if not is_list else "a list of length 2 or 3"
            raise ValueError(f"{self.name} must be called on {what}, [query, value] or "
                             f"[query, value, key]; received {_describe(shapes)}")
        return [tuple(s) for s in shapes]

    def build(self, input_shape):
        shapes = self._validate_inputs(input_shape)
        query, value = shapes[0], shapes[1]
        key = shapes[2] if len(shapes) > 2 else value
        for what, shape in (("query", query), ("value", value), ("key", key)):
            if len(shape) < 3 or len(shape) != len(query):
                raise ShapeError(f"{self.name} expects {what} of rank 3 or more (batch, ..., "
                                 f"steps, dim), all inputs of one rank; received shape "
                                 f"{describe_shape(shape)} (query {describe_shape(query)})")
        if None not in (query[-1], key[-1]) and query[-1] != key[-1]:
            raise ShapeError(f"{self.name}: query and key must have the same last dimension; "
                             f"received query {describe_shape(query)}, key "
                             f"{describe_shape(key)}")
        if None not in (value[-2], key[-2]) and value[-2] != key[-2]:
            raise ShapeError(f"{self.name}: value and key must have the same number of steps; "
                             f"received value {describe_shape(value)}, key "
                             f"{describe_shape(key)}")
        self._build_weights(query[-1])
        self.input_spec = [InputSpec.described("(batch, ..., steps, dim)", ndim=len(query))
                           ] * len(shapes)

    def _build_weights(self, dim) -> None:
        self.scale = self.concat_score_weight = None
        if self.use_scale:
            self.scale = self.add_weight(shape=(), name="scale", initializer="ones")
        if self.score_mode == "concat":
            self.concat_score_weight = self.add_weight(shape=(), name="concat_score_weight",
                                                       initializer="ones")

    def _calculate_scores(self, query, key):
        """``(batch, Tq, Tv)`` scores."""
        if self.score_mode == "dot":
            scores = ops.matmul(query, ops.swapaxes(key, -1, -2))
            return scores if self.scale is None else ops.multiply(scores, self.scale)
        pairs = ops.add(ops.expand_dims(query, -2), ops.expand_dims(key, -3))
        if self.scale is not None:
            pairs = ops.multiply(self.scale, pairs)
        return ops.multiply(self.concat_score_weight, ops.sum(ops.tanh(pairs), axis=-1))

    def call(self, inputs, mask=None, training=None, return_attention_scores=False,
             use_causal_mask=False):
        self._validate_inputs([tuple(x.shape) for x in inputs]
                              if isinstance(inputs, (list, tuple)) else inputs)
        query, value = inputs[0], inputs[1]
        key = inputs[2] if len(inputs) > 2 else value
        query_mask, value_mask = _split_mask(self.name, mask)
        scores = self._calculate_scores(query, key)
        keep = self._calculate_score_mask(scores, value_mask, use_causal_mask)
        if keep is not None:
            if len(keep.shape) == 2:            # a value mask alone: (batch, Tv)
                keep = ops.expand_dims(keep, -2)
            big = 65504.0 if scores.dtype == "float16" else 1.0e9
            scores = ops.subtract(scores, ops.multiply(
                ops.cast(ops.logical_not(keep), scores.dtype), big))
        weights = ops.softmax(scores, axis=-1)
        if training and self.dropout > 0:
            weights = ops.dropout(weights, self.dropout, seed=self.seed_generator)
        result = ops.matmul(weights, value)
        if query_mask is not None:
            result = ops.multiply(result, ops.cast(ops.expand_dims(query_mask, -1),
                                                   result.dtype))
        return (result, weights) if return_attention_scores else result

    def _calculate_score_mask(self, scores, v_mask, use_causal_mask):
        """Keras's helper: the value mask as is (None without one) or, with
        ``use_causal_mask``, the ``(1, Tq, Tv)`` lower-triangular mask, AND-ed with the value
        mask as ``(batch, 1, Tv)``."""
        if v_mask is not None:
            v_mask = ops.cast(v_mask, "bool")
        if not use_causal_mask:
            return v_mask
        causal = causal_mask(scores.shape[-2], scores.shape[-1])
        return causal if v_mask is None else ops.logical_and(ops.expand_dims(v_mask, -2),
                                                             causal)

    def compute_mask(self, inputs, mask=None):
        query_mask, _ = _split_mask(self.name, mask)
        return None if query_mask is None else ops.convert_to_tensor(query_mask)

    def compute_output_shape(self, input_shape):
        shapes = self._validate_inputs(input_shape)
        return (*shapes[0][:-1], shapes[1][-1])

    def get_config(self) -> dict:
        return {**super().get_config(), "use_scale": self.use_scale,
                "score_mode": self.score_mode, "dropout": self.dropout, "seed": self.seed}


def _split_mask(name: str, mask):
    if mask is None:
        return None, None
    if not isinstance(mask, (list, tuple)) or not 2 <= len(mask) <= 3:
        raise ValueError(f"{name}: the layer mask must be a list of length 2 or 3, "
                         f"[query_mask, value_mask]; received {_describe(mask)}")
    return mask[0], mask[1]


def _describe(value) -> str:
    if hasattr(value, "shape"):
        return f"a single tensor of shape {describe_shape(value.shape)}"
    if isinstance(value, (list, tuple)) and all(isinstance(d, (int, type(None)))
                                                for d in value):
        return f"a single tensor of shape {describe_shape(value)}"
    if isinstance(value, (list, tuple)):
        return f"a list of {len(value)}"
    return type(value).__name__
