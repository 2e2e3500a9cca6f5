"""Models: ``Model``, ``Sequential``, the functional API, ``clone_model``."""
from ..saving import load_model as load, model_from_json as from_json, save_model as save
from ..registry import register_builtin, register_family
from .cloning import clone_model
from .functional import Functional
from .model import Model
from .sequential import Sequential


def load_model(filepath, custom_objects=None, compile=True, safe_mode=True):
    """Load a model saved with ``model.save``.

    The same as ``lamina.saving.load_model``.

    Args:
        filepath: Path of the ``.keras`` file (or folder, or legacy ``.h5`` file).
        custom_objects: A dict of name -> class or function for the user's own classes
            and functions the model uses.
        compile: If ``True`` (default), compile the model as it was saved.
        safe_mode: If ``True`` (default), refuse ``Lambda`` layers made from Python
            lambdas.

    Returns:
        The model.

    Example:

    >>> model.save("model.keras")
    >>> restored = lamina.models.load_model("model.keras")
    """
    return load(filepath, custom_objects=custom_objects, compile=compile, safe_mode=safe_mode)


def model_from_json(json_string, custom_objects=None):
    """Make a model, with fresh weights, from the JSON text of ``model.to_json()``.

    Args:
        json_string: The JSON text.
        custom_objects: A dict of name -> class or function for the user's own classes
            and functions the model uses.

    Returns:
        The model, uncompiled.

    Example:

    >>> clone = lamina.models.model_from_json(model.to_json())
    """
    return from_json(json_string, custom_objects=custom_objects)


def save_model(model, filepath, overwrite=True, zipped=None, **kwargs):
    """Save a model to a ``.keras`` (or legacy ``.h5``) file.

    The same as ``lamina.saving.save_model`` and ``model.save``.

    Args:
        model: The ``Model`` to save.
        filepath: The path; its extension chooses the format.
        overwrite: If ``True`` (default), replace an existing file.
        zipped: ``True`` (default, also for ``None``) for a zip file, ``False`` for a
            folder.
        **kwargs: ``include_optimizer`` (default ``True``) and the deprecated
            ``save_format``.

    Example:

    >>> lamina.models.save_model(model, "model.keras")
    """
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
