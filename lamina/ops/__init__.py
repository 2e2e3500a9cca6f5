"""Lamina's ops, under Keras 3's ``keras.ops`` names where those exist.

Each primitive is an :class:`~lamina.core.op.Op` (output_spec, forward, gradient) in the
family module it belongs to; everything else here is a composition of primitives.
Every family module lists its public functions in ``__all__``.
"""
import sys as _sys

from . import activations as _activations, compare as _compare
from . import adaptive_pooling as _adaptive_pooling
from . import distances as _distances
from . import closeness as _closeness
from . import conv as _conv, indexing as _indexing, linalg as _linalg, math as _math
from . import pooling as _pooling, random as _random, reduction as _reduction
from . import fft as _fft, signal as _signal
from . import attention as _attention, patches as _patches, ctc as _ctc
from . import associative as _associative, control_flow as _control_flow, loops as _loops
from . import gradient_override as _gradient_override, gufunc as _gufunc
from . import bitwise as _bitwise, exponents as _exponents, float_parts as _float_parts
from . import complex_numbers as _complex_numbers
from . import trig as _trig
from . import rounding as _rounding, where_clip as _where_clip
from . import counting as _counting, cumulative as _cumulative, nan_reductions as _nan_reductions
from . import quantiles as _quantiles, statistics as _statistics
from . import loss_functions as _loss_functions, normalization as _normalization
from . import piecewise as _piecewise
from . import replicate as _replicate, reshaping as _reshaping, slicing as _slicing
from . import softmax as _softmax
from . import introspection as _introspection
from . import encoding as _encoding
from . import conversion as _conversion
from . import windows as _windows
from . import selection as _selection
from . import segments as _segments
from . import products as _products
from . import einsum as _einsum
from . import diagonals as _diagonals
from . import creation as _creation
from . import rearranging as _rearranging
from . import joining as _joining
from . import sorting as _sorting
from . import quantized as _quantized
from .activations import *  # noqa: F401,F403
from .adaptive_pooling import *  # noqa: F401,F403
from .distances import *  # noqa: F401,F403
from .compare import *  # noqa: F401,F403
from .closeness import *  # noqa: F401,F403
from .conv import *  # noqa: F401,F403
from .custom import custom_op
from .core import (arange, cast, convert_to_numpy, convert_to_tensor, full, full_like, ones,
                   ones_like, stop_gradient, zeros, zeros_like)
from .indexing import *  # noqa: F401,F403
from .introspection import *  # noqa: F401,F403
from .encoding import *  # noqa: F401,F403
from .conversion import *  # noqa: F401,F403
from .windows import *  # noqa: F401,F403
from .selection import *  # noqa: F401,F403
from .segments import *  # noqa: F401,F403
from .products import *  # noqa: F401,F403
from .einsum import *  # noqa: F401,F403
from .diagonals import *  # noqa: F401,F403
from .creation import *  # noqa: F401,F403
from .rearranging import *  # noqa: F401,F403
from .joining import *  # noqa: F401,F403
from .sorting import *  # noqa: F401,F403
from .linalg import *  # noqa: F401,F403
from .math import *  # noqa: F401,F403
from .where_clip import *  # noqa: F401,F403
from ..core.op import OP_REGISTRY, Op, Spec, register_op
from .pooling import *  # noqa: F401,F403
from .random import *  # noqa: F401,F403
from .reduction import *  # noqa: F401,F403
from .replicate import *  # noqa: F401,F403
from .reshaping import *  # noqa: F401,F403
from .slicing import *  # noqa: F401,F403
from .softmax import *  # noqa: F401,F403
from .fft import *  # noqa: F401,F403
from .signal import *  # noqa: F401,F403
from .attention import *  # noqa: F401,F403
from .patches import *  # noqa: F401,F403
from .ctc import *  # noqa: F401,F403
from .control_flow import *  # noqa: F401,F403
from .loops import *  # noqa: F401,F403
from .associative import *  # noqa: F401,F403
from .gradient_override import *  # noqa: F401,F403
from .gufunc import *  # noqa: F401,F403
from .bitwise import *  # noqa: F401,F403
from .exponents import *  # noqa: F401,F403
from .float_parts import *  # noqa: F401,F403
from .complex_numbers import *  # noqa: F401,F403
from .trig import *  # noqa: F401,F403
from .rounding import *  # noqa: F401,F403
from .counting import *  # noqa: F401,F403
from .cumulative import *  # noqa: F401,F403
from .nan_reductions import *  # noqa: F401,F403
from .quantiles import *  # noqa: F401,F403
from .statistics import *  # noqa: F401,F403
from .loss_functions import *  # noqa: F401,F403
from .normalization import *  # noqa: F401,F403
from .piecewise import *  # noqa: F401,F403
from .quantized import *  # noqa: F401,F403
from . import image  # noqa: F401,E402  (keras.ops.image, a namespace of its own)
from . import nn, numpy  # noqa: F401,E402  (keras.ops.nn and keras.ops.numpy namespaces)

# Utilities (not ops): converting data, making constants, the registry.
UTILITIES = ["convert_to_tensor", "convert_to_numpy", "zeros", "ones", "full", "arange",
             "OP_REGISTRY", "Op", "Spec", "register_op", "custom_op"]
CREATION = ["zeros_like", "ones_like", "full_like", "cast", "stop_gradient"]

# Family modules, kept under private names: the star imports above rebind public names such
# as ``conv`` and ``softmax`` to the functions of the same name (Keras's ``keras.ops.conv``).
_FAMILIES = (_activations, _compare, _conv, _indexing, _linalg, _math, _pooling,
             _random, _reduction, _replicate, _reshaping, _slicing, _softmax)
_FAMILIES += (_introspection, _sorting, _joining, _rearranging, _creation, _diagonals,
              _einsum, _products, _segments, _selection, _windows, _conversion, _encoding)
_FAMILIES += (_fft, _signal, _attention, _patches, _ctc)
_FAMILIES += (_control_flow, _loops, _associative, _gradient_override, _gufunc)
_FAMILIES += (_bitwise, _exponents, _float_parts, _trig, _counting, _cumulative,
              _nan_reductions, _quantiles, _statistics, _loss_functions, _normalization,
              _piecewise)
_FAMILIES += (_adaptive_pooling, _distances)
_FAMILIES += (_closeness,)
_FAMILIES += (_quantized,)
_FAMILIES += (_complex_numbers,)
_FAMILIES += (_rounding, _where_clip)
from . import recompute as _recompute      # lamina.remat's barrier op (no public function)
_FAMILIES += (_recompute,)
from . import random_rows as _random_rows  # draws by global row (lamina.distribution)
_FAMILIES += (_random_rows,)

__all__ = sorted(set(UTILITIES + CREATION).union(*(family.__all__ for family in _FAMILIES)))

# Code below ops (the operators of tensors, x + y, x @ w, x[i], x.T; Variable's reads and
# writes) runs ops through this module, which registers itself with core/mode.
from ..core import mode as _mode  # noqa: E402
from .core import read_value as _read_value, to_backend_tensor as _to_backend_tensor  # noqa

_mode.register(ops=_sys.modules[__name__])
