"""Keras 3's ``keras.utils`` helpers: seeding everything at once, one-hot labels, image
files, datasets read from folders (``SampleDataset``), bounding boxes and history plots.

This package is an I/O edge (it turns host data such as numpy label arrays into what
Lamina uses), so it may import numpy.
"""
from .numerical import to_categorical
from ..data_adapters.py_dataset import PyDataset
from .random_seed import set_random_seed
from .sequence import normalize, pad_sequences
from ..registry import (CustomObjectScope, custom_object_scope, deserialize_keras_object,
                        get_custom_objects, get_registered_name, get_registered_object,
                        register_keras_serializable, serialize_keras_object)

from ..config import (disable_interactive_logging, enable_interactive_logging,
                      is_interactive_logging_enabled)
from .batch_format import pack_x_y_sample_weight, unpack_x_y_sample_weight
from .config import Config
from .download import get_file
from .plotting import model_to_dot, plot_model
from ..callbacks.progbar import Progbar
from .session import clear_session
from .symbolic_utils import get_source_inputs, is_keras_tensor, standardize_dtype

from .image_utils import array_to_img, img_to_array, load_img, save_img
from .image_dataset import image_dataset_from_directory
from .text_dataset import text_dataset_from_directory
from .audio_dataset import audio_dataset_from_directory
from .timeseries_dataset import timeseries_dataset_from_array
from .split_dataset import split_dataset
from .sample_dataset import SampleDataset
from .history_plot import plot_history
from . import bounding_boxes
from ..layers.preprocessing.feature_space import FeatureSpace

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
        return FeatureSpace
    raise AttributeError(f"module 'lamina.utils' has no attribute {name!r}")


__all__ += ["FeatureSpace"]
__all__ += ["array_to_img", "img_to_array", "load_img", "save_img",
            "image_dataset_from_directory", "text_dataset_from_directory",
            "audio_dataset_from_directory", "timeseries_dataset_from_array", "split_dataset",
            "SampleDataset", "plot_history", "bounding_boxes"]
__all__ += ["plot_model", "model_to_dot"]
