"""Regularization layers: dropout variants, noise and activity penalties."""
from .activity_regularization import ActivityRegularization
from .alpha_dropout import AlphaDropout
from .dropout import Dropout
from .gaussian_dropout import GaussianDropout
from .gaussian_noise import GaussianNoise
from .spatial_dropout import SpatialDropout1D, SpatialDropout2D, SpatialDropout3D

__all__ = ["ActivityRegularization", "AlphaDropout", "Dropout", "GaussianDropout",
           "GaussianNoise", "SpatialDropout1D", "SpatialDropout2D", "SpatialDropout3D"]
