"""Moving elements around: fliplr, flipud, rot90, roll, ravel, diff and the einops-style
``rearrange`` (Keras 3's ``keras.ops`` names), all compositions of flips, transposes,
slices, reshapes and concatenation, so gradients come free."""
from __future__ import annotations

import re

from ..errors import ShapeError, describe_shape
from .core import as_tensor
from .math import subtract
from ..core.op import normalize_axis
from .replicate import flip
from .reshaping import concatenate, reshape, transpose
from .slicing import getitem

__all__ = ["fliplr", "flipud", "rot90", "roll", "ravel", "diff", "rearrange"]


def _require_rank(op: str, x, rank: int, arg: str = "x") -> None:
    if x.ndim < rank:
        raise ShapeError(f"{op}: argument '{arg}' must have at least {rank} axes; received "
                         f"shape {describe_shape(x.shape)}")


def fliplr(x):
    """``x`` with axis 1 reversed (left/right); ``x`` needs two axes.

    Args:
        x: Input tensor (or anything ``convert_to_tensor`` accepts).

    Returns:
        A tensor of ``x``'s shape.
    """
    x = as_tensor("fliplr", x)
    _require_rank("fliplr", x, 2)
    return flip(x, axis=1)


def flipud(x):
    """``x`` with axis 0 reversed (up/down).

    Args:
        x: Input tensor (or anything ``convert_to_tensor`` accepts).

    Returns:
        A tensor of ``x``'s shape.
    """
    x = as_tensor("flipud", x)
    _require_rank("flipud", x, 1)
    return flip(x, axis=0)


def rot90(array, k=1, axes=(0, 1)):
    """``array`` rotated by 90 degrees ``k`` times in the plane of ``axes``, from the first
    axis towards the second (numpy's rule).

    Args:
        array: Input tensor, at least 2-D.
        k: The number of quarter turns. Defaults to 1.
        axes: The plane of rotation, two axes. Defaults to (0, 1).

    Returns:
        The rotated tensor.
    """
    x = as_tensor("rot90", array)
    _require_rank("rot90", x, 2, "array")
    axes = tuple(axes)
    if len(axes) != 2:
        raise ValueError(f"rot90: argument 'axes' must be two different axes; received {axes}")
    a0, a1 = (normalize_axis("rot90", a, x.ndim, "axes") for a in axes)
    if a0 == a1:
        raise ValueError(f"rot90: argument 'axes' must be two different axes; received {axes}")
    k = int(k) % 4
    if k == 0:
        return x
    if k == 2:
        return flip(x, axis=(a0, a1))
    perm = list(range(x.ndim))
    perm[a0], perm[a1] = perm[a1], perm[a0]
    if k == 1:
        return transpose(flip(x, axis=a1), perm)
    return flip(transpose(x, perm), axis=a1)


def _along(axis: int, ndim: int, part) -> tuple:
    return tuple(part if i == axis else slice(None) for i in range(ndim))


def roll(x, shift, axis=None):
    """``x`` shifted by ``shift`` along ``axis`` (ints or matching tuples), elements leaving
    one end entering at the other; with ``axis=None`` the flattened ``x`` is rolled.

    Args:
        x: Input tensor (or anything ``convert_to_tensor`` accepts).
        shift: The number of places (an int or a tuple).
        axis: The axis or axes (matching ``shift``); None rolls the flattened ``x``.

    Returns:
        A tensor of ``x``'s shape.
    """
    x = as_tensor("roll", x)
    if axis is None:
        if not isinstance(shift, int):
            raise TypeError(f"roll: with axis=None argument 'shift' must be an int; received "
                            f"{shift!r}")
        return reshape(roll(reshape(x, (-1,)), shift, 0), tuple(
            -1 if d is None else d for d in x.shape))
    shifts = (shift,) if isinstance(shift, int) else tuple(shift)
    axes = (axis,) if isinstance(axis, int) else tuple(axis)
    if len(shifts) == 1 and len(axes) > 1:
        shifts = shifts * len(axes)
    if len(shifts) != len(axes):
        raise ValueError(f"roll: arguments 'shift' and 'axis' must have the same length; "
                         f"received shift={shift!r}, axis={axis!r}")
    for s, a in zip(shifts, axes):
        a = normalize_axis("roll", a, x.ndim)
        n = x.shape[a]
        if n is None:
            raise ShapeError(f"roll: axis {a} has an unknown size; received shape "
                             f"{describe_shape(x.shape)}")
        s = int(s) % n if n else 0
        if s:
            x = concatenate([getitem(x, _along(a, x.ndim, slice(n - s, None))),
                             getitem(x, _along(a, x.ndim, slice(0, n - s)))], axis=a)
    return x


