"""Keras's `keras.applications`: ready-made image classification models."""
from . import mobilenet, mobilenet_v2
from .mobilenet import MobileNet
from .mobilenet_v2 import MobileNetV2
from . import efficientnet
from .efficientnet import (EfficientNetB0, EfficientNetB1, EfficientNetB2, EfficientNetB3,
                           EfficientNetB4, EfficientNetB5, EfficientNetB6, EfficientNetB7)
from . import mobilenet_v3
from .mobilenet_v3 import MobileNetV3Large, MobileNetV3Small
