"""Finding elements: unique, nonzero, isin, unravel_index, select, get_item (Keras 3's
``keras.ops`` names, JAX's semantics).

``unique`` and ``nonzero`` give results whose size depends on the values: they run
eagerly; while tracing a graph they are an error, except ``unique(..., size=n)``, whose
results are cut or padded to ``n`` as in JAX. None of these has a gradient except
``select`` and ``get_item`` (compositions of ``where`` and ``getitem``).
"""
from __future__ import annotations

from ..core.tensor import Tensor
from ..dtypes import is_int
from ..errors import DTypeError
from .core import as_tensor, as_tensors
from .math import floor_divide, mod
from .where_clip import where
from ..core.op import Op, Spec, normalize_axis, register_op
from .slicing import getitem

__all__ = ["unique", "nonzero", "isin", "unravel_index", "select", "get_item"]


def _eager_only(op: str, x, hint: str = "") -> None:
    if not isinstance(x, Tensor):
        raise ValueError(f"{op}: the size of the result depends on the values, so it cannot "
                         f"be traced into a graph{hint}")


@register_op
class Unique(Op):
    """Sorted unique values (or rows along ``axis``), the index of each one's first
    occurrence, the inverse (each element's position among the unique values) and counts;
    with ``size`` all are cut or padded to it (values with ``fill_value``, the first value by
    default; indices with the first value's index; counts with 0)."""
    name = "unique"
    differentiable = False

    def output_spec(self, x, axis=None, size=None, fill_value=None):
        if axis is None:
            values = (size,)
            inverse = tuple(x.shape)
        else:
            values = tuple(x.shape[:axis]) + (size,) + tuple(x.shape[axis + 1:])
            inverse = (x.shape[axis],)
        return (Spec(values, x.dtype), Spec((size,), "int32"), Spec(inverse, "int32"),
                Spec((size,), "int32"))

    def forward(self, backend, x, out=None, axis=None, size=None, fill_value=None):
        flat = backend.reshape(x, (-1,)) if axis is None else x
        values, index, inverse, counts = backend.unique(flat, 0 if axis is None else axis)
        inverse = backend.reshape(inverse, x.shape if axis is None else (x.shape[axis],))
        if size is None:
            return values, index, inverse, counts
        found = index.shape[0]
        at = 0 if axis is None else axis
        if size <= found:
            cut = tuple(slice(0, size) if i == at else slice(None) for i in range(values.ndim))
            return backend.getitem(values, cut), index[:size], inverse, counts[:size]
        pad = size - found
        first = tuple(slice(0, 1) if i == at else slice(None) for i in range(values.ndim))
        filler = backend.getitem(values, first)
        if fill_value is not None:
            filler = backend.full(filler.shape, fill_value, x.dtype.name)
        reps = tuple(pad if i == at else 1 for i in range(values.ndim))
        values = backend.concatenate([values, backend.tile(filler, reps)], at)
        index = backend.concatenate([index, backend.full((pad,), int(index[0]) if found else 0,
                                                         "int32")], 0)
        counts = backend.concatenate([counts, backend.full((pad,), 0, "int32")], 0)
        return values, index, inverse, counts


def unique(x, sorted=True, return_index=False, return_inverse=False, return_counts=False,
           axis=None, size=None, fill_value=None):
    """The unique elements of ``x`` (flattened when ``axis`` is None; unique slices along
    ``axis`` otherwise), sorted; ``sorted=False`` allows any order, so sorted it is. With
    ``return_index``/``return_inverse``/``return_counts`` also the first occurrences, each
    element's position in the result (shaped like ``x`` when ``axis`` is None) and the
    counts (int32). ``size`` fixes the result length (needed in graph mode).

    Args:
        x: Input tensor (or anything ``convert_to_tensor`` accepts).
        sorted: Whether the result is sorted (it always is). Defaults to True.
        return_index: Whether to also return the first occurrences. Defaults to False.
        return_inverse: Whether to also return each element's position in the result.
            Defaults to False.
        return_counts: Whether to also return the counts. Defaults to False.
        axis: The axis of the slices to compare; None flattens ``x``.
        size: Optional fixed length of the result (needed in graph mode).
        fill_value: The value padding the result up to ``size``.

    Returns:
        The unique values, or a tuple with the extra results asked for.
    """
    x = as_tensor("unique", x)
    if axis is not None:
        axis = normalize_axis("unique", axis, x.ndim)
    if size is not None and (not isinstance(size, int) or isinstance(size, bool) or size < 0):
        raise ValueError(f"unique: argument 'size' must be a non-negative int or None; "
                         f"received {size!r}")
    if size is None:
        _eager_only("unique", x, "; pass size= to fix the number of results")
    values, index, inverse, counts = Unique(x, axis=axis, size=size, fill_value=fill_value)
    extra = [t for want, t in ((return_index, index), (return_inverse, inverse),
                               (return_counts, counts)) if want]
    return (values, *extra) if extra else values


