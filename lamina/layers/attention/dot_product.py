"""Masks and the scaled dot-product attention shared by the attention layers."""
from __future__ import annotations

from ... import ops


def _positions(query_length, value_length):
    rows = ops.expand_dims(ops.arange(query_length), -1)
    cols = ops.expand_dims(ops.arange(value_length), 0)
    return rows, cols


def causal_mask(query_length, value_length):
    """``(1, Tq, Tv)`` booleans, True where query position ``i`` may see key ``j <= i``.

    With an unknown length (a symbolic call) only the shape of the result matters, so a
    ``(1, 1)`` mask that broadcasts stands in for it."""
    if query_length is None or value_length is None:
        return ops.ones((1, 1), dtype="bool")
    rows, cols = _positions(query_length, value_length)
    return ops.expand_dims(ops.greater_equal(rows, cols), 0)


def sliding_window_mask(query_length, value_length, window: int):
    """``(1, Tq, Tv)`` booleans, True where ``|i - j| < window`` (a symmetric band)."""
    if query_length is None or value_length is None:
        return ops.ones((1, 1), dtype="bool")
    rows, cols = _positions(query_length, value_length)
    return ops.expand_dims(ops.less(ops.abs(ops.subtract(rows, cols)), window), 0)


def combined_mask(query_mask, value_mask, key_mask, attention_mask, lengths,
                  use_causal_mask=False, sliding_window=None):
    """The AND of every given mask, broadcastable to ``(batch, Tq, Tv)`` (None if none):
    query mask ``(batch, Tq)``, value and key masks ``(batch, Tv)``, ``attention_mask``
    ``(batch, Tq, Tv)``, causal and sliding-window masks for ``lengths = (Tq, Tv)``."""
    def expand(mask, axis):
        return None if mask is None else ops.expand_dims(ops.cast(mask, "bool"), axis)
    mask = None if attention_mask is None else ops.cast(attention_mask, "bool")
    for extra in (expand(query_mask, -1), expand(value_mask, -2), expand(key_mask, -2),
                  causal_mask(*lengths) if use_causal_mask else None,
                  None if sliding_window is None else sliding_window_mask(*lengths,
                                                                          sliding_window)):
        if extra is not None:
            mask = extra if mask is None else ops.logical_and(mask, extra)
    return mask


def _insert(x, position: int, count: int):
    """``x`` with ``count`` size-1 axes inserted at ``position``."""
    for _ in range(count):
        x = ops.expand_dims(x, position)
    return x


def multi_head_attention(query, key, value, attention_axes, scale, mask=None,
                         zero_masked_rows=True, dropout=None):
    """Softmax(``scale * q.k``) weighted values, over ``attention_axes`` of
    ``(batch, *axes, heads, size)`` tensors, as Keras's MultiHeadAttention einsums compute it.

    Returns the output ``(batch, *axes, heads, value size)`` and the probabilities
    ``(batch, *other axes, heads, *query attention axes, *key attention axes)``. ``mask``
    (True = attend) broadcasts against the probabilities after Keras's expansion of its
    missing axes. ``zero_masked_rows`` multiplies the probabilities by the mask (Keras's
    masked Softmax layer); without it a fully masked row is uniform, as in Keras's fused
    ``dot_product_attention`` path. ``dropout`` (a function) applies to the probabilities
    used for the output only. Several attention axes use broadcasting (memory ``T*S*size``).
    """
    rank, n = len(query.shape), len(attention_axes)
    lead = [d for d in range(rank - 1) if d not in attention_axes]
    perm = lead + list(attention_axes) + [rank - 1]
    q, k, v = (ops.transpose(t, perm) for t in (query, key, value))
    q = ops.multiply(q, scale)
    if n == 1:
        scores = ops.matmul(q, ops.swapaxes(k, -1, -2))
    else:
        scores = ops.sum(ops.multiply(_insert(q, len(lead) + n, n), _insert(k, len(lead), n)),
                         axis=-1)
    if mask is not None:
        while len(mask.shape) < len(scores.shape):
            mask = ops.expand_dims(mask, -2 * n - 1)
        scores = ops.where(mask, scores, -65504.0 if scores.dtype == "float16" else -1e9)
    if n == 1:
        probs = ops.softmax(scores, axis=-1)
    else:       # exp(x - max) / sum: exact for fully masked rows, unlike x - logsumexp(x)
        axes = tuple(range(len(scores.shape) - n, len(scores.shape)))
        e = ops.exp(ops.subtract(scores, ops.stop_gradient(ops.max(scores, axis=axes,
                                                                   keepdims=True))))
        probs = ops.divide(e, ops.sum(e, axis=axes, keepdims=True))
    if mask is not None and zero_masked_rows:
        probs = ops.multiply(probs, ops.cast(mask, probs.dtype))
    weights = probs if dropout is None else dropout(probs)
    if n == 1:
        out = ops.matmul(weights, v)
    else:
        out = ops.sum(ops.multiply(ops.expand_dims(weights, -1), _insert(v, len(lead), n)),
                      axis=tuple(range(len(lead) + n, len(lead) + 2 * n)))
    return ops.transpose(out, [perm.index(d) for d in range(rank)]), probs
