"""``steps_per_execution``: the batches of an epoch in groups, one group per execution.

Keras 3 runs ``steps_per_execution`` steps per call of the train/test/predict function and
calls the batch callbacks once per call: ``on_*_batch_begin`` with the index of the first
batch of the group and ``on_*_batch_end`` with the index of its last batch and the logs of
its last step. The logs of the other steps never leave the device. Here one execution is a
loop over the compiled (or eager) step; only its last logs are converted to Python, so
graph mode and eager mode run the same steps in the same order as with one step per call.
The last group of an epoch may be shorter; its end index is still
``begin + steps_per_execution - 1``, as in Keras 3 (past the epoch's last batch).
"""
from __future__ import annotations


def steps_per_execution(model) -> int:
    return int(getattr(model, "steps_per_execution", 1) or 1)


def executions(batches, size: int, skip: int = 0):
    """``(begin, begin + size - 1, group)`` for consecutive groups of at most ``size`` of
    ``batches``; the first ``skip`` batches are drawn and dropped (trained before
    the backup a fit resumed from)."""
    group, begin = [], skip
    for step, batch in enumerate(batches):
        if step < skip:
            continue
        if not group:
            begin = step
        group.append(batch)
        if len(group) == size:
            yield begin, step, group
            group = []
    if group:
        yield begin, begin + size - 1, group


def run_execution(function, group, to_device):
    """The result of the last of ``function``'s calls on each batch of ``group``, in order."""
    result = None
    for batch in group:
        result = function(to_device(batch))
    return result


__all__ = ["executions", "run_execution", "steps_per_execution"]
