"""Keras's applications: image classification models with Keras's layer names, so that
Keras-written weight files load (``weights=`` a file path, or ``"imagenet"`` with Keras's
file placed in the models cache folder, ``~/.lamina/models``; Lamina never downloads).

Each family's module has its ``preprocess_input`` and ``decode_predictions``.
"""
from . import densenet, resnet, resnet50, resnet_v2, vgg16, vgg19
from . import efficientnet, imagenet_utils, mobilenet, mobilenet_v2, mobilenet_v3
from .densenet import DenseNet121, DenseNet169, DenseNet201
from .efficientnet import (EfficientNetB0, EfficientNetB1, EfficientNetB2, EfficientNetB3,
                           EfficientNetB4, EfficientNetB5, EfficientNetB6, EfficientNetB7)
from .mobilenet import MobileNet
from .mobilenet_v2 import MobileNetV2
from .mobilenet_v3 import MobileNetV3Large, MobileNetV3Small
from .resnet import ResNet50, ResNet101, ResNet152
from .resnet_v2 import ResNet50V2, ResNet101V2, ResNet152V2
from .vgg16 import VGG16
from .vgg19 import VGG19

__all__ = ["VGG16", "VGG19", "ResNet50", "ResNet101", "ResNet152", "ResNet50V2",
           "ResNet101V2", "ResNet152V2", "DenseNet121", "DenseNet169", "DenseNet201",
           "MobileNet", "MobileNetV2", "MobileNetV3Small", "MobileNetV3Large",
           "EfficientNetB0", "EfficientNetB1", "EfficientNetB2", "EfficientNetB3",
           "EfficientNetB4", "EfficientNetB5", "EfficientNetB6", "EfficientNetB7",
           "vgg16", "vgg19", "resnet", "resnet50", "resnet_v2", "densenet", "mobilenet",
           "mobilenet_v2", "mobilenet_v3", "efficientnet", "imagenet_utils"]
