"""Safe mode: whether the configs being read may name a Python lambda's function.

``load_model(..., safe_mode=...)`` sets it for the whole load with :func:`safe_mode_scope`;
``deserialize_keras_object`` sets it for the objects nested in the one it builds, so a
``Lambda`` layer deep in a model reads the caller's choice with :func:`in_safe_mode`.
"""
from __future__ import annotations

import contextlib
import threading

_SAFE_MODE = threading.local()


@contextlib.contextmanager
def safe_mode_scope(safe_mode: bool):
    """Within the block, configs are read with ``safe_mode`` (``load_model`` sets it)."""
    previous = getattr(_SAFE_MODE, "value", None)
    _SAFE_MODE.value = safe_mode
    try:
        yield
    finally:
        _SAFE_MODE.value = previous


def scoped_safe_mode() -> bool | None:
    """The safe mode an enclosing :func:`safe_mode_scope` set, or None outside any."""
    return getattr(_SAFE_MODE, "value", None)


def in_safe_mode() -> bool:
    """Whether configs are being read in safe mode: True unless ``load_model(...,
    safe_mode=False)`` is running."""
    value = getattr(_SAFE_MODE, "value", None)
    return True if value is None else value
