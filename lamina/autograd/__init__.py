"""Eager autograd: Tensor, Variable, GradientTape, no_grad."""
from ..ops import op as _op
from .eager import eager_apply
from .tape import GradientTape, no_grad
from .tensor import Tensor, TensorBase
from .variable import Variable

_op._eager_apply = eager_apply

__all__ = ["Tensor", "TensorBase", "Variable", "GradientTape", "no_grad"]
