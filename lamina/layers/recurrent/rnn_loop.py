"""The time loop of every recurrent layer (Keras's ``backend.rnn``), written with
``lamina.ops`` so eager autograd differentiates it.

Eagerly it is a Python loop. While a graph is traced it becomes one ``scan`` node
(``lamina/ops/step_loop.py``): the step is traced once on placeholders into a sub-graph, so the
graph's size and its compile time do not grow with the number of time steps.
"""
from __future__ import annotations

from ... import ops, tree
from ...graph import trace as graph_trace
from ...core.symbolic import SymbolicTensor
from ...ops.step_loop import bind, capture_step, scan

# A traced step that cannot be the loop body (it draws random numbers or writes variables
# every step) runs unrolled; after this many such steps the rest are not tried as a body.
_BODY_ATTEMPTS = 2


def run_rnn(step, sequences, initial_states: list, mask=None, go_backwards: bool = False,
            zero_output_for_mask: bool = False, return_all_outputs: bool = True,
            unroll: bool = False):
    """Run ``step(inputs_t, states) -> (output_t, new_states)`` over axis 1 of ``sequences``.

    Returns ``(last_output, outputs, final_states)``; ``outputs`` is ``(batch, time, ...)``
    in processing order (so reversed when ``go_backwards``), or None unless
    ``return_all_outputs``. Where ``mask[:, t]`` is False the states carry over unchanged
    and the output repeats the previous one (zeros with ``zero_output_for_mask``), as in
    Keras; the previous output starts as the first state (of the last cell for stacked
    cells), which is the output of the built-in cells. With ``unroll`` a traced graph gets
    the Python loop's nodes (one step per timestep) instead of one ``scan`` node.
    """
    if graph_trace.active() is not None and sequences.shape[1] is not None and not unroll:
        return _traced_rnn(step, sequences, initial_states, mask, go_backwards,
                           zero_output_for_mask, return_all_outputs)
    steps = ops.unstack(sequences, axis=1)
    masks = ops.unstack(mask, axis=1) if mask is not None else None
    order = range(len(steps) - 1, -1, -1) if go_backwards else range(len(steps))
    states = initial_states
    previous = _first_state(states)
    outputs, output = [], None
    for t in order:
        output, new_states = step(steps[t], states)
        keep = masks[t] if masks is not None else None
        if keep is not None and (previous is None or previous.shape != output.shape):
            previous = ops.zeros_like(output)
        output, new_states = _merge(output, new_states, keep, previous, states,
                                    zero_output_for_mask)
        previous, states = output, new_states
        if return_all_outputs:
            outputs.append(output)
    sequence = ops.stack(outputs, axis=1) if return_all_outputs else None
    return output, sequence, states


def _merge(output, new_states, keep, previous, states, zero_output_for_mask: bool):
    """The step's results where ``keep`` (a (batch,) mask, or None) is True, else the
    previous output (zeros with ``zero_output_for_mask``) and the old states."""
    new_states = _as_list(new_states)
    if keep is None:
        return output, new_states
    if zero_output_for_mask:
        previous = ops.zeros_like(output)
    output = ops.where(_expand(keep, output), output, previous)
    merged = [ops.where(_expand(keep, new), new, old)
              for new, old in zip(tree.flatten(new_states), tree.flatten(states))]
    return output, tree.pack_sequence_as(states, merged)


