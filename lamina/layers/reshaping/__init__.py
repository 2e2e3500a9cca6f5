"""Reshaping layers: Flatten, Reshape, Permute, RepeatVector, and zero-padding, cropping
and up-sampling for 1-D, 2-D and 3-D inputs."""
from .cropping1d import Cropping1D
from .cropping2d import Cropping2D
from .cropping3d import Cropping3D
from .flatten import Flatten
from .permute import Permute
from .repeat_vector import RepeatVector
from .reshape import Reshape
from .up_sampling1d import UpSampling1D
from .up_sampling2d import UpSampling2D
from .up_sampling3d import UpSampling3D
from .zero_padding1d import ZeroPadding1D
from .zero_padding2d import ZeroPadding2D
from .zero_padding3d import ZeroPadding3D

__all__ = ["Cropping1D", "Cropping2D", "Cropping3D", "Flatten", "Permute", "RepeatVector",
           "Reshape", "UpSampling1D", "UpSampling2D", "UpSampling3D", "ZeroPadding1D",
           "ZeroPadding2D", "ZeroPadding3D"]
