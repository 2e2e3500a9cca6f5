"""Two per-step extras of the base optimizer, written as ops on its variables:

* the exponential moving average of the trained weights (``use_ema=True``), optionally
  copied into the weights every ``ema_overwrite_frequency`` steps;
* gradient accumulation (``gradient_accumulation_steps=N``): gradients are summed for N
  calls and the averaged gradient is applied on every N-th call.

Neither uses Python control flow on tensor values: a step is the same ops every time,
and on steps that must not change a variable its writes select the old value.
"""
from __future__ import annotations

from .. import ops


def update_moving_averages(optimizer, variables, averages) -> None:
    """``average = m * average + (1 - m) * variable``, with ``m = 0`` on the first step
    (the average starts as the weights) and ``ema_momentum`` afterwards."""
    not_first_step = ops.not_equal(optimizer.iterations, 0)
    for variable, average in zip(variables, averages):
        momentum = ops.multiply(ops.cast(not_first_step, average.dtype),
                                optimizer.ema_momentum)
        average.assign(ops.add(ops.multiply(momentum, average),
                               ops.multiply(ops.subtract(1.0, momentum), variable)))
    frequency = optimizer.ema_overwrite_frequency
    if frequency:
        overwrite = ops.equal(ops.mod(ops.add(optimizer.iterations, 1), frequency), 0)
        for variable, average in zip(variables, averages):
            variable.assign(ops.where(overwrite, average, variable))


def accumulate_gradients(optimizer, gradients, accumulators):
    """Add this call's gradients to the accumulators and return ``(is_update_step,
    averaged gradients)``; on an update step the accumulators are reset to zero."""
    steps = optimizer.gradient_accumulation_steps
    is_update_step = ops.equal(ops.mod(ops.add(optimizer._iterations, 1), steps), 0)
    averaged = []
    for gradient, accumulator in zip(gradients, accumulators):
        total = ops.add(gradient, accumulator)
        averaged.append(ops.divide(total, float(steps)))
        accumulator.assign(ops.where(is_update_step, 0.0, total))
    return is_update_step, averaged
