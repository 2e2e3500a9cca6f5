"""Keras 3's ``keras.config``: global settings, in one place.

``floatx``/``epsilon``/``image_data_format`` live in ``lamina.backend`` (these are the same
functions); ``enable_unsafe_deserialization`` makes ``load_model`` accept Lambda layers
whose functions the caller passes by name, as ``safe_mode=False`` does (stored bytecode is
never run either way).
"""
from __future__ import annotations

import os
import warnings

from .backend import (
    epsilon, floatx, get_backend, image_data_format, set_epsilon, set_floatx, set_image_data_format
)
from .dtype_policies.dtype_policy import dtype_policy, set_dtype_policy

_unsafe_deserialization = False
_interactive_logging = True
_flash_attention = None          # Keras's default: None, "use it where it is supported"
_traceback_filtering = True


_warned = set()


def _warn_no_effect(function: str, reason: str) -> None:
    if function not in _warned:
        _warned.add(function)
        warnings.warn(f"keras.config.{function}() has no effect in Lamina: {reason}",
                      UserWarning, stacklevel=3)


def _env_int(name):
    value = os.environ.get(name)
    return int(value) if value else None


_max_epochs = _env_int("KERAS_MAX_EPOCHS")
_max_steps_per_epoch = _env_int("KERAS_MAX_STEPS_PER_EPOCH")


def backend() -> str:
    """The active backend's name ("numpy" or "cupy")."""
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


def _limit(function, arg, value):
    if value is not None and (isinstance(value, bool) or not isinstance(value, int)
                              or value < 1):
        raise ValueError(f"{function}: argument '{arg}' must be a positive int or None; "
                         f"received {value!r}")
    return value


def set_max_epochs(max_epochs) -> None:
    """Cap every ``fit`` at ``max_epochs`` epochs (None: no cap), for quick debugging runs;
    also set by the ``KERAS_MAX_EPOCHS`` environment variable."""
    global _max_epochs
    _max_epochs = _limit("set_max_epochs", "max_epochs", max_epochs)


def max_epochs():
    return _max_epochs


def set_max_steps_per_epoch(max_steps_per_epoch) -> None:
    """Cap every epoch of fit, validation, evaluate and predict at ``max_steps_per_epoch``
    steps (None: no cap); also set by ``KERAS_MAX_STEPS_PER_EPOCH``."""
    global _max_steps_per_epoch
    _max_steps_per_epoch = _limit("set_max_steps_per_epoch", "max_steps_per_epoch",
                                  max_steps_per_epoch)


def max_steps_per_epoch():
    return _max_steps_per_epoch


def enable_flash_attention() -> None:
    """Accepted for Keras scripts. Lamina has no flash-attention kernel on numpy or cupy:
    attention always runs the standard computation (the same numbers), so this warns once."""
    global _flash_attention
    _flash_attention = True
    _warn_no_effect("enable_flash_attention", "Lamina has no flash-attention kernel; "
                    "attention computes the same result the standard way")


def disable_flash_attention() -> None:
    global _flash_attention
    _flash_attention = False


def is_flash_attention_enabled():
    """True, False, or None (Keras's default: not set either way)."""
    return _flash_attention


def enable_traceback_filtering() -> None:
    """Keras trims its own frames from tracebacks. Lamina raises its typed errors at the
    API boundary and keeps tracebacks whole, so the setting is recorded but filters
    nothing; enabling it warns once."""
    global _traceback_filtering
    _traceback_filtering = True
    _warn_no_effect("enable_traceback_filtering", "Lamina does not filter tracebacks")


def disable_traceback_filtering() -> None:
    global _traceback_filtering
    _traceback_filtering = False


def is_traceback_filtering_enabled() -> bool:
    return _traceback_filtering


__all__ = ["set_max_epochs", "max_epochs", "set_max_steps_per_epoch", "max_steps_per_epoch",
           "enable_flash_attention", "disable_flash_attention", "is_flash_attention_enabled",
           "enable_traceback_filtering", "disable_traceback_filtering",
           "is_traceback_filtering_enabled", "backend", "epsilon", "floatx", "image_data_format", "set_epsilon", "set_floatx",
           "set_image_data_format", "enable_unsafe_deserialization",
           "unsafe_deserialization_enabled", "enable_interactive_logging",
           "disable_interactive_logging", "is_interactive_logging_enabled", "dtype_policy",
           "set_dtype_policy"]
