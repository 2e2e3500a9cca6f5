"""Lamina: a Keras-style deep-learning framework on numpy (CPU) and CuPy (GPU)."""
from . import backend, dtypes, errors
from .autograd import GradientTape, Tensor, Variable, no_grad
from . import ops
from . import graph, random
from .ops import stop_gradient

__version__ = "0.1.0"

__all__ = ["backend", "ops", "random", "Tensor", "Variable", "GradientTape", "no_grad",
           "stop_gradient", "__version__"]
