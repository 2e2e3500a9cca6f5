"""Lamina's ops, under Keras 3's ``keras.ops`` names where those exist.

Each primitive is an :class:`~lamina.ops.op.Op` (output_spec, forward, gradient) in the
family module it belongs to; everything else here is a composition of primitives.
Every family module lists its public functions in ``__all__``.
"""
import sys as _sys

from . import activations as _activations, array as _array, compare as _compare
from . import conv as _conv, indexing as _indexing, linalg as _linalg, math as _math
from . import pooling as _pooling, random as _random, reduction as _reduction
from . import replicate as _replicate, slicing as _slicing, softmax as _softmax
from . import fft as _fft, signal as _signal
from . import attention as _attention, patches as _patches, ctc as _ctc
from .activations import *  # noqa: F401,F403
from .array import *  # noqa: F401,F403
from .compare import *  # noqa: F401,F403
from .conv import *  # noqa: F401,F403
from .custom import custom_op
from .core import (arange, cast, convert_to_numpy, convert_to_tensor, full, full_like, ones,
                   ones_like, stop_gradient, zeros, zeros_like)
from .indexing import *  # noqa: F401,F403
from .linalg import *  # noqa: F401,F403
from .math import *  # noqa: F401,F403
from .op import OP_REGISTRY, Op, Spec, register_op
from .pooling import *  # noqa: F401,F403
from .random import *  # noqa: F401,F403
from .reduction import *  # noqa: F401,F403
from .replicate import *  # noqa: F401,F403
from .slicing import *  # noqa: F401,F403
from .softmax import *  # noqa: F401,F403
from .fft import *  # noqa: F401,F403
from .signal import *  # noqa: F401,F403
from .attention import *  # noqa: F401,F403
from .patches import *  # noqa: F401,F403
from .ctc import *  # noqa: F401,F403
from . import image  # noqa: F401,E402  (keras.ops.image, a namespace of its own)

# Utilities (not ops): converting data, making constants, the registry.
UTILITIES = ["convert_to_tensor", "convert_to_numpy", "zeros", "ones", "full", "arange",
             "OP_REGISTRY", "Op", "Spec", "register_op", "custom_op"]
CREATION = ["zeros_like", "ones_like", "full_like", "cast", "stop_gradient"]

# Family modules, kept under private names: the star imports above rebind public names such
# as ``conv`` and ``softmax`` to the functions of the same name (Keras's ``keras.ops.conv``).
_FAMILIES = (_activations, _array, _compare, _conv, _indexing, _linalg, _math, _pooling,
             _random, _reduction, _replicate, _slicing, _softmax, _fft, _signal,
             _attention, _patches, _ctc)

__all__ = sorted(set(UTILITIES + CREATION).union(*(family.__all__ for family in _FAMILIES)))

# Hooks into the layers that ops itself imports (binding them here breaks the cycles
# without function-level imports): an op on a spec-only tensor records a node
# (lamina/core; the eager side is bound by lamina/autograd), and the operators of tensors
# (x + y, x @ w, x[i], x.T, ...) call this module.
from . import op as _op_module  # noqa: E402
from ..autograd import tensor as _tensor_module  # noqa: E402
from ..core.symbolic import SymbolicTensor as _SymbolicTensor  # noqa: E402
from ..core.symbolic import symbolic_apply as _symbolic_apply  # noqa: E402

_op_module._symbolic_apply = _symbolic_apply
_op_module._symbolic_type = _SymbolicTensor
_tensor_module._ops = _sys.modules[__name__]
