"""Where pretrained weights live and how an application loads them.

Lamina never downloads weights: ``weights="imagenet"`` reads Keras's own file (e.g.
``vgg16_weights_tf_dim_ordering_tf_kernels.h5``) from the models cache folder,
``$LAMINA_HOME/models`` or ``~/.lamina/models`` (Keras's ``~/.keras/models``), and a missing
file is an error that says which file to download from where and where to put it.

A legacy Keras ``.h5`` file (the format of Keras's ImageNet files) is matched by layer
name, strictly: every layer of the model that has weights must be in the file, with the
same shapes, or nothing is loaded. Any other file (``.weights.h5``, ``.keras``) goes to
``model.load_weights``, Keras 3's layout.
"""
from __future__ import annotations

import os

from ..errors import LaminaError
from ..saving.errors import WeightMismatchError
from ..saving.legacy_h5 import _open, _weights_group
from ..saving.legacy_weights import plan_model

__all__ = ["WeightsUnavailableError", "models_dir", "check_weights_argument",
           "load_application_weights", "CLASS_INDEX_FILE", "CLASS_INDEX_URL"]

KERAS_APPLICATIONS_URL = "https://storage.googleapis.com/tensorflow/keras-applications/"
CLASS_INDEX_FILE = "imagenet_class_index.json"
CLASS_INDEX_URL = ("https://storage.googleapis.com/download.tensorflow.org/data/"
                   + CLASS_INDEX_FILE)


class WeightsUnavailableError(LaminaError, FileNotFoundError):
    """A pretrained weights file (or the class index) is not on disk."""


def models_dir() -> str:
    """``$LAMINA_HOME/models``, or ``~/.lamina/models`` (Keras's ``~/.keras/models``)."""
    home = os.environ.get("LAMINA_HOME") or os.path.join(os.path.expanduser("~"), ".lamina")
    return os.path.join(os.path.expanduser(home), "models")


def check_weights_argument(model_name: str, weights, include_top: bool, classes) -> None:
    """Keras's checks of ``weights`` and ``classes``, before anything is built."""
    if not (weights is None or weights == "imagenet"
            or (isinstance(weights, (str, os.PathLike)) and os.path.exists(weights))):
        raise ValueError(
            f"{model_name}: argument 'weights' must be None (random initialization), "
            f"'imagenet' (pre-training on ImageNet) or the path to an existing weights "
            f"file; received weights={weights!r}")
    if weights == "imagenet" and include_top and classes != 1000:
        raise ValueError(f"{model_name}: with weights='imagenet' and include_top=True, "
                         f"argument 'classes' must be 1000; received classes={classes!r}")


def imagenet_file(model_name: str, file_name: str, url_folder: str) -> str:
    """The path of Keras's ImageNet weights file ``file_name`` in the models cache folder,
    or an error saying where to download it from and where to put it."""
    path = os.path.join(models_dir(), file_name)
    if os.path.isfile(path):
        return path
    raise WeightsUnavailableError(
        f"{model_name}: weights='imagenet' needs Keras's weights file {file_name!r}, which "
        f"is not at {path!r}. Lamina does not download weights: fetch "
        f"{KERAS_APPLICATIONS_URL}{url_folder}{file_name} yourself and put it at that path "
        f"(set $LAMINA_HOME to move the cache folder), or pass its location as "
        f"weights='/path/to/{file_name}'")


def load_application_weights(model, weights) -> None:
    """Load ``weights`` (a file path) into the application ``model``."""
    path = os.fspath(weights)
    if path.endswith((".h5", ".hdf5")) and not path.endswith(".weights.h5"):
        _load_legacy_by_name(model, path)
    else:
        model.load_weights(path)


def _load_legacy_by_name(model, path: str) -> None:
    with _open(path, "load_weights") as f:
        group = _weights_group(f, path, "load_weights")
        stored = set(group.keys())
        missing = [layer.name for layer in model.layers
                   if layer.weights and layer.name not in stored]
        if missing:
            raise WeightMismatchError(
                f"cannot load '{path}' into {model.name}: the file has no weights for the "
                f"layers {missing[:5]}{' ...' if len(missing) > 5 else ''} "
                f"({len(missing)} of the model's layers with weights); expected a Keras "
                f"file of the same architecture (include_top must match the file: '_notop' "
                f"files hold no classifier)")
        plan, _ = plan_model(model, group, path, by_name=True)
    for variable, array in plan:
        variable.assign(array)