@register_op
class NonZero(Op):
    name = "nonzero"
    differentiable = False

    def output_spec(self, x):
        return tuple(Spec((None,), "int32") for _ in range(max(len(x.shape), 1)))

    def forward(self, backend, x, out=None):
        return backend.nonzero(x if x.ndim else backend.reshape(x, (1,)))


def nonzero(x):
    """The indices of the non-zero elements of ``x``: one int32 tensor per axis.

    Args:
        x: Input tensor (or anything ``convert_to_tensor`` accepts).

    Returns:
        A tuple of int32 tensors, one per axis of ``x``.
    """
    x = as_tensor("nonzero", x)
    _eager_only("nonzero", x)
    result = NonZero(x)
    return tuple(result) if isinstance(result, (tuple, list)) else (result,)


@register_op
class IsIn(Op):
    name = "isin"
    differentiable = False

    def output_spec(self, x1, x2, invert=False):
        return Spec(tuple(x1.shape), "bool")

    def forward(self, backend, x1, x2, out=None, invert=False):
        return backend.isin(x1, x2, invert)


def isin(x1, x2, assume_unique=False, invert=False):
    """Per element of ``x1``, whether it occurs anywhere in ``x2`` (the opposite with
    ``invert=True``). ``assume_unique`` promises unique inputs; the result is the same
    either way.

    Args:
        x1: The elements to test.
        x2: The values to look for.
        assume_unique: A promise that both are unique; the result is the same. Defaults to
            False.
        invert: Whether to return the opposite. Defaults to False.

    Returns:
        A bool tensor of ``x1``'s shape.
    """
    x1, x2 = as_tensor("isin", x1), as_tensor("isin", x2)
    return IsIn(x1, x2, invert=bool(invert))


def unravel_index(indices, shape):
    """Flat (row-major) ``indices`` as a tuple of coordinate tensors into ``shape``.

    Args:
        indices: Flat int indices.
        shape: The shape the indices address.

    Returns:
        A tuple of int tensors, one per axis of ``shape``.
    """
    indices = as_tensor("unravel_index", indices)
    if not is_int(indices.dtype):
        raise DTypeError(f"unravel_index: argument 'indices' must be an integer tensor; "
                         f"received dtype {indices.dtype}")
    dims = tuple(shape)
    if any(not isinstance(d, int) or isinstance(d, bool) or d <= 0 for d in dims):
        raise ValueError(f"unravel_index: argument 'shape' must be positive ints; received "
                         f"{shape!r}")
    coords = []
    rest = indices
    for d in reversed(dims):
        coords.append(mod(rest, d))
        rest = floor_divide(rest, d)
    return tuple(reversed(coords))


def select(condlist, choicelist, default=0):
    """Per element, the value of the first choice whose condition holds, else ``default``
    (numpy's ``select``); differentiable in the choices.

    Args:
        condlist: A list of bool tensors.
        choicelist: A list of tensors, one per condition.
        default: The value where no condition holds. Defaults to 0.

    Returns:
        A tensor of the broadcast shape.
    """
    condlist, choicelist = list(condlist), list(choicelist)
    if len(condlist) != len(choicelist) or not condlist:
        raise ValueError(f"select: arguments 'condlist' and 'choicelist' must be non-empty "
                         f"and of one length; received {len(condlist)} and {len(choicelist)}")
    conds = [as_tensor("select", c) for c in condlist]
    for c in conds:
        if c.dtype != "bool":
            raise DTypeError(f"select: each condition must be a bool tensor; received dtype "
                             f"{c.dtype}")
    *choices, result = as_tensors("select", *choicelist, default)
    for c, v in reversed(list(zip(conds, choices))):
        result = where(c, v, result)
    return result


def get_item(x, key):
    """``x[key]`` (Keras's functional spelling): ints, slices, None, Ellipsis and one
    integer index array, as ``lamina.ops.getitem``.

    Args:
        x: Input tensor (or anything ``convert_to_tensor`` accepts).
        key: The index: an int, slice, None, Ellipsis, an int index tensor, or a tuple of
            them.

    Returns:
        ``x[key]``.
    """
    return getitem(x, key)

