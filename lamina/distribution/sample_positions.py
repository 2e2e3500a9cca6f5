"""Random layers under DataParallel draw by global sample position.

While a data-parallel step runs, a random draw whose first dimension is the batch's rows
(unknown while tracing, or this process's row count in eager mode) goes through the
``random_global_rows`` op with this process's row offset (a Variable set per step), so
Dropout, GaussianNoise and the others give each row the values one process would give it
and a model with them trains as on one process.
"""
from __future__ import annotations

import contextlib

from ..ops import random as random_ops
from ..ops.random_rows import random_global_rows

_ACTIVE = None            # (offset Variable, local rows) while a step runs


@contextlib.contextmanager
def rows_of_step(offset_variable, rows: int):
    global _ACTIVE
    previous, _ACTIVE = _ACTIVE, (offset_variable, int(rows))
    try:
        yield
    finally:
        _ACTIVE = previous


def draw_by_rows(op, inputs, shape, key, attrs):
    """The draw as rows of the global one, or None where it is not over the batch."""
    if _ACTIVE is None or not shape:
        return None
    offset, rows = _ACTIVE
    if shape[0] is not None and shape[0] != rows:
        return None
    counter, *like = inputs
    return random_global_rows(counter, offset, *like, base=op.name, shape=tuple(shape),
                              key=key, **attrs)


def install() -> None:
    random_ops.global_rows_hook = draw_by_rows


__all__ = ["rows_of_step", "draw_by_rows", "install"]
