"""Serialization and model files.

- The registry of names (``register_keras_serializable``, custom object scopes) and
  Keras-style ``serialize_keras_object`` / ``deserialize_keras_object``, re-exported from
  :mod:`lamina.registry`, where they live.
- Keras 3's files: ``save_model`` / ``load_model`` (``.keras``), ``save_weights`` /
  ``load_weights`` (``.weights.h5``), written atomically and read all-or-nothing.
- The errors a user may catch: a refused file (``CorruptFileError``, ``H5FileError`` and
  its ``UnsafeH5FileError``/``H5ChecksumError``, ``UnsafeArchiveError``,
  ``WeightBudgetError``) and a failed write (``FileWriteError``, also an ``OSError``).
"""
from ..core.weight_budget import WeightBudgetError
from ..h5_guard import H5ChecksumError, H5FileError, UnsafeH5FileError
from ..registry import (CustomObjectScope, UnknownObjectError, custom_object_scope,
                        deserialize_keras_object, get_custom_objects, get_registered_name,
                        get_registered_object, register_keras_serializable,
                        serialize_keras_object)
from .archive_guard import UnsafeArchiveError
from .describe import describe
from .errors import (CorruptFileError, FileFormatError, FileWriteError, LegacyFormatError,
                     SavedFileExistsError, SavedFileNotFoundError, SavingError,
                     WeightMismatchError)
from .file_editor import KerasFileEditor
from .model_methods import SavingMixin
from .saving_api import load_model, load_weights, model_from_json, save_model, save_weights

__all__ = ["CustomObjectScope", "UnknownObjectError", "custom_object_scope",
           "deserialize_keras_object", "get_custom_objects", "get_registered_name",
           "get_registered_object", "register_keras_serializable", "serialize_keras_object",
           "save_model", "load_model", "save_weights", "load_weights", "model_from_json",
           "SavingMixin", "SavingError", "FileFormatError", "LegacyFormatError",
           "CorruptFileError", "WeightMismatchError", "SavedFileNotFoundError",
           "SavedFileExistsError", "describe", "FileWriteError", "H5FileError",
           "H5ChecksumError", "UnsafeH5FileError", "UnsafeArchiveError", "WeightBudgetError",
           "KerasFileEditor"]
