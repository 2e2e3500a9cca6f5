"""Keras's ``associative_scan``: all prefix combinations of an associative function in
O(log n) rounds (the Blelloch-style recursion of ``jax.lax.associative_scan``, which is
Keras's JAX backend: for a function that is not associative the same grouping, so the
same numbers). A composition of slicing, ``f`` and concatenation: eager, traced and
differentiated as ordinary ops; the graph grows with log2 of the length."""
from __future__ import annotations

from .. import tree
from ..errors import ShapeError, describe_shape
from .reshaping import concatenate, moveaxis, reshape, stack
from .loops import scan
from .loop_tracing import same_structure, tensors_of
from ..core.op import normalize_axis
from .replicate import flip

__all__ = ["associative_scan"]


def associative_scan(f, elems, reverse=False, axis=0):
    """``[e0, f(e0, e1), f(f(e0, e1), e2), ...]`` along ``axis`` of every leaf of
    ``elems`` (a tensor or nested structure); with ``reverse`` from the end backwards.

    Args:
        f: An associative function of two arguments, each shaped like ``elems``.
        elems: A tensor or a nested structure of tensors, one size along ``axis``.
        reverse: Whether to scan from the end backwards. Defaults to False.
        axis: The axis to scan along. Defaults to 0.

    Returns:
        The running results, of ``elems``' structure and shapes.
    """
    leaves = tensors_of("associative_scan", elems)
    if not leaves:
        raise ValueError("associative_scan: argument 'elems' must hold at least one tensor")
    ndim = len(leaves[0].shape)
    axis = normalize_axis("associative_scan", axis, max(ndim, 1))
    if any(len(x.shape) <= axis for x in leaves):
        raise ShapeError(f"associative_scan: every leaf of 'elems' must have axis {axis}; "
                         f"received shapes "
                         + ", ".join(describe_shape(tuple(x.shape)) for x in leaves))
    known = {tuple(x.shape)[axis] for x in leaves} - {None}
    if len(known) > 1:
        raise ShapeError(f"associative_scan: every leaf of 'elems' must have the same first "
                         f"dimension along the scan axis {axis}; received shapes "
                         + ", ".join(describe_shape(tuple(x.shape)) for x in leaves))

    def combine(a, b):
        out = f(tree.pack_sequence_as(elems, a), tree.pack_sequence_as(elems, b))
        if not same_structure(out, elems):
            raise ValueError(f"associative_scan: f must return the structure of 'elems'; "
                             f"received {out!r}")
        return tensors_of("associative_scan", out)

    if not known:           # symbolic, of a length known when the graph runs
        return tree.pack_sequence_as(elems, _sequential(combine, leaves, axis, reverse))
    if reverse:
        leaves = [flip(x, axis=axis) for x in leaves]

    def along(x, start, stop=None, step=None):
        return x[(slice(None),) * axis + (slice(start, stop, step),)]

    def prefix(xs):
        n = xs[0].shape[axis]
        if n < 2:
            return xs
        pairs = combine([along(x, 0, -1, 2) for x in xs], [along(x, 1, None, 2) for x in xs])
        odd = prefix(pairs)
        rest = [along(x, 2, None, 2) for x in xs]
        if n % 2 == 0:
            even = combine([along(o, 0, -1) for o in odd], rest)
        else:
            even = combine(odd, rest)
        even = [concatenate([along(x, 0, 1), e], axis=axis) for x, e in zip(xs, even)]
        return [_interleave(e, o, axis) for e, o in zip(even, odd)]

    scanned = prefix(leaves)
    if reverse:
        scanned = [flip(x, axis=axis) for x in scanned]
    return tree.pack_sequence_as(elems, scanned)


def _sequential(combine, leaves, axis: int, reverse: bool):
    """The prefix combinations one after another, a ``scan`` (one loop node in a graph):
    for an axis of unknown length, which the O(log n) recursion cannot split. For an
    associative ``f`` the same values as the recursion (up to float rounding)."""
    xs = [moveaxis(x, axis, 0) for x in leaves]
    if reverse:
        xs = [flip(x, axis=0) for x in xs]

    def step(carry, x):
        out = combine(carry, x)
        return out, out
    _, ys = scan(step, [x[0] for x in xs], [x[1:] for x in xs])
    out = [concatenate([x[:1], y], axis=0) for x, y in zip(xs, ys)]
    if reverse:
        out = [flip(x, axis=0) for x in out]
    return [moveaxis(x, 0, axis) for x in out]


def _interleave(a, b, axis: int):
    """``a0, b0, a1, b1, ...`` along ``axis`` (``a`` has as many elements as ``b`` or one
    more)."""
    n = a.shape[axis] + b.shape[axis]
    if a.shape[axis] > b.shape[axis]:
        b = concatenate([b, a[(slice(None),) * axis + (slice(-1, None),)]], axis=axis)
    pairs = stack([a, b], axis=axis + 1)
    shape = list(a.shape)
    shape[axis] = 2 * a.shape[axis]
    shape = [-1 if d is None else d for d in shape]
    joined = reshape(pairs, tuple(shape))
    return joined if joined.shape[axis] == n else joined[(slice(None),) * axis +
                                                          (slice(0, n),)]
