"""Eager autograd: the engine that runs ops now and records them on tapes (GradientTape,
no_grad), and remat. Importing it registers the eager engine with ``core/mode``."""
from ..core import mode as _mode
from ..core.tensor import Tensor, TensorBase
from ..core.variable import Variable
from .eager import eager_apply
from .tape import GradientTape, no_grad

_mode.register(eager_apply=eager_apply, tape=GradientTape)

__all__ = ["Tensor", "TensorBase", "Variable", "GradientTape", "no_grad"]
