"""Keras's batch convention: ``x``, ``(x,)``, ``(x, y)`` or ``(x, y, sample_weight)``."""
from __future__ import annotations


def pack_x_y_sample_weight(x, y=None, sample_weight=None):
    """The batch tuple for these parts: ``x`` alone stays ``x`` (a tuple or list ``x`` is
    wrapped as ``(x,)`` so it is not read as ``(x, y)``).

    Args:
        x: the inputs.
        y: the targets, or None.
        sample_weight: the sample weights, or None.

    Returns:
        ``x``, ``(x,)``, ``(x, y)`` or ``(x, y, sample_weight)``.
    """
    if y is None:
        return (x,) if isinstance(x, (tuple, list)) else x
    if sample_weight is None:
        return (x, y)
    return (x, y, sample_weight)


def unpack_x_y_sample_weight(data):
    """``(x, y, sample_weight)`` from a batch, with None for the missing parts; a list is
    read as a tuple.

    Args:
        data: a batch: ``x``, or a tuple or list ``(x,)``, ``(x, y)`` or
            ``(x, y, sample_weight)``.

    Returns:
        A tuple ``(x, y, sample_weight)``.
    """
    if isinstance(data, list):
        data = tuple(data)
    if not isinstance(data, tuple):
        return (data, None, None)
    if len(data) == 1:
        return (data[0], None, None)
    if len(data) == 2:
        return (data[0], data[1], None)
    if len(data) == 3:
        return (data[0], data[1], data[2])
    raise ValueError(f"Data is expected to be in format `x`, `(x,)`, `(x, y)`, or "
                     f"`(x, y, sample_weight)`, found: {data}")
