"""Keras's ``keras.applications.imagenet_utils``: the ImageNet ``preprocess_input`` (modes
"caffe", "tf", "torch") and ``decode_predictions`` (reading ``imagenet_class_index.json``
from the models cache folder) that the application modules share."""
from .preprocessing import decode_predictions, preprocess_input

__all__ = ["decode_predictions", "preprocess_input"]
