"""The time loop of every recurrent layer (Keras's ``backend.rnn``), written with
``lamina.ops`` so eager autograd differentiates it. All per-step work happens in ``step``
(the cell), so a graph pass can later replace this loop by one scan op."""
from __future__ import annotations

from ... import ops, tree


def run_rnn(step, sequences, initial_states: list, mask=None, go_backwards: bool = False,
            zero_output_for_mask: bool = False, return_all_outputs: bool = True):
    """Run ``step(inputs_t, states) -> (output_t, new_states)`` over axis 1 of ``sequences``.

    Returns ``(last_output, outputs, final_states)``; ``outputs`` is ``(batch, time, ...)``
    in processing order (so reversed when ``go_backwards``), or None unless
    ``return_all_outputs``. Where ``mask[:, t]`` is False the states carry over unchanged
    and the output repeats the previous one (zeros with ``zero_output_for_mask``), as in
    Keras; the previous output starts as the first state (of the last cell for stacked
    cells), which is the output of the built-in cells.
    """
    steps = ops.unstack(sequences, axis=1)
    masks = ops.unstack(mask, axis=1) if mask is not None else None
    order = range(len(steps) - 1, -1, -1) if go_backwards else range(len(steps))
    states = initial_states
    previous = _first_state(states)
    outputs, output = [], None
    for t in order:
        output, new_states = step(steps[t], states)
        new_states = _as_list(new_states)
        if masks is not None:
            keep = masks[t]
            if zero_output_for_mask or previous is None or previous.shape != output.shape:
                previous = ops.zeros_like(output)
            output = ops.where(_expand(keep, output), output, previous)
            merged = [ops.where(_expand(keep, new), new, old)
                      for new, old in zip(tree.flatten(new_states), tree.flatten(states))]
            new_states = tree.pack_sequence_as(states, merged)
        previous, states = output, new_states
        if return_all_outputs:
            outputs.append(output)
    sequence = ops.stack(outputs, axis=1) if return_all_outputs else None
    return output, sequence, states


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
