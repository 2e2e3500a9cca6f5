"""Loops with a static trip count, Keras's ``scan``, ``map`` and ``vectorized_map``
(``fori_loop`` with static bounds is a ``scan`` too: ``control_flow.py``).

Eagerly they are Python loops over ``lamina.ops`` (the tape differentiates them). Traced
into a graph (``lamina.jit``, ``fit``, a functional model), the step is traced once on
placeholders and the loop becomes one ``scan`` node (``lamina/ops/step_loop.py``, the
node the recurrent layers run their time loop with) with its backpropagation-through-time
gradient, so the graph's size does not depend on the number of iterations. A step that
draws random numbers or assigns variables cannot repeat as one node: that loop is traced
unrolled instead (as with ``unroll=True``).
"""
from __future__ import annotations

from .. import tree
from ..errors import ShapeError, describe_shape
from ..core.ignored_arguments import warn_ignored
from .reshaping import concatenate, expand_dims, moveaxis, reshape, stack
from .core import cast, zeros, zeros_like
from .reduction import sum as reduce_sum
from .loop_tracing import (active_trace, any_symbolic, check_carry, placeholders,
                           tensors_of, writes)
from .replicate import flip
from .step_body import bind, capture_step
from .step_loop import scan as scan_node

__all__ = ["scan", "map", "vectorized_map"]


def scan(f, init, xs=None, length=None, reverse=False, unroll=1):
    """Loop ``f(carry, x) -> (carry, y)`` over the leading axis of ``xs`` (a nested
    structure of tensors), or ``length`` times with ``x = None``; returns
    ``(final_carry, ys)`` with the ``y`` of each step stacked on a new leading axis, in the
    order of ``xs`` (also when ``reverse`` runs from the last element to the first).

    Args:
        f: A function ``(carry, x) -> (carry, y)``.
        init: The initial carry (a tensor or a nested structure).
        xs: The values to loop over, along their leading axis; None loops ``length`` times.
        length: The number of steps when ``xs`` is None.
        reverse: Whether to run from the last element to the first. Defaults to False.
        unroll: How many steps to unroll per iteration (a speed hint). Defaults to 1.

    Returns:
        ``(final_carry, ys)``.
    """
    if not callable(f):
        raise TypeError(f"scan: argument 'f' should be a callable. Received f={f!r}")
    _check_unroll(unroll)
    carry = tensors_of("scan", init)
    seqs = [] if xs is None else tensors_of("scan", xs)
    length = _length(seqs, length)
    if length is None and unroll is True:
        raise ShapeError("scan: unroll=True needs a known number of steps; 'xs' has an "
                         "unknown leading size: " + ", ".join(describe_shape(tuple(x.shape))
                                                              for x in seqs))
    if any_symbolic(*carry, *seqs) and unroll is not True and (length is None or length > 0):
        if not isinstance(unroll, bool) and unroll > 1 and unroll < length:
            warn_ignored("scan", "unroll", unroll, "a traced scan runs as one loop node "
                         "(unroll=True unrolls it completely)")
        return _traced(f, init, carry, xs, seqs, length, reverse)
    return _python_loop(f, init, carry, xs, seqs, range(length), reverse)


def map(f, xs):
    """``f`` applied to each element along the leading axis of ``xs``, stacked.

    Args:
        f: A function of one element.
        xs: A tensor (or nested structure) to map over along its leading axis.

    Returns:
        The results stacked on a new leading axis.
    """
    return scan(lambda carry, x: ((), f(x)), (), xs)[1]


def vectorized_map(function, elements):
    """``function`` applied to each slice along the leading axis of ``elements`` (a tensor
    or a nested structure), the results stacked: Keras's ``vmap``, run as ``map``.

    Args:
        function: A function of one slice.
        elements: A tensor or nested structure to map over along its leading axis.

    Returns:
        The results stacked on a new leading axis.
    """
    return map(function, elements)


def _check_unroll(unroll) -> None:
    if isinstance(unroll, bool):
        return
    if not isinstance(unroll, int) or unroll < 1:
        # ends with Keras's own phrase (sic), which its tests match
        raise ValueError(f"scan: argument 'unroll' must be a positive integer or a boolean; "
                         f"received unroll={unroll!r} (`unroll` must be an positive integer "
                         f"or boolean.)")


