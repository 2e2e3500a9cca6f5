"""Weight penalties added to the loss (Keras 3's ``keras.regularizers``).

A regularizer maps a weight to a scalar tensor built from ops, so its gradient flows to
the weight like any other loss term. Layers call it on each regularized weight (and on
their outputs, for ``activity_regularizer``) and collect the results in ``layer.losses``.
"""
from __future__ import annotations

import math
import numbers
import struct

from .. import ops
from ..core.tensor import Tensor
from ..settings import epsilon
from ..errors import ShapeError, describe_shape
from ..registry import register_builtin


def as_float32(value: float) -> float:
    """``value`` rounded to float32, as Keras's L1 and OrthogonalRegularizer write it (they
    hold the factor as a float32 tensor: ``L1(0.001)`` writes 0.0010000000474974513)."""
    return struct.unpack("f", struct.pack("f", value))[0]


def check_penalty(name: str, arg: str, value, default: float) -> float:
    """A non-negative, finite number as a float (None means ``default``, as in Keras)."""
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name}: argument '{arg}' must be a non-negative number; received "
                        f"{value!r} of type {type(value).__name__}")
    value = float(value)
    if math.isnan(value) or math.isinf(value) or value < 0:
        raise ValueError(f"{name}: argument '{arg}' must be a non-negative, finite number; "
                         f"received {value}")
    return value


def _as_tensor(x) -> Tensor:
    return ops.convert_to_tensor(x)


@register_builtin
class Regularizer:
    """Base class: ``__call__(weight)`` returns the penalty, a scalar tensor.

    Subclasses implement ``__call__`` and ``get_config`` (their constructor arguments).
    """

    _keras_module = "keras.regularizers"

    def __call__(self, x) -> Tensor:
        return ops.zeros((), dtype=_as_tensor(x).dtype)

    def get_config(self) -> dict:
        raise NotImplementedError(f"{type(self).__name__} does not implement get_config()")

    @classmethod
    def from_config(cls, config: dict) -> "Regularizer":
        return cls(**config)

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_config().items())
        return f"{type(self).__name__}({args})"


@register_builtin
class L1L2(Regularizer):
    """``l1 * sum(|x|) + l2 * sum(x**2)``; both default to 0.

    Args:
        l1: the L1 factor (a float >= 0).
        l2: the L2 factor (a float >= 0).

    Example:

    >>> layer = lamina.layers.Dense(4, kernel_regularizer=lamina.regularizers.L1L2(1e-5, 1e-4))
    """

    def __init__(self, l1: float = 0.0, l2: float = 0.0) -> None:
        self.l1 = check_penalty("L1L2", "l1", l1, 0.0)
        self.l2 = check_penalty("L1L2", "l2", l2, 0.0)

    def __call__(self, x) -> Tensor:
        x = _as_tensor(x)
        penalty = ops.zeros((), dtype=x.dtype)
        if self.l1:
            penalty = ops.add(penalty, ops.multiply(ops.sum(ops.abs(x)), self.l1))
        if self.l2:
            penalty = ops.add(penalty, ops.multiply(ops.sum(ops.square(x)), self.l2))
        return penalty

    def get_config(self) -> dict:
        return {"l1": self.l1, "l2": self.l2}


@register_builtin
class L1(Regularizer):
    """``l1 * sum(|x|)``.

    Args:
        l1: the factor (a float >= 0).
    """

    def __init__(self, l1: float = 0.01) -> None:
        self.l1 = check_penalty("L1", "l1", l1, 0.01)

    def __call__(self, x) -> Tensor:
        return ops.multiply(ops.sum(ops.abs(_as_tensor(x))), self.l1)

    def get_config(self) -> dict:
        return {"l1": as_float32(self.l1)}


@register_builtin
class L2(Regularizer):
    """``l2 * sum(x**2)``: no factor of one half (Keras's definition).

    Args:
        l2: the factor (a float >= 0).
    """

    def __init__(self, l2: float = 0.01) -> None:
        self.l2 = check_penalty("L2", "l2", l2, 0.01)

    def __call__(self, x) -> Tensor:
        return ops.multiply(ops.sum(ops.square(_as_tensor(x))), self.l2)

    def get_config(self) -> dict:
        return {"l2": self.l2}


def _normalize(x, axis: int):
    """``x`` with unit L2 norm along ``axis`` (norms below sqrt(epsilon) treated as it)."""
    squares = ops.sum(ops.square(x), axis=axis, keepdims=True)
    return ops.multiply(x, ops.rsqrt(ops.maximum(squares, epsilon())))


@register_builtin
class OrthogonalRegularizer(Regularizer):
    """Pushes the rows (``mode="rows"``) or columns of a 2-D weight towards orthogonality.

    The penalty is ``factor * 0.5 * sum(|P - diag(P)|) / (n (n - 1) / 2)``, where ``P`` is
    the matrix of cosine similarities between the ``n`` rows (or columns): ``factor``
    times the mean absolute cosine over pairs of distinct vectors.

    Args:
        factor: the penalty's factor (a float >= 0).
        mode: ``"rows"`` or ``"columns"``: which vectors of the weight are compared.
    """

    MODES = ("rows", "columns")

    def __init__(self, factor: float = 0.01, mode: str = "rows") -> None:
        self.factor = check_penalty("OrthogonalRegularizer", "factor", factor, 0.01)
        # Keras's exact messages (its regularizers_test.py compares the whole text); they
        # name what was expected and received.
        if mode not in self.MODES:
            raise ValueError(f'Invalid value for argument `mode`. Expected one of '
                             f'{{"rows", "columns"}}. Received: mode={mode}')
        self.mode = mode

    def __call__(self, x) -> Tensor:
        x = _as_tensor(x)
        if x.ndim != 2:
            raise ShapeError(f"Inputs to OrthogonalRegularizer must have rank 2. Received: "
                             f"inputs.shape={describe_shape(x.shape)}")
        if self.mode == "rows":
            vectors = _normalize(x, axis=1)
        else:
            vectors = ops.transpose(_normalize(x, axis=0))
        n = vectors.shape[0]
        if n < 2:
            return ops.zeros((), dtype=x.dtype)         # no pairs, nothing to penalize
        cosines = ops.matmul(vectors, ops.transpose(vectors))
        index = ops.arange(n)
        off_diagonal = ops.cast(ops.not_equal(ops.reshape(index, (n, 1)),
                                              ops.reshape(index, (1, n))), x.dtype)
        total = ops.sum(ops.abs(ops.multiply(cosines, off_diagonal)))
        return ops.multiply(total, self.factor * 0.5 / (n * (n - 1) / 2.0))

    def get_config(self) -> dict:
        return {"factor": as_float32(self.factor), "mode": self.mode}
