"""Backpropagation through time: the forward of ``ScanGrad`` (``lamina/ops/step_loop.py``).

The step's backward program (``StepBody.backward``) runs in reverse time order, carrying
the carries' cotangents from step to step, writing each time step's sequence gradient into
place and summing the constants' gradients (a cell's weights) over time. The forward
values it reads come from the scan node (its ``save`` outputs) or, when the scan ran
eagerly without them, from running the step forward over time again first.
"""
from __future__ import annotations


def _time_step(backend, sequence, t: int):
    return backend.getitem(sequence, (slice(None), t))


def backprop_through_time(backend, body, go_backwards: bool, wrt, arrays,
                          saved: bool) -> tuple:
    n_in, n_seq, n_carry = len(body.inputs), body.n_seq, body.n_carry
    first_const = n_seq + n_carry
    inputs = arrays[:n_in]
    cotangents = arrays[n_in:n_in + len(body.outputs)]
    sequences, constants = inputs[:n_seq], list(inputs[first_const:])
    length = sequences[0].shape[1]
    order = list(range(length - 1, -1, -1)) if go_backwards else list(range(length))
    backward, kept = body.backward(wrt)
    fed = body.forward.input_slots[:n_seq] + body.forward.input_slots[first_const:]
    if saved:
        stacks = arrays[n_in + len(body.outputs):]
        values = [[backend.getitem(s, (k, Ellipsis)) for s in stacks] for k in range(length)]
    else:
        values = _run_forward(backend, body, kept, sequences, inputs[n_seq:first_const],
                              constants, order)

    wanted = set(wrt)
    sums = {i: backend.full(inputs[i].shape, 0, inputs[i].dtype) for i in wanted
            if i < n_seq or i >= first_const}
    d_carries, d_stacked = list(cotangents[:n_carry]), cotangents[n_carry:]
    zeros: dict[int, object] = {}
    for k in range(length - 1, -1, -1):
        slots = list(backward.template)
        for i, value in zip(kept, values[k]):
            slots[i] = value
        values[k] = None
        for i, value in zip(fed, [_time_step(backend, s, order[k]) for s in sequences]
                            + constants):
            slots[i] = value
        step_cotangents = d_carries + [_time_step(backend, d, k) for d in d_stacked]
        for i, value in zip(backward.input_slots, step_cotangents):
            slots[i] = value
        grads = backward.run(backend, slots)
        for i in wanted:
            g = grads[i]
            if g is None or n_seq <= i < first_const:
                continue
            if i < n_seq:
                backend.copy_(_time_step(backend, sums[i], order[k]), g)
            else:
                backend.binary("add", sums[i], g, out=sums[i])
        d_carries = [grads[n_seq + j] if grads[n_seq + j] is not None
                     else _zeros(backend, zeros, j, inputs[n_seq + j])
                     for j in range(n_carry)]
    for j in range(n_carry):
        if n_seq + j in wanted:           # a copy: it may alias a cotangent or a saved value
            sums[n_seq + j] = backend.cast(d_carries[j], str(d_carries[j].dtype))
    return tuple(sums[i] for i in wrt)


def _run_forward(backend, body, kept, sequences, carries, constants, order) -> list:
    """Per time step, the forward values the backward program reads."""
    carries, values = list(carries), []
    for t in order:
        outputs, slots = body.forward(backend, [_time_step(backend, s, t) for s in sequences]
                                      + carries + constants)
        values.append([slots[i] for i in kept])
        carries = outputs[:body.n_carry]
    return values


def _zeros(backend, cache: dict, j: int, like):
    if j not in cache:
        cache[j] = backend.full(like.shape, 0, like.dtype)
    return cache[j]
