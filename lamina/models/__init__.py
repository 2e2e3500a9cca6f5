"""Models: ``Model``, ``Sequential``, the functional API, ``clone_model``."""
from ..saving import load_model as load, model_from_json as from_json, save_model as save
from ..registry import register_builtin, register_family
from .cloning import clone_model
from .functional import Functional
from .model import Model
from .sequential import Sequential


def load_model(filepath, custom_objects=None, compile=True, safe_mode=True):
    """A model saved with ``model.save`` (see ``lamina.saving.load_model``)."""
    return load(filepath, custom_objects=custom_objects, compile=compile, safe_mode=safe_mode)


def model_from_json(json_string, custom_objects=None):
    """A model (fresh weights) from ``model.to_json()``."""
    return from_json(json_string, custom_objects=custom_objects)


def save_model(model, filepath, overwrite=True, zipped=None, **kwargs):
    """Save ``model`` to a ``.keras`` (or legacy ``.h5``) file (see
    ``lamina.saving.save_model``)."""
    save(model, filepath, overwrite=overwrite, zipped=zipped, **kwargs)


def _keras_root() -> dict:
    return {"Sequential": Sequential, "Model": Model, "Functional": Functional}


for _cls in (Model, Functional, Sequential):
    register_builtin(_cls)
# Configs name a whole model by these Keras modules; other names fall through to the registry.
for _module in ("keras.models", "keras", "keras.src.models.functional"):
    register_family(_module, _keras_root, strict=False)

__all__ = ["Model", "Sequential", "Functional", "clone_model", "load_model",
           "model_from_json", "save_model"]
