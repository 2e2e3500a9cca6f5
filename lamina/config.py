"""Keras 3's ``keras.config``: global settings, in one place.

``floatx``/``epsilon``/``image_data_format`` live in ``lamina.backend`` (these are the same
functions); ``enable_unsafe_deserialization`` makes ``load_model`` accept Lambda layers
whose functions the caller passes by name, as ``safe_mode=False`` does (stored bytecode is
never run either way).
"""
from __future__ import annotations

from .backend import (epsilon, floatx, image_data_format, set_epsilon, set_floatx,
                      set_image_data_format)
from .dtype_policies.dtype_policy import dtype_policy, set_dtype_policy

_unsafe_deserialization = False
_interactive_logging = True


def backend() -> str:
    """The active backend's name ("numpy" or "cupy")."""
    from .backend import get_backend
    return get_backend().name


def enable_unsafe_deserialization() -> None:
    """From now on ``load_model`` behaves as with ``safe_mode=False``."""
    global _unsafe_deserialization
    _unsafe_deserialization = True


def unsafe_deserialization_enabled() -> bool:
    return _unsafe_deserialization


def enable_interactive_logging() -> None:
    """Progress bars and per-epoch lines are printed (the default)."""
    global _interactive_logging
    _interactive_logging = True


def disable_interactive_logging() -> None:
    """fit/evaluate/predict print nothing, whatever ``verbose`` says."""
    global _interactive_logging
    _interactive_logging = False


def is_interactive_logging_enabled() -> bool:
    return _interactive_logging


__all__ = ["backend", "epsilon", "floatx", "image_data_format", "set_epsilon", "set_floatx",
           "set_image_data_format", "enable_unsafe_deserialization",
           "unsafe_deserialization_enabled", "enable_interactive_logging",
           "disable_interactive_logging", "is_interactive_logging_enabled", "dtype_policy",
           "set_dtype_policy"]
