"""Loops as ops: ``scan`` runs a step sub-graph over the time axis inside ONE node, as
TensorFlow's control-flow ops do, so a graph's size does not grow with sequence length.

``Scan(*sequences, *carries, *constants, body=StepBody, go_backwards=False)`` feeds the
step ``body`` (``lamina/ops/step_body.py``) the slices ``sequences[:, t]``, the carries
(initial values, then the step's new carries) and the constants, for t = 0 .. T-1 (T-1 .. 0
with ``go_backwards``). Outputs: the final carries, then each per-step output stacked on
axis 1 in processing order: ``(batch, T, ...)``.

Its gradient is ``ScanGrad`` (backpropagation through time, ``lamina/ops/step_loop_grad.py``):
one node that runs the step's vector-Jacobian program in reverse time order, accumulating
the constants' gradients (a cell's weights). The forward values it reads come from the scan
node, which in a graph keeps them as extra outputs once its gradient is built; eagerly
``ScanGrad`` runs the step forward again. Both run the kernels of the unrolled loop, so the
numbers are the unrolled loop's.
"""
from __future__ import annotations

from ..dtypes import is_float
from ..errors import ShapeError, describe_shape
from ..core.symbolic import SymbolicTensor
from .core import as_tensor
from ..core.op import Op, Spec, register_op
from .step_body import StepBody, bind, capture_step
from .step_loop_grad import backprop_through_time

__all__ = ["scan", "StepBody", "capture_step", "bind"]


def scan(body: StepBody, sequences, carries, constants=(), go_backwards: bool = False):
    """Run ``body`` over axis 1 of ``sequences``: ``(final carries, stacked outputs)``."""
    inputs = [as_tensor("scan", x) for x in (*sequences, *carries, *constants)]
    results = Scan(*inputs, body=body, go_backwards=bool(go_backwards))
    return list(results[:body.n_carry]), list(results[body.n_carry:])


def _time_step(backend, sequence, t: int):
    return backend.getitem(sequence, (slice(None), t))


def _order(length: int, go_backwards: bool):
    return range(length - 1, -1, -1) if go_backwards else range(length)


def _check_inputs(op: str, body, inputs) -> int:
    """The number of time steps, after checking ``inputs`` against the body's placeholders."""
    if not isinstance(body, StepBody):
        raise TypeError(f"{op}: attribute 'body' must be a StepBody; received {body!r}")
    if len(inputs) != len(body.inputs):
        raise ValueError(f"{op}: the step takes {body.n_seq} sequences, {body.n_carry} "
                         f"carries and {body.n_const} constants ({len(body.inputs)} inputs); "
                         f"received {len(inputs)} inputs")
    if body.n_seq < 1:
        raise ValueError(f"{op}: the step must read at least one sequence")
    length = None
    for i, (x, p) in enumerate(zip(inputs, body.inputs)):
        expected = tuple(p.shape)
        shape = tuple(x.shape)
        if i < body.n_seq:
            if len(shape) < 2:
                raise ShapeError(f"{op}: sequence {i} must have shape (batch, time, ...); "
                                 f"received shape {describe_shape(shape)}")
            time = shape[1]
            if length is not None and time is not None and time != length:
                raise ShapeError(f"{op}: all sequences must have {length} time steps; "
                                 f"sequence {i} has shape {describe_shape(shape)}")
            length = time if length is None else length
            shape = (shape[0], *shape[2:])
        if len(shape) != len(expected) or x.dtype != p.dtype or any(
                a is not None and b is not None and a != b for a, b in zip(shape, expected)):
            kind = "a time step of sequence" if i < body.n_seq else "input"
            raise ShapeError(f"{op}: {kind} {i} must be {describe_shape(expected)} {p.dtype} "
                             f"as the step was traced; received shape "
                             f"{describe_shape(tuple(x.shape))} {x.dtype}")
    return length


def _batched(shape, batch) -> tuple:
    """A step value's shape with its unknown batch size (a step traced for every batch
    size) made the sequences' batch size."""
    shape = tuple(shape)
    return (batch, *shape[1:]) if shape and shape[0] is None else shape


def _stacked(shape, batch, length) -> tuple:
    shape = _batched(shape, batch)
    return (shape[0], length, *shape[1:])