def _length(seqs, length) -> int:
    if length is not None and (isinstance(length, bool) or not isinstance(length, int)
                               or length < 0):
        raise ValueError(f"scan: argument 'length' must be a non-negative int or None; "
                         f"received length={length!r}")
    if not seqs:
        if length is None:
            raise ValueError("scan: give 'xs' or 'length'; received xs=None and "
                             "length=None (no 'xs' to scan over and no 'length')")
        return length
    sizes = {tuple(x.shape)[0] if len(x.shape) else "scalar" for x in seqs}
    known = sizes - {None}
    if "scalar" in sizes or len(known) > 1:
        raise ShapeError("scan: every leaf of 'xs' must have the same leading size; "
                         "received shapes " + ", ".join(describe_shape(tuple(x.shape))
                                                        for x in seqs))
    size = known.pop() if known else None       # None: symbolic, known when the graph runs
    if size is None:
        return None
    if length is not None and length != size:
        raise ValueError(f"scan: argument 'length' ({length}) must equal the leading size "
                         f"of 'xs' ({size})")
    return size


def _step(f, carry, x):
    result = f(carry, x)
    if not isinstance(result, (tuple, list)) or len(result) != 2:
        raise TypeError(f"scan: f must return a pair (carry, y); received {result!r}")
    return result


def _python_loop(f, init, carry, xs, seqs, steps, reverse, ys=None):
    """The loop run step by step (eagerly, or unrolled into a trace)."""
    state = tree.pack_sequence_as(init, carry)
    ys = [] if ys is None else ys
    for t in (reversed(steps) if reverse else steps):
        x = None if xs is None else tree.pack_sequence_as(xs, [s[t] for s in seqs])
        new, y = _step(f, state, x)
        new = tree.pack_sequence_as(new, tensors_of("scan", new, like=state)) \
            if _structured_like(new, state) else new
        check_carry("scan", "the carry f returns", state, new)
        state = new
        ys.append(tree.pack_sequence_as(y, tensors_of("scan", y)) if y is not None else y)
    if reverse:
        ys.reverse()
    if not ys:
        return state, _empty_ys(f, state, xs, seqs)
    return state, _stacked(ys)


def _structured_like(new, state) -> bool:
    return len(tree.flatten(new)) == len(tree.flatten(state))


def _stacked(ys):
    leaves = [tree.flatten(y) for y in ys]
    first = ys[0]
    for y, flat in zip(ys, leaves):
        if len(flat) != len(leaves[0]):
            raise ValueError("scan: f must return y of the same structure at every step")
    columns = [None if col[0] is None else stack(list(col), axis=0) for col in zip(*leaves)]
    return tree.pack_sequence_as(first, columns)


def _empty_ys(f, state, xs, seqs):
    """ys of a loop that ran no step: f traced once on placeholders for their specs."""
    x = None if xs is None else tree.pack_sequence_as(
        xs, placeholders([_Spec(s.shape[1:], s.dtype) for s in seqs], "x"))
    ph = placeholders(tree.flatten(state), "carry")
    _, y = _step(f, tree.pack_sequence_as(state, ph), x)
    return tree.map_structure(
        lambda v: None if v is None else zeros((0, *v.shape), v.dtype), y)


class _Spec:
    def __init__(self, shape, dtype):
        self.shape, self.dtype = tuple(shape), dtype


def _traced(f, init, carry, xs, seqs, length, reverse):
    """One scan node for the loop, or (a step that cannot repeat as a node) the loop
    unrolled, its first step the one traced here."""
    trace = active_trace()
    layouts = [_layout(s) for s in seqs]
    x_ph = [_slice_placeholder(s, rank1) for s, rank1 in zip(seqs, layouts)]
    x_val = [reshape(p, ()) if rank1 else p for p, rank1 in zip(x_ph, layouts)]
    carry_ph = placeholders(carry, "carry")
    state = tree.pack_sequence_as(init, carry_ph)
    before = writes(trace)
    x = None if xs is None else tree.pack_sequence_as(xs, x_val)
    new, y = _step(f, state, x)
    new_leaves = tensors_of("scan", new, like=state) if _structured_like(new, state) \
        else tree.flatten(new)
    new = tree.pack_sequence_as(new, new_leaves) if _structured_like(new, state) else new
    check_carry("scan", "the carry f returns", state, new)
    y_leaves = tensors_of("scan", y) if y is not None else []
    kept = [v for v in y_leaves if v is not None]
    captured = None
    if writes(trace) == before:
        outputs = [expand_dims(v, 0) if len(v.shape) == 0 else v for v in kept]
        dummy = _placeholder((None,) if _needs_batch(carry, new_leaves, kept) else (1,))
        captured = capture_step([dummy, *x_ph], carry_ph, new_leaves, outputs)
    if captured is None:
        if length is None:
            raise ShapeError("scan: a step that draws random numbers or assigns variables "
                             "is unrolled, which needs a known number of steps; 'xs' has an "
                             "unknown leading size: " + ", ".join(
                                 describe_shape(tuple(s.shape)) for s in seqs))
        return _unrolled(f, init, carry, xs, seqs, length, reverse, x_ph, layouts,
                         carry_ph, new, y)
    body, constants = captured
    sequences = [_batch_sequence(dummy, carry, constants, _time_row(seqs, length))]
    sequences += [reshape(s, (1, -1)) if rank1 else moveaxis(s, 0, 1)
                  for s, rank1 in zip(seqs, layouts)]
    finals, stacked = scan_node(body, sequences, carry, constants, go_backwards=reverse)
    columns = []
    for v, out in zip(kept, stacked):
        out = reshape(out, (-1,)) if len(v.shape) == 0 else moveaxis(out, 1, 0)
        columns.append(flip(out, axis=0) if reverse else out)
    stream = iter(columns)
    ys = None if y is None else tree.pack_sequence_as(
        y, [None if v is None else next(stream) for v in y_leaves])
    return tree.pack_sequence_as(init, finals), ys


