"""Normalization layers."""
from .batch_normalization import BatchNormalization
from .group_normalization import GroupNormalization
from .layer_normalization import LayerNormalization
from .rms_normalization import RMSNormalization
from .spectral_normalization import SpectralNormalization
from .unit_normalization import UnitNormalization

__all__ = ["BatchNormalization", "GroupNormalization", "LayerNormalization",
           "UnitNormalization",
           "RMSNormalization", "SpectralNormalization"]