@register_op
class Scan(Op):
    """See the module docstring. With ``save`` (the ``wrt`` of its gradient, set by
    :meth:`gradient`) it also outputs, stacked over time (axis 0), the per-step values that
    the gradient's backward program reads, so the gradient need not run the loop again."""
    name = "step_loop"

    def output_spec(self, *inputs, body=None, go_backwards=False, save=()):
        length = _check_inputs(self.name, body, inputs)
        batch = inputs[0].shape[0]
        carries = [Spec(_batched(o.shape, batch), o.dtype) for o in body.outputs[:body.n_carry]]
        stacked = [Spec(_stacked(o.shape, batch, length), o.dtype)
                   for o in body.outputs[body.n_carry:]]
        saved = [Spec((length, *_batched(shape, batch)), dtype)
                 for shape, dtype in body.saved_specs(save)] if save else []
        return tuple(carries + stacked + saved)

    def forward(self, backend, *arrays, out=None, body=None, go_backwards=False, save=()):
        n_seq, n_carry = body.n_seq, body.n_carry
        sequences = arrays[:n_seq]
        carries = list(arrays[n_seq:n_seq + n_carry])
        constants = list(arrays[n_seq + n_carry:])
        batch, length = sequences[0].shape[:2]
        kept = body.backward(save)[1] if save else []
        stacked = [backend.empty(_stacked(o.shape, batch, length), o.dtype)
                   for o in body.outputs[n_carry:]]
        saved = [backend.empty((length, *_batched(shape, batch)), dtype)
                 for shape, dtype in body.saved_specs(save)] if save else []
        for k, t in enumerate(_order(length, go_backwards)):
            inputs = [_time_step(backend, s, t) for s in sequences] + carries + constants
            outputs, slots = body.forward(backend, inputs)
            carries = outputs[:n_carry]
            for buffer, y in zip(stacked, outputs[n_carry:]):
                backend.copy_(_time_step(backend, buffer, k), y)
            for buffer, i in zip(saved, kept):
                backend.copy_(backend.getitem(buffer, (k, Ellipsis)), slots[i])
        return tuple(carries + stacked + saved)

    def gradient(self, ctx, *grads):
        wrt = tuple(i for i, (x, need) in enumerate(zip(ctx.inputs, ctx.needs_grad))
                    if need and is_float(x.dtype))
        result = [None] * len(ctx.inputs)
        if not wrt:
            return tuple(result)
        body = ctx.attrs["body"]
        saved = _save_for_gradient(ctx, body, wrt)
        cotangents = grads[:body.n_carry + body.n_ys]
        grads_in = ScanGrad(*ctx.inputs, *cotangents, *saved, body=body,
                            go_backwards=ctx.attrs.get("go_backwards", False), wrt=wrt,
                            saved=bool(saved))
        for i, g in zip(wrt, grads_in):
            result[i] = g
        return tuple(result)


def _save_for_gradient(ctx, body, wrt) -> list:
    """In a graph, make the scan node also output what its gradient reads (TensorFlow's
    while-loop gradient adds such accumulators to the forward loop the same way): the node
    gains outputs, its other outputs and their readers are unchanged. Eagerly the forward
    has run already: the gradient runs the loop again instead ([] here)."""
    node = ctx.outputs[0].node if isinstance(ctx.outputs[0], SymbolicTensor) else None
    if node is None or node.op is not Scan:
        return []
    if not node.attrs.get("save"):
        specs = body.saved_specs(wrt)
        if any(None in shape[1:] for shape, _ in specs):
            return []        # only an unknown batch size (leading) is filled in when run
        node.attrs["save"] = wrt
        spec = Scan.output_spec(*node.inputs, **node.attrs)
        first = len(node.outputs)
        node.outputs = node.outputs + tuple(
            SymbolicTensor(s.shape, s.dtype, node=node, index=first + j)
            for j, s in enumerate(spec[first:]))
    if node.attrs["save"] != wrt:
        return []
    return list(node.outputs[body.n_carry + body.n_ys:])


@register_op
class ScanGrad(Op):
    """Backpropagation through time of a :class:`Scan`: inputs are the scan's inputs, one
    cotangent per scan output (carries, stacked outputs), then with ``saved`` the values the
    scan kept for it; outputs the gradients of the inputs numbered in ``wrt``. Created only
    by ``Scan.gradient``; it has no gradient itself (no second order through a scan)."""
    name = "step_loop_grad"
    differentiable = False

    def output_spec(self, *inputs, body=None, go_backwards=False, wrt=(), saved=False):
        if not isinstance(body, StepBody):
            raise TypeError(f"{self.name}: attribute 'body' must be a StepBody; "
                            f"received {body!r}")
        n, m = len(body.inputs), len(body.outputs)
        if not wrt or any(not 0 <= i < n for i in wrt):
            raise ValueError(f"{self.name}: attribute 'wrt' must name inputs in [0, {n}); "
                             f"received {wrt!r}")
        n_saved = len(body.saved_specs(wrt)) if saved else 0
        if len(inputs) != n + m + n_saved:
            raise ValueError(f"{self.name}: expected the scan's {n} inputs, {m} cotangents "
                             f"and {n_saved} saved values; received {len(inputs)} inputs")
        length = _check_inputs(self.name, body, inputs[:n])
        batch = inputs[0].shape[0]
        for i, (g, o) in enumerate(zip(inputs[n:], body.outputs)):
            shape = _batched(o.shape, batch) if i < body.n_carry else \
                _stacked(o.shape, batch, length)
            if tuple(g.shape) != shape:
                raise ShapeError(f"{self.name}: cotangent {i} must have shape "
                                 f"{describe_shape(shape)}; received "
                                 f"{describe_shape(tuple(g.shape))}")
        return tuple(Spec(tuple(inputs[i].shape), inputs[i].dtype) for i in wrt)

    def forward(self, backend, *arrays, out=None, body=None, go_backwards=False, wrt=(),
                saved=False):
        return backprop_through_time(backend, body, go_backwards, wrt, arrays, saved)
