"""Attention layers."""
from .additive_attention import AdditiveAttention
from .attention import Attention
from .multi_head_attention import MultiHeadAttention

__all__ = ["AdditiveAttention", "Attention", "MultiHeadAttention"]
