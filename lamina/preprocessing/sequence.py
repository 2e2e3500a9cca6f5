"""Keras 3's ``keras.preprocessing.sequence``: ``pad_sequences``."""
from ..utils.sequence import pad_sequences

__all__ = ["pad_sequences"]
