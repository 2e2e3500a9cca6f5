"""How many bytes of weights a model rebuilt from a file may create.

A config is data: ``Dense(units=10**9)`` or a ``build_config`` of ``(10**9, 10**9)`` makes
the rebuild allocate and initialize gigabytes before any weight is read. While a saved
model is rebuilt, ``saving`` sets a budget -- the size of the weights the file holds, plus
slack -- and every Variable created charges its bytes *before* its initializer runs, so a
hostile config is refused at once, naming the file.
"""
from __future__ import annotations

import contextlib
import threading

from ..errors import LaminaError, describe_shape


class WeightBudgetError(LaminaError, ValueError):
    """A model rebuilt from a file declares more weights than the file holds."""


_state = threading.local()


@contextlib.contextmanager
def limited(max_bytes: int, source: str):
    """Within the block, Variables of this thread may total at most ``max_bytes``;
    ``source`` names what sets the limit in the error ("'m.keras' (model.weights.h5 of
    1,234 bytes)")."""
    previous = getattr(_state, "budget", None)
    _state.budget = [max_bytes, max_bytes, source]
    try:
        yield
    finally:
        _state.budget = previous


def charge(shape, itemsize: int, name: str) -> None:
    """Count a new variable of ``shape`` against the active budget (if any)."""
    budget = getattr(_state, "budget", None)
    if budget is None:
        return
    count = 1
    for d in shape:
        count *= int(d)
    needed = count * itemsize
    if needed > budget[0]:
        raise WeightBudgetError(
            f"variable '{name}' of shape {describe_shape(tuple(shape))} needs {needed:,} "
            f"bytes, but the model's weights may total only {budget[1]:,} bytes: "
            f"{budget[2]}. The config declares larger weights than the file stores")
    budget[0] -= needed
