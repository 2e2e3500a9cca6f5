"""Keras's ``keras.utils.clear_session``."""
from __future__ import annotations

import gc

from ..backend import clear_session as reset


def clear_session(free_memory=True) -> None:
    """Reset Lamina's global state (auto-name counters, compiled-function caches); with
    ``free_memory`` also run Python's garbage collector so the freed arrays go.

    Args:
        free_memory: bool; also run Python's garbage collector (default True).
    """
    reset()
    if free_memory:
        gc.collect()
