"""Sorting and searching: sort, argsort, argpartition, top_k, in_top_k, searchsorted.

One primitive, ``argsort`` (a stable sort's permutation; no gradient), and the gathers:
``sort`` and ``top_k``'s values are ``take_along_axis`` of ``x`` at that permutation, so
their gradient flows back through it to the positions the values came from. Ties keep
their original order (a stable sort, and ``top_k`` puts the lower index first, as JAX's
``lax.top_k`` does). ``searchsorted`` is a second primitive without a gradient.
"""
from __future__ import annotations

from ..dtypes import is_float
from ..errors import ShapeError, describe_shape
from .compare import greater_equal
from .core import as_tensor, cast
from .indexing import take_along_axis
from ..core.op import Op, Spec, normalize_axis, register_op
from .reshaping import expand_dims, reshape
from .slicing import getitem

__all__ = ["argsort", "sort", "argpartition", "top_k", "in_top_k", "searchsorted"]


@register_op
class Argsort(Op):
    """The permutation that sorts ``x`` along ``axis`` (stable), as int32 indices."""
    name = "argsort"
    differentiable = False

    def output_spec(self, x, axis, descending=False):
        return Spec(tuple(x.shape), "int32")

    def forward(self, backend, x, out=None, axis=-1, descending=False):
        return backend.argsort(x, axis, descending)


def _flat_or_axis(op: str, x, axis):
    x = as_tensor(op, x)
    if axis is None:
        return reshape(x, (-1,)), 0
    if x.ndim == 0:
        return reshape(x, (1,)), 0
    return x, normalize_axis(op, axis, x.ndim)


def argsort(x, axis=-1):
    """Indices that sort ``x`` ascending along ``axis`` (flattened when None); int32.

    Args:
        x: Input tensor (or anything ``convert_to_tensor`` accepts).
        axis: The axis to sort along (default -1); None sorts the flattened ``x``.

    Returns:
        int32 indices of ``x``'s shape (1-D when ``axis`` is None).

    Example:

    >>> lamina.ops.argsort(np.array([3, 1, 2])).numpy()
    array([1, 2, 0], dtype=int32)
    """
    x, axis = _flat_or_axis("argsort", x, axis)
    return Argsort(x, axis=axis)


def sort(x, axis=-1):
    """``x`` sorted ascending along ``axis`` (flattened when None). The gradient flows
    back through the permutation.

    Args:
        x: Input tensor (or anything ``convert_to_tensor`` accepts).
        axis: The axis to sort along (default -1); None sorts the flattened ``x``.

    Returns:
        A tensor of ``x``'s shape (1-D when ``axis`` is None).
    """
    x, axis = _flat_or_axis("sort", x, axis)
    return take_along_axis(x, Argsort(x, axis=axis), axis=axis)


def argpartition(x, kth, axis=-1):
    """Indices that partition ``x`` along ``axis``: the element at position ``kth`` is the
    one a sort would put there, those before it are no larger and those after no smaller
    (the order within each side is unspecified; here they come sorted). int32.

    Args:
        x: Input tensor (or anything ``convert_to_tensor`` accepts).
        kth: The position (int) that ends in sorted place.
        axis: The axis to partition along. Defaults to -1.

    Returns:
        int32 indices of ``x``'s shape.
    """
    x, axis = _flat_or_axis("argpartition", x, axis)
    n = x.shape[axis]
    if not isinstance(kth, int) or isinstance(kth, bool):
        raise TypeError(f"argpartition: argument 'kth' must be an int; received {kth!r}")
    if n is not None and not -n <= kth < n:
        raise ShapeError(f"argpartition: argument 'kth' must be in [{-n}, {n}) for an axis of "
                         f"size {n}; received {kth}")
    return Argsort(x, axis=axis)


def top_k(x, k, sorted=True):
    """The ``k`` largest values along the last axis and their indices (int32), largest
    first; equal values keep index order. ``sorted=False`` allows any order, so the sorted
    one is returned too. The values' gradient flows back to where they came from.

    Args:
        x: Input tensor (or anything ``convert_to_tensor`` accepts).
        k: How many values.
        sorted: Whether they come sorted (they always do). Defaults to True.

    Returns:
        A pair ``(values, indices)``, each of ``x``'s shape with ``k`` on the last axis.

    Example:

    >>> values, indices = lamina.ops.top_k(np.array([1, 4, 2]), 2)
    >>> indices.numpy()
    array([1, 2], dtype=int32)
    """
    x = as_tensor("top_k", x)
    if x.ndim == 0:
        raise ShapeError("top_k: argument 'x' must have at least one axis; received a scalar")
    n = x.shape[-1]
    if not isinstance(k, int) or isinstance(k, bool) or k < 0 or (n is not None and k > n):
        raise ValueError(f"top_k: argument 'k' must be an int in [0, {n}] (the size of the "
                         f"last axis); received {k!r}")
    order = Argsort(x, axis=x.ndim - 1, descending=True)
    indices = getitem(order, (Ellipsis, slice(0, k)))
    return take_along_axis(x, indices, axis=-1), indices


def in_top_k(targets, predictions, k):
    """Whether each target's prediction is among the ``k`` largest of its row: at least the
    k-th largest value (ties with it count in). ``targets`` (n,), ``predictions`` (n, c).

    Args:
        targets: int class indices, shape (n,).
        predictions: Scores, shape (n, classes).
        k: How many of the largest scores count.

    Returns:
        A bool tensor of shape (n,).
    """
    targets = as_tensor("in_top_k", targets)
    predictions = as_tensor("in_top_k", predictions)
    if targets.ndim != 1 or predictions.ndim != 2 or (
            None not in (targets.shape[0], predictions.shape[0])
            and targets.shape[0] != predictions.shape[0]):
        raise ShapeError(f"in_top_k: expected targets of shape (n,) and predictions of shape "
                         f"(n, classes); received {describe_shape(targets.shape)} and "
                         f"{describe_shape(predictions.shape)}")
    if not is_float(predictions.dtype):
        predictions = cast(predictions, "float32")
    values, _ = top_k(predictions, k)
    kth = getitem(values, (slice(None), slice(k - 1, k)))
    at_target = take_along_axis(predictions, expand_dims(cast(targets, "int32"), -1), axis=-1)
    return reshape(greater_equal(at_target, kth), (-1,))


@register_op
class SearchSorted(Op):
    name = "searchsorted"
    differentiable = False

    def output_spec(self, sorted_sequence, values, side):
        return Spec(tuple(values.shape), "int32")

    def forward(self, backend, sorted_sequence, values, out=None, side="left"):
        return backend.searchsorted(sorted_sequence, values, side)


def searchsorted(sorted_sequence, values, side="left"):
    """Where ``values`` would be inserted into the 1-D ascending ``sorted_sequence`` to keep
    it sorted: the first such place (``side="left"``) or the last ("right"); int32.

    Args:
        sorted_sequence: A 1-D ascending tensor.
        values: The values to place.
        side: "left" (the default) or "right".

    Returns:
        int32 positions of ``values``' shape.
    """
    sorted_sequence = as_tensor("searchsorted", sorted_sequence)
    values = as_tensor("searchsorted", values)
    if sorted_sequence.ndim != 1:
        raise ShapeError(f"searchsorted: argument 'sorted_sequence' must be 1-D; received "
                         f"shape {describe_shape(sorted_sequence.shape)}")
    if side not in ("left", "right"):
        raise ValueError(f"searchsorted: argument 'side' must be 'left' or 'right'; received "
                         f"{side!r}")
    return SearchSorted(sorted_sequence, values, side=side)
