"""Attention layers."""
from .additive_attention import AdditiveAttention
from .attention import Attention
from .group_query_attention import GroupQueryAttention
from .multi_head_attention import MultiHeadAttention

__all__ = ["AdditiveAttention", "Attention", "MultiHeadAttention", "GroupQueryAttention"]
