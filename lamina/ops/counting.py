"""Counting values: ``histogram``, ``bincount`` and ``digitize``, as Keras 3's
``keras.ops``. None has a gradient with respect to the counted values.

``bincount``'s result length is ``max(x) + 1`` (at least ``minlength``): it depends on the
values, so it runs on concrete tensors only; inside a traced function it raises.
"""
from __future__ import annotations

from ..core.tensor import Tensor, TensorBase
from ..backend import statistics as kernels
from ..dtypes import floatx, is_float, is_int
from ..errors import DTypeError, ShapeError, describe_shape
from .core import arange, as_tensor, as_tensors, cast
from .compare import equal
from .math import add, divide, multiply, subtract
from .where_clip import where
from ..core.op import Op, Spec, register_op
from .reduction import max as reduce_max, min as reduce_min

__all__ = ["histogram", "bincount", "digitize"]


@register_op
class Histogram(Op):
    name = "histogram"
    differentiable = False

    def output_spec(self, x, lo, hi, bins=10):
        return Spec((bins,), "int32")

    def forward(self, backend, x, lo, hi, out=None, bins=10):
        return kernels.histogram(backend.xp, x, bins, lo, hi)


@register_op
class Bincount(Op):
    name = "bincount"
    differentiable = False

    def output_spec(self, x, *weights, length=0, dtype="int32"):
        return Spec(tuple(x.shape[:-1]) + (length,), dtype)

    def forward(self, backend, x, *weights, out=None, length=0, dtype="int32"):
        return kernels.bincount(backend.xp, x, weights[0] if weights else None, length, dtype)


@register_op
class Digitize(Op):
    name = "digitize"
    differentiable = False

    def output_spec(self, x, bins):
        return Spec(x.shape, "int32")

    def forward(self, backend, x, bins, out=None):
        return kernels.digitize(backend.xp, x, bins)


def histogram(x, bins=10, range=None):
    """Counts of the 1-D ``x`` in ``bins`` equal-width bins over ``range`` (``(min(x),
    max(x))`` when None; the last bin includes its right edge), and the ``bins + 1`` bin
    edges, as numpy's histogram. As in Keras both are floats: the counts in floatx(), the
    edges in ``x``'s float dtype (floatx() for integer input).

    Args:
        x: A 1-D tensor.
        bins: The number of bins. Defaults to 10.
        range: Optional ``(low, high)``; None means ``(min(x), max(x))``.

    Returns:
        A pair ``(counts, edges)``.
    """
    x = as_tensor("histogram", x)
    if x.ndim != 1:
        raise ShapeError(f"histogram: argument 'x' must be 1-D; received shape "
                         f"{describe_shape(x.shape)}")
    if isinstance(bins, bool) or not isinstance(bins, int) or bins < 1:
        raise ValueError(f"histogram: argument 'bins' must be a positive int; received "
                         f"{bins!r}")
    if not is_float(x.dtype):
        x = cast(x, floatx())
    if range is None:
        lo, hi = reduce_min(x), reduce_max(x)
    else:
        try:
            lo, hi = (float(v) for v in range)
        except (TypeError, ValueError):
            raise ValueError(f"histogram: argument 'range' must be None or a pair of "
                             f"numbers (lower, upper); received {range!r}") from None
        if lo > hi:
            raise ValueError(f"histogram: argument 'range' must have lower <= upper; "
                             f"received {range!r}")
        lo, hi = as_tensors("histogram", x, lo, hi)[1:]
    # numpy widens an empty range by 0.5 on each side
    same = equal(lo, hi)
    lo, hi = where(same, subtract(lo, 0.5), lo), where(same, add(hi, 0.5), hi)
    counts = cast(Histogram(x, lo, hi, bins=bins), floatx())
    steps = cast(arange(bins + 1), x.dtype)
    edges = add(lo, multiply(divide(steps, float(bins)), subtract(hi, lo)))
    # the last edge is exactly the upper bound, as numpy's linspace makes it
    edges = where(equal(steps, float(bins)), hi, edges)
    return counts, edges


def bincount(x, weights=None, minlength=0, sparse=False):
    """How many times each value ``0 .. max(x)`` occurs in the non-negative integers ``x``
    (1-D; for 2-D ``x``, one count per row), at least ``minlength`` long. With ``weights``
    (``x``'s shape) each occurrence adds its weight and the result has the weights' dtype.
    ``sparse=True`` (a sparse result) is not supported: Lamina has no sparse tensors.

    Args:
        x: Non-negative integers, 1-D or 2-D.
        weights: Optional weights of ``x``'s shape; None counts each occurrence as 1.
        minlength: The smallest length of the result. Defaults to 0.
        sparse: Must be False: Lamina tensors are dense and a sparse result is refused.

    Returns:
        The counts: 1-D (or one row per row of a 2-D ``x``), int32 without weights.

    Raises:
        ValueError: If ``sparse`` is True.
    """
    if sparse:
        raise ValueError("bincount: sparse=True is not supported (Lamina has no sparse "
                         "tensors); use sparse=False for a dense result")
    x = as_tensor("bincount", x)
    if not is_int(x.dtype):
        raise DTypeError(f"bincount: argument 'x' must be an integer tensor; received dtype "
                         f"{x.dtype}")
    if x.ndim not in (1, 2):
        raise ShapeError(f"bincount: argument 'x' must be 1-D or 2-D; received shape "
                         f"{describe_shape(x.shape)}")
    if isinstance(minlength, bool) or not isinstance(minlength, int) or minlength < 0:
        raise ValueError(f"bincount: argument 'minlength' must be a non-negative int; "
                         f"received {minlength!r}")
    if not isinstance(x, Tensor):
        raise TypeError("bincount: the result's length depends on the values of 'x', so "
                        "bincount needs a concrete tensor; it cannot run inside a traced "
                        "function")
    values = x.numpy()
    if values.size and int(values.min()) < 0:
        raise ValueError(f"bincount: argument 'x' must hold non-negative integers; received "
                         f"a minimum of {int(values.min())}")
    length = max(int(values.max()) + 1 if values.size else 0, minlength)
    if weights is None:
        return Bincount(x, length=length, dtype="int32")
    w = as_tensor("bincount", weights)
    if isinstance(w, TensorBase) and not isinstance(w, Tensor):
        raise TypeError("bincount: argument 'weights' must be a concrete tensor")
    if tuple(w.shape) != tuple(x.shape):
        raise ShapeError(f"bincount: argument 'weights' must have the shape of 'x' "
                         f"{describe_shape(x.shape)}; received {describe_shape(w.shape)}")
    dtype = w.dtype if w.dtype != "bool" else "int32"
    return Bincount(x, w, length=length, dtype=dtype)


def digitize(x, bins):
    """The int32 index of the bin of ``bins`` (1-D, increasing or decreasing) that each
    element of ``x`` falls in, as numpy's ``digitize`` (``right=False``).

    Args:
        x: Input tensor (or anything ``convert_to_tensor`` accepts).
        bins: 1-D monotonic bin edges.

    Returns:
        int32 bin indices of ``x``'s shape.
    """
    x = as_tensor("digitize", x)
    b = as_tensor("digitize", bins)
    if b.ndim != 1:
        raise ShapeError(f"digitize: argument 'bins' must be 1-D; received shape "
                         f"{describe_shape(b.shape)}")
    x, b = as_tensors("digitize", x, b)
    return Digitize(x, b)