def ravel(x):
    """``x`` flattened to one axis (row-major).

    Args:
        x: Input tensor (or anything ``convert_to_tensor`` accepts).

    Returns:
        A 1-D tensor.
    """
    return reshape(as_tensor("ravel", x), (-1,))


def diff(a, n=1, axis=-1):
    """The ``n``-th discrete difference along ``axis``: ``a[1:] - a[:-1]``, ``n`` times.

    Args:
        a: Input tensor.
        n: How many times to difference. Defaults to 1.
        axis: The axis to difference along. Defaults to -1.

    Returns:
        A tensor whose ``axis`` is ``n`` shorter.
    """
    x = as_tensor("diff", a)
    _require_rank("diff", x, 1, "a")
    axis = normalize_axis("diff", axis, x.ndim)
    if not isinstance(n, int) or isinstance(n, bool) or n < 0:
        raise ValueError(f"diff: argument 'n' must be a non-negative int; received {n!r}")
    for _ in range(n):
        x = subtract(getitem(x, _along(axis, x.ndim, slice(1, None))),
                     getitem(x, _along(axis, x.ndim, slice(None, -1))))
    return x


_AXES = re.compile(r"\w+|\([\w\s]*\)")


def _groups(side: str) -> list:
    """``"b (h w) c"`` -> [["b"], ["h", "w"], ["c"]]."""
    return [part[1:-1].split() if part.startswith("(") else [part]
            for part in _AXES.findall(side)]


def rearrange(tensor, pattern, **axes_lengths):
    """einops-style axis rearrangement: ``"b h w c -> b c h w"`` transposes,
    ``"b h w c -> b (h w) c"`` merges, ``"b (h1 h) w c -> (b h1) h w c"`` splits (give the
    sizes of all but one axis of a split group as keywords, e.g. ``h1=2``).

    Args:
        tensor: Input tensor.
        pattern: An einops pattern, e.g. "b h w c -> b c h w".
        **axes_lengths: The sizes of split axes, by name (e.g. ``h1=2``).

    Returns:
        The rearranged tensor.
    """
    x = as_tensor("rearrange", tensor)
    if pattern.count("->") != 1:
        raise ValueError(f"rearrange: argument 'pattern' must have the form 'in -> out'; "
                         f"received {pattern!r}")
    left, right = (_groups(side) for side in pattern.split("->"))
    if len(left) != x.ndim:
        raise ShapeError(f"rearrange: the pattern's input side has {len(left)} axes; received "
                         f"shape {describe_shape(x.shape)}")
    names = [a for g in left for a in g]
    out_names = [a for g in right for a in g]
    if sorted(names) != sorted(out_names) or len(set(names)) != len(names):
        raise ValueError(f"rearrange: both sides of {pattern!r} must name the same axes, each "
                         "once")
    sizes = dict(axes_lengths)
    for group, dim in zip(left, x.shape):
        if len(group) == 1:
            sizes[group[0]] = dim
            continue
        unknown = [a for a in group if a not in sizes]
        if len(unknown) > 1:
            raise ValueError(f"rearrange: the sizes of {unknown} in group {group} are not "
                             "known; give all but one as keywords")
        if unknown:
            known = 1
            for a in group:
                if a in sizes:
                    known *= sizes[a]
            sizes[unknown[0]] = None if dim is None else dim // known
    decomposed = tuple(-1 if sizes[a] is None else sizes[a] for a in names)
    if any(len(g) > 1 for g in left):
        x = reshape(x, decomposed)
    x = transpose(x, [names.index(a) for a in out_names])
    out_shape = []
    for group in right:
        size = 1
        for a in group:
            size = None if size is None or sizes[a] is None else size * sizes[a]
        out_shape.append(-1 if size is None else size)
    return reshape(x, tuple(out_shape))
