"""Models: ``Model``, ``Sequential``, the functional API, ``clone_model``."""
from ..saving.object_registration import register_builtin
from .cloning import clone_model
from .functional import Functional
from .model import Model
from .sequential import Sequential

for _cls in (Model, Functional, Sequential):
    register_builtin(_cls)

__all__ = ["Model", "Sequential", "Functional", "clone_model"]
