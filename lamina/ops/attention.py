"""``dot_product_attention`` (Keras 3's ``keras.ops.dot_product_attention``), composed from
matmul, masking and softmax, so the gradient comes free.

Shapes follow Keras: query (B, T, N, H), key and value (B, S, K, H); the result is
(B, T, N, H). With fewer key/value heads than query heads (grouped-query attention, K
dividing N), query head n reads key/value head n // (N / K), as in JAX. Masked positions get a large negative logit (-0.7 * the dtype's largest
finite value, Keras's choice), so a fully masked row attends uniformly as in Keras.
"""
from __future__ import annotations

import math

from ..errors import ShapeError, describe_shape
from .reshaping import transpose
from .replicate import repeat
from .compare import logical_and
from .core import as_tensors, cast, convert_to_tensor
from .linalg import matmul
from .math import add, multiply
from .where_clip import where
from .softmax import softmax
from .refused import refused

__all__ = ["dot_product_attention"]

_LARGEST = {"float16": 65500.0}


def _large_negative(dtype: str) -> float:
    return -0.7 * _LARGEST.get(dtype, 3.38953e38)


def dot_product_attention(query, key, value, bias=None, mask=None, scale=None,
                          is_causal=False, flash_attention=None, attn_logits_soft_cap=None):
    """softmax(scale * q k^T + bias, masked) v over the key axis, per head.

    Args:
        query: Queries, shape (batch, target_length, num_heads, head_dim).
        key: Keys, shape (batch, source_length, num_kv_heads, head_dim).
        value: Values, shape (batch, source_length, num_kv_heads, head_dim).
        bias: Optional tensor added to the logits; broadcasts to (batch, num_heads,
            target_length, source_length).
        mask: Optional bool tensor of the logits' shape (or broadcasting to it): False
            positions are left out.
        scale: The factor applied to the logits; None means ``1 / sqrt(head_dim)``.
        is_causal: Whether each query may only attend to keys at or before its position.
            Defaults to False.
        flash_attention: Must be None or False: Lamina has no flash attention kernel.
        attn_logits_soft_cap: Must be None (Keras supports it only on TPU).

    Returns:
        The attended values, of ``query``'s shape.

    Raises:
        ValueError: If ``flash_attention`` or ``attn_logits_soft_cap`` is set.
    """
    op = "dot_product_attention"
    if attn_logits_soft_cap is not None:
        raise ValueError(f"{op}: attn_logits_soft_cap is only supported by Keras for JAX "
                         f"on TPU; set attn_logits_soft_cap=None")
    if flash_attention:
        raise ValueError(f"{op}: flash attention is not supported by Lamina's backends "
                         f"(Keras raises the same on its numpy backend); use "
                         f"flash_attention=None or False")
    query, key, value = as_tensors(op, query, key, value)
    for name, t in (("query", query), ("key", key), ("value", value)):
        if t.ndim != 4:
            raise ShapeError(f"{op}: argument '{name}' must have rank 4 (batch, sequence, "
                             f"heads, head_dim); received shapes {describe_shape(query.shape)}"
                             f", {describe_shape(key.shape)}, {describe_shape(value.shape)}")
    if query.shape[-1] is not None and key.shape[-1] is not None and \
            query.shape[-1] != key.shape[-1]:
        raise ShapeError(f"{op}: 'query' and 'key' must have the same head_dim; received "
                         f"shapes {describe_shape(query.shape)} and {describe_shape(key.shape)}")
    n, kv = query.shape[2], key.shape[2]
    if n is not None and kv is not None and n != kv:
        if n % kv:                # Keras's symbolic rule: query's shape; refused if run
            return refused(ShapeError, f"{op}: the number of query heads ({n}) must be a "
                           f"multiple of the number of key/value heads ({kv}); received "
                           f"shapes {describe_shape(query.shape)} and "
                           f"{describe_shape(key.shape)}", (query, key, value, bias, mask),
                           (query.shape, query.dtype))
        key, value = repeat(key, n // kv, axis=2), repeat(value, n // kv, axis=2)
    head_dim = key.shape[-1]
    scale = 1.0 / math.sqrt(head_dim) if scale is None else float(scale)
    q = transpose(query, (0, 2, 1, 3))                         # B N T H
    k = transpose(key, (0, 2, 3, 1))                           # B N H S
    v = transpose(value, (0, 2, 1, 3))                         # B N S H
    logits = multiply(matmul(q, k), scale)                     # B N T S
    if bias is not None:
        logits = add(logits, convert_to_tensor(bias, dtype=logits.dtype))
    keep = None
    if mask is not None:
        keep = cast(convert_to_tensor(mask), "bool")
    if is_causal:
        t, s = query.shape[1], key.shape[1]
        causal = convert_to_tensor([[j <= i for j in range(s)] for i in range(t)], dtype="bool")
        keep = causal if keep is None else logical_and(keep, causal)
    if keep is not None:
        logits = where(keep, logits, convert_to_tensor(_large_negative(logits.dtype),
                                                       dtype=logits.dtype))
    probs = softmax(logits, axis=-1)
    return transpose(matmul(probs, v), (0, 2, 1, 3))
