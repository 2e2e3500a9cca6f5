"""Any mask of a recurrent layer in ONNX's LSTM / GRU / RNN ops, exactly.

ONNX's ``sequence_lens`` only says "the first n steps of each row are real", which is right
for trailing padding alone. A masked step changes no state, so running the cell over the
kept steps of a row, moved to the front in their order, ends in the same states and passes
through the same outputs as Lamina's masked loop (``lamina/layers/recurrent/rnn_loop.py``)
for any mask: leading, trailing or interior padding, and rows with no kept step. So:

1. ``compact``: the kept steps of each row are gathered to the front (a stable ``TopK`` on
   ``t + padded * T``); ``sequence_lens`` is their count (at least 1: a row with none runs
   one step whose results are then replaced, so the op never sees a length of 0);
2. the op runs forward (``go_backwards`` reverses the inputs and the mask before, so the
   outputs are already in processing order, as Keras returns them);
3. ``results``: the output at step ``t`` is the op's output at kept step
   ``cumsum(mask)[t] - 1``, or the initial output (the first initial state, else zeros)
   before the first kept step; zeros at masked steps with ``zero_output_for_mask``. The
   final states are the op's, or the initial states for a row with no kept step.
"""
from __future__ import annotations

from ..context import onnx_dtype


class MaskPlan:
    """The ONNX names ``compact`` computed for one masked call (all (batch, time) or
    (batch, 1))."""

    def __init__(self, keep, count, kept_any, cumsum):
        self.keep = keep            # bool (B, T), in processing order
        self.count = count          # int32 (B,)
        self.kept_any = kept_any    # bool (B, 1)
        self.cumsum = cumsum        # int64 (B, T)


def reverse_time(ctx, name: str) -> str:
    """``name`` reversed along axis 1."""
    return ctx.add_node("Slice", [name, ctx.ints([-1]), ctx.ints([-2 ** 63]), ctx.ints([1]),
                                  ctx.ints([-1])])


def compact(ctx, x: str, mask: str, go_backwards: bool):
    """``(x with each row's kept steps first, sequence_lens, MaskPlan)`` for the
    (batch, time, features) input ``x`` and the (batch, time) ``mask``."""
    keep = ctx.add_node("Cast", [mask], to=onnx_dtype("bool"))
    if go_backwards:
        x, keep = reverse_time(ctx, x), reverse_time(ctx, keep)
    kept64 = ctx.add_node("Cast", [keep], to=onnx_dtype("int64"))
    length = ctx.add_node("Shape", [keep], start=1, end=2)              # [T], int64
    scalar = ctx.add_node("Squeeze", [length, ctx.ints([0])])
    positions = ctx.add_node("Range", [ctx.constant(0, dtype="int64"), scalar,
                                       ctx.constant(1, dtype="int64")])
    padded = ctx.add_node("Sub", [ctx.constant(1, dtype="int64"), kept64])
    key = ctx.add_node("Add", [ctx.add_node("Mul", [padded, scalar]), positions])
    _, order = ctx.add_node("TopK", [key, length], outputs=2, axis=1, largest=0, sorted=1)
    x = _gather_time(ctx, x, order)
    count = ctx.add_node("Cast", [ctx.add_node("ReduceSum", [kept64, ctx.ints([1])],
                                               keepdims=0)], to=onnx_dtype("int32"))
    seq_lens = ctx.add_node("Max", [count, ctx.constant(1, dtype="int32")])
    kept_any = ctx.add_node("Unsqueeze", [ctx.add_node(
        "Greater", [count, ctx.constant(0, dtype="int32")]), ctx.ints([1])])
    cumsum = ctx.add_node("CumSum", [kept64, ctx.constant(1, dtype="int64")])
    return x, seq_lens, MaskPlan(keep, count, kept_any, cumsum)


def _gather_time(ctx, x: str, index: str) -> str:
    """``x[b, index[b, t], ...]`` for a (batch, time, features) ``x``."""
    expanded = ctx.add_node("Expand", [ctx.add_node("Unsqueeze", [index, ctx.ints([2])]),
                                       ctx.add_node("Shape", [x])])
    return ctx.add_node("GatherElements", [x, expanded], axis=1)


def final_state(ctx, plan: MaskPlan, state: str, initial: str) -> str:
    """The op's final state (batch, units), or ``initial`` for rows with no kept step."""
    return ctx.add_node("Where", [plan.kept_any, state, initial])


def sequence(ctx, plan: MaskPlan, y: str, initial_output: str | None, zero_output: bool,
             zero: str) -> str:
    """The (batch, time, units) outputs in processing order from the op's outputs ``y``
    over the compacted steps (``initial_output`` None: zeros)."""
    index = ctx.add_node("Max", [ctx.add_node("Sub", [plan.cumsum, ctx.constant(
        1, dtype="int64")]), ctx.constant(0, dtype="int64")])
    gathered = _gather_time(ctx, y, index)
    started = ctx.add_node("Unsqueeze", [ctx.add_node(
        "Greater", [plan.cumsum, ctx.constant(0, dtype="int64")]), ctx.ints([2])])
    held = zero if initial_output is None else \
        ctx.add_node("Unsqueeze", [initial_output, ctx.ints([1])])
    out = ctx.add_node("Where", [started, gathered, held])
    if zero_output:
        out = ctx.add_node("Where", [ctx.add_node("Unsqueeze", [plan.keep, ctx.ints([2])]),
                                     out, zero])
    return out


def last_output(ctx, plan: MaskPlan, final_h: str, zero_output: bool, zero: str) -> str:
    """The output at the last processed step: the final output, or zeros where that step
    is masked and ``zero_output_for_mask``."""
    if not zero_output:
        return final_h
    last_kept = ctx.add_node("Slice", [plan.keep, ctx.ints([-1]), ctx.ints([2 ** 62]),
                                       ctx.ints([1])])
    return ctx.add_node("Where", [last_kept, final_h, zero])
