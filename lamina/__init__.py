"""Lamina: a Keras-style deep-learning framework on numpy (CPU) and CuPy (GPU).

``import lamina as keras`` gives Keras 3's names: ``keras.layers``, ``keras.Sequential``,
``keras.Model``, ``keras.Input``, ``keras.ops``, ``keras.initializers``, ...
"""
from . import backend, dtypes, errors
from .autograd import GradientTape, Tensor, Variable, no_grad
from . import ops
from . import graph, random, tree
from .ops import stop_gradient
from . import activations, config, constraints, initializers, regularizers, saving, utils
from . import callbacks, datasets, layers, losses, metrics, models, optimizers
from . import dtype_policies, mixed_precision
from .dtype_policies import DTypePolicy, FloatDTypePolicy
from .layers import Input, InputSpec, Layer
from .models import Functional, Model, Sequential
from .models.function import Function
from .graph import jit
from .backend.device import device
from .layers.name_scope import name_scope
from .ops.operation import Operation
from .initializers import Initializer
from .losses import Loss
from .metrics import Metric
from .optimizers import Optimizer
from .regularizers import Regularizer

from .core.symbolic import SymbolicTensor as KerasTensor   # Keras 3's name for it
from .core.stateless_scope import StatelessScope, SymbolicScope
from .autograd.remat import remat
from .layers.remat_scope import RematScope
from . import distillation
from . import export        # registers model.export(format="onnx")
from . import applications

from .settings import VERSION as __version__


def version() -> str:
    """Lamina's version (Keras 3's ``keras.version()``)."""
    return __version__

__all__ = ["backend", "config", "ops", "random", "tree", "activations", "constraints", "initializers",
           "regularizers", "saving", "utils", "layers", "models", "callbacks", "datasets", "losses", "metrics", "optimizers", "Tensor", "Variable",
           "GradientTape", "no_grad", "stop_gradient", "Input", "InputSpec", "Layer", "Model",
           "jit", "KerasTensor", "version",
           "Sequential", "Functional", "__version__", "Function", "device", "name_scope",
           "Operation", "Initializer", "Loss", "Metric", "Optimizer", "Regularizer",
           "dtype_policies", "mixed_precision", "DTypePolicy", "FloatDTypePolicy",
           "StatelessScope", "SymbolicScope", "remat", "RematScope", "distillation"]

from . import preprocessing      # issue 12: keras.preprocessing (dataset builders)
__all__ += ["preprocessing"]
from . import visualization      # issue 12: keras.visualization (drawing, galleries)
__all__ += ["visualization"]
from . import quantizers         # issue 15: keras.quantizers (int8 quantization)
from .quantizers import Quantizer
__all__ += ["quantizers", "Quantizer"]
from . import distribution   # issue 14: keras.distribution (data parallelism over MPI)
__all__ += ["distribution"]
