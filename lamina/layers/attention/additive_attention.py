"""``AdditiveAttention``: Bahdanau-style attention, ``sum(scale * tanh(q_i + k_j))``."""
from __future__ import annotations

from ... import ops
from .attention import Attention


class AdditiveAttention(Attention):
    """Additive attention over ``[query, value(, key)]`` (Keras 3's ``AdditiveAttention``).

    Scores are ``sum(scale * tanh(query_i + key_j), axis=-1)``; with ``use_scale`` the
    weight ``scale`` has shape ``(dim,)`` (glorot-uniform initialized), else it is 1.
    Masks, causal masking and dropout work as in :class:`Attention`.

    Args:
        use_scale: Whether to learn the weight ``scale`` (shape ``(dim,)``); else it is 1.
        dropout: Fraction of the attention weights dropped in training, in [0, 1).
    """

    def __init__(self, use_scale=True, dropout=0.0, **kwargs):
        kwargs.pop("score_mode", None)
        super().__init__(use_scale=use_scale, dropout=dropout, **kwargs)

    def _build_weights(self, dim) -> None:
        self.scale = None
        if self.use_scale:
            self.scale = self.add_weight(shape=(dim,), name="scale",
                                         initializer="glorot_uniform")

    def _calculate_scores(self, query, key):
        pairs = ops.tanh(ops.add(ops.expand_dims(query, -2), ops.expand_dims(key, -3)))
        if self.scale is not None:
            pairs = ops.multiply(self.scale, pairs)
        return ops.sum(pairs, axis=-1)

    def get_config(self) -> dict:
        config = super().get_config()
        del config["score_mode"]
        return config
