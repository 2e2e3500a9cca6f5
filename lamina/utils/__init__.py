"""Keras 3's ``keras.utils`` helpers: seeding everything at once and one-hot labels.

This package is an I/O edge (it turns host data such as numpy label arrays into what
Lamina uses), so it may import numpy.
"""
from .numerical import to_categorical
from .py_dataset import PyDataset
from .random_seed import set_random_seed
from .sequence import normalize, pad_sequences
from ..saving.object_registration import (CustomObjectScope, custom_object_scope,
                                          deserialize_keras_object, get_custom_objects,
                                          get_registered_name, get_registered_object,
                                          register_keras_serializable, serialize_keras_object)

from ..config import (disable_interactive_logging, enable_interactive_logging,
                      is_interactive_logging_enabled)
from .batch_format import pack_x_y_sample_weight, unpack_x_y_sample_weight
from .config import Config
from .download import get_file
from .plotting import model_to_dot, plot_model
from .progbar import Progbar
from .session import clear_session
from .symbolic_utils import get_source_inputs, is_keras_tensor, standardize_dtype

Sequence = PyDataset          # Keras 2's name

__all__ = ["PyDataset", "Sequence", "set_random_seed", "to_categorical", "pad_sequences",
           "normalize", "custom_object_scope", "deserialize_keras_object",
           "get_custom_objects", "register_keras_serializable", "serialize_keras_object",
           "CustomObjectScope", "get_registered_name", "get_registered_object",
           "disable_interactive_logging", "enable_interactive_logging",
           "is_interactive_logging_enabled", "pack_x_y_sample_weight",
           "unpack_x_y_sample_weight", "Config", "get_file", "Progbar", "clear_session",
           "get_source_inputs", "is_keras_tensor", "standardize_dtype"]


def __getattr__(name):
    # FeatureSpace is built from layers, which import this package's host-data helpers:
    # it is exported lazily so that importing lamina.utils never imports lamina.layers.
    if name == "FeatureSpace":
        from ..layers.preprocessing.feature_space import FeatureSpace
        return FeatureSpace
    raise AttributeError(f"module 'lamina.utils' has no attribute {name!r}")


__all__ += ["FeatureSpace"]
__all__ += ["plot_model", "model_to_dot"]