def _traced_rnn(step, sequences, states, mask, go_backwards, zero_output_for_mask,
                return_all_outputs):
    """The loop while tracing: the step is traced on placeholders; if it can repeat as a
    loop body, the remaining steps become one scan node, else the placeholders are bound to
    this step's inputs (an unrolled step) and the next step is tried. A step that creates
    per-sequence state on its first call (a cell's dropout masks) is thus unrolled once."""
    trace = graph_trace.active()
    length = sequences.shape[1]
    order = list(range(length - 1, -1, -1)) if go_backwards else list(range(length))
    previous, outputs, output = _first_state(states), [], None
    for k, t in enumerate(order):
        x_t = SymbolicTensor((sequences.shape[0], *sequences.shape[2:]), sequences.dtype,
                             name="x_t")
        keep = None if mask is None else SymbolicTensor((mask.shape[0],), mask.dtype)
        flat = tree.flatten(states)
        carried = [SymbolicTensor(s.shape, s.dtype, name="state") for s in flat]
        old_states = tree.pack_sequence_as(states, carried)
        writes = _writes(trace)
        raw, new_states = step(x_t, old_states)
        prev = SymbolicTensor(raw.shape, raw.dtype, name="previous_output")
        output, new_states = _merge(raw, new_states, keep, prev, old_states,
                                    zero_output_for_mask)
        new_flat = tree.flatten(new_states)
        if k < _BODY_ATTEMPTS and _writes(trace) == writes and _same_specs(
                [prev, *carried], [output, *new_flat]):
            initial = previous if _same_specs([previous], [raw]) else _zeros(raw)
            captured = None if initial is None else capture_step(
                [x_t] + ([keep] if keep is not None else []), [prev, *carried],
                [output, *new_flat], [output] if return_all_outputs else [])
            if captured is not None:
                body, constants = captured
                rest = _remaining(sequences, k, go_backwards)
                if mask is not None:
                    rest.append(_remaining(mask, k, go_backwards)[0])
                finals, stacked = scan(body, rest, [initial, *flat], constants,
                                       go_backwards=go_backwards)
                if return_all_outputs:
                    outputs.append(stacked[0])
                return finals[0], _joined(outputs, return_all_outputs), \
                    tree.pack_sequence_as(new_states, finals[1:])
        bind(x_t, sequences[:, t])
        if keep is not None:
            bind(keep, mask[:, t])
        for placeholder, value in zip(carried, flat):
            bind(placeholder, value)
        usable = _same_specs([previous], [raw])
        bind(prev, previous if usable else ops.zeros_like(raw))
        previous, states = output, new_states
        if return_all_outputs:
            outputs.append(ops.expand_dims(output, 1))
    return output, _joined(outputs, return_all_outputs), states


def _joined(outputs: list, return_all_outputs: bool):
    if not return_all_outputs:
        return None
    return outputs[0] if len(outputs) == 1 else ops.concatenate(outputs, axis=1)


def _writes(trace) -> tuple:
    """What the trace has assigned so far (a step that writes variables is no loop body)."""
    return tuple((key, id(value)) for key, (_, value) in trace.updates.items())


def _same_specs(placeholders, values) -> bool:
    return len(placeholders) == len(values) and all(
        p is not None and v is not None and tuple(p.shape) == tuple(v.shape) and
        p.dtype == v.dtype for p, v in zip(placeholders, values))


def _zeros(like):
    """Concrete zeros of ``like``'s spec (the first previous output), or None if a size is
    unknown."""
    return None if None in tuple(like.shape) else ops.zeros(like.shape, like.dtype)


def _remaining(sequence, done: int, go_backwards: bool) -> list:
    """The part of ``sequence`` whose time steps have not run after ``done`` steps."""
    if done == 0:
        return [sequence]
    length = sequence.shape[1]
    return [sequence[:, :length - done] if go_backwards else sequence[:, done:]]


def symbolic_rnn(step, sequences, initial_states: list, return_all_outputs: bool = True):
    """Output specs for symbolic ``sequences`` whose number of timesteps is unknown: one
    step gives the per-step shapes, broadcast along a time axis of unknown size."""
    output, states = step(sequences[:, 0], initial_states)
    sequence = over_time(sequences, output) if return_all_outputs else None
    return output, sequence, _as_list(states)


def over_time(sequences, step_output):
    """A symbolic ``(batch, time, *step_output.shape[1:])`` spec, connected to both
    arguments: zeros of ``(batch, time, 1, ...)`` plus ``step_output`` on a new time axis.
    Only for shapes: its values are ``step_output`` at every step."""
    time_axis = ops.zeros_like(ops.sum(sequences, axis=tuple(range(2, sequences.ndim))))
    for _ in range(step_output.ndim - 1):
        time_axis = ops.expand_dims(time_axis, -1)
    return ops.add(time_axis, ops.expand_dims(step_output, 1))


def _as_list(states) -> list:
    return list(states) if tree.is_nested(states) else [states]


def _first_state(states):
    first = states[0] if states else None
    if tree.is_nested(first):                   # stacked cells: the last cell's first state
        first = tree.flatten(states[-1])[0]
    return first


def _expand(keep, like):
    """The (batch,) mask ``keep`` as (batch, 1, ..., 1), to select rows of ``like``."""
    for _ in range(like.ndim - 1):
        keep = ops.expand_dims(keep, -1)
    return keep