def _layout(seq) -> bool:
    """True for a rank-1 leaf (its steps are scalars, fed as shape (1,) slices); ``_length``
    has refused scalar leaves."""
    return len(seq.shape) == 1


def _slice_placeholder(seq, rank1):
    shape = (1,) if rank1 else tuple(seq.shape[1:])
    return _placeholder(shape, seq.dtype)


def _placeholder(shape, dtype="float32"):
    return placeholders([_Spec(shape, dtype)], "x")[0]


def _needs_batch(carry, new_leaves, kept) -> bool:
    """A step value with an unknown leading size (a batch): the loop node takes that size
    from its first sequence, which must then be a tensor with that leading size."""
    values = [*carry, *new_leaves, *kept]
    return any(v is not None and len(v.shape) and v.shape[0] is None for v in values)


def _time_row(seqs, length):
    """``(1, length)`` zeros; with an unknown ``length`` (symbolic ``xs``) zeros as long as
    the leading axis of the first sequence when the graph runs."""
    if length is not None:
        return zeros((1, length))
    s = seqs[0]
    row = zeros_like(s, dtype="float32")
    if len(s.shape) > 1:
        row = reduce_sum(row, axis=tuple(range(1, len(s.shape))))
    return expand_dims(row, 0)


def _batch_sequence(dummy, carry, constants, row):
    """The first sequence of the node: ``(batch, length)`` zeros (``row`` is ``(1,
    length)``) whose batch is the unknown leading size of a carry or captured value (or 1),
    read by no step."""
    if dummy.shape[0] is None:
        for ref in [*carry, *constants]:
            if ref is not None and len(ref.shape) and ref.shape[0] is None:
                column = ref if len(ref.shape) == 1 else reshape(ref, (-1, _size(ref)))[:, 0]
                return expand_dims(cast(column, "float32") * 0, 1) + row
    return row


def _size(ref) -> int:
    size = 1
    for d in ref.shape[1:]:
        size *= d
    return size


def _unrolled(f, init, carry, xs, seqs, length, reverse, x_ph, layouts, carry_ph, new, y):
    """The step traced on placeholders becomes the loop's first step (its placeholders
    bound to the first step's values); the others are traced after it."""
    first = length - 1 if reverse else 0
    for p, s, rank1 in zip(x_ph, seqs, layouts):
        bind(p, reshape(s[first], (1,)) if rank1 else s[first])
    for p, value in zip(carry_ph, carry):
        if p is not None:
            bind(p, value)
    ys = [y]
    steps = range(0, length - 1) if reverse else range(1, length)
    rest = tensors_of("scan", new)
    if not steps:
        return new, _stacked(ys)
    state, stacked = _python_loop(f, init, rest, xs, seqs, steps, reverse=False,
                                  ys=ys) if not reverse else _reverse_rest(
        f, init, rest, xs, seqs, steps, y)
    return state, stacked


def _reverse_rest(f, init, rest, xs, seqs, steps, y_last):
    state, ys = _python_loop(f, init, rest, xs, seqs, steps, reverse=True)
    first = tree.pack_sequence_as(y_last, [None if v is None else expand_dims(v, 0)
                                           for v in tree.flatten(y_last)])
    joined = [None if a is None else concatenate([a, b], axis=0)
              for a, b in zip(tree.flatten(ys), tree.flatten(first))]
    return state, tree.pack_sequence_as(y_last, joined)
