"""Pooling layers (Keras 3's names, with Keras's aliases)."""
from .average_pooling1d import AveragePooling1D
from .average_pooling2d import AveragePooling2D
from .global_average_pooling1d import GlobalAveragePooling1D
from .global_average_pooling2d import GlobalAveragePooling2D
from .global_max_pooling1d import GlobalMaxPooling1D
from .global_max_pooling2d import GlobalMaxPooling2D
from .max_pooling1d import MaxPooling1D
from .max_pooling2d import MaxPooling2D

# Keras 3 exports these aliases too.
AvgPool1D = AveragePooling1D
AvgPool2D = AveragePooling2D
MaxPool1D = MaxPooling1D
MaxPool2D = MaxPooling2D
GlobalAvgPool1D = GlobalAveragePooling1D
GlobalAvgPool2D = GlobalAveragePooling2D
GlobalMaxPool1D = GlobalMaxPooling1D
GlobalMaxPool2D = GlobalMaxPooling2D

__all__ = ["AveragePooling1D", "AveragePooling2D", "AvgPool1D", "AvgPool2D",
           "GlobalAveragePooling1D", "GlobalAveragePooling2D", "GlobalAvgPool1D",
           "GlobalAvgPool2D", "GlobalMaxPool1D", "GlobalMaxPool2D", "GlobalMaxPooling1D",
           "GlobalMaxPooling2D", "MaxPool1D", "MaxPool2D", "MaxPooling1D", "MaxPooling2D"]
