"""Preprocessing layers."""
from .normalization import Normalization
from .rescaling import Rescaling

__all__ = ["Normalization", "Rescaling"]
