"""Pooling layers (Keras 3's names, with Keras's aliases)."""
from .adaptive_average_pooling import (AdaptiveAveragePooling1D, AdaptiveAveragePooling2D,
                                       AdaptiveAveragePooling3D)
from .adaptive_max_pooling import (AdaptiveMaxPooling1D, AdaptiveMaxPooling2D,
                                   AdaptiveMaxPooling3D)
from .average_pooling1d import AveragePooling1D
from .average_pooling2d import AveragePooling2D
from .average_pooling3d import AveragePooling3D
from .global_average_pooling1d import GlobalAveragePooling1D
from .global_average_pooling2d import GlobalAveragePooling2D
from .global_average_pooling3d import GlobalAveragePooling3D
from .global_max_pooling1d import GlobalMaxPooling1D
from .global_max_pooling2d import GlobalMaxPooling2D
from .global_max_pooling3d import GlobalMaxPooling3D
from .max_pooling1d import MaxPooling1D
from .max_pooling2d import MaxPooling2D
from .max_pooling3d import MaxPooling3D

# Keras 3 exports these aliases too.
AvgPool1D = AveragePooling1D
AvgPool2D = AveragePooling2D
AvgPool3D = AveragePooling3D
MaxPool1D = MaxPooling1D
MaxPool2D = MaxPooling2D
MaxPool3D = MaxPooling3D
GlobalAvgPool1D = GlobalAveragePooling1D
GlobalAvgPool2D = GlobalAveragePooling2D
GlobalAvgPool3D = GlobalAveragePooling3D
GlobalMaxPool1D = GlobalMaxPooling1D
GlobalMaxPool2D = GlobalMaxPooling2D
GlobalMaxPool3D = GlobalMaxPooling3D

__all__ = ["AveragePooling1D", "AveragePooling2D", "AveragePooling3D", "AvgPool1D",
           "AvgPool2D", "AvgPool3D", "GlobalAveragePooling1D", "GlobalAveragePooling2D",
           "GlobalAveragePooling3D", "GlobalAvgPool1D", "GlobalAvgPool2D", "GlobalAvgPool3D",
           "GlobalMaxPool1D", "GlobalMaxPool2D", "GlobalMaxPool3D", "GlobalMaxPooling1D",
           "GlobalMaxPooling2D", "GlobalMaxPooling3D", "MaxPool1D", "MaxPool2D", "MaxPool3D",
           "MaxPooling1D", "MaxPooling2D", "MaxPooling3D",
           "AdaptiveAveragePooling1D", "AdaptiveAveragePooling2D", "AdaptiveAveragePooling3D",
           "AdaptiveMaxPooling1D", "AdaptiveMaxPooling2D", "AdaptiveMaxPooling3D"]
