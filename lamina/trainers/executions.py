"""``steps_per_execution``: the batches of an epoch in groups, one group per execution.

Keras 3 runs ``steps_per_execution`` steps per call of the train/test/predict function and
calls the batch callbacks once per call: ``on_*_batch_begin`` with the index of the first
batch of the group and ``on_*_batch_end`` with ``begin + steps_per_execution - 1`` (also
for a short last group, past the epoch's last batch) and the logs of its last step. The
logs of the other steps never leave the device. Here one execution is a loop over the
compiled (or eager) step; only its last logs are converted to Python, so graph mode and
eager mode run the same steps in the same order as with one step per call. How many
batches an epoch draws, and in which groups, is ``epoch_batches``'s business.
"""
from __future__ import annotations


def steps_per_execution(model) -> int:
    return int(getattr(model, "steps_per_execution", 1) or 1)


def run_execution(function, group, to_device):
    """The result of the last of ``function``'s calls on each batch of ``group``, in order."""
    result = None
    for batch in group:
        result = function(to_device(batch))
    return result


__all__ = ["run_execution", "steps_per_execution"]
