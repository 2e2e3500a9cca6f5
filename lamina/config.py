"""Keras 3's ``keras.config``: global settings, in one place.

The settings live in ``lamina.settings`` (the ground of the package, which every part may
read); this module is the public face, with ``backend()`` and the global dtype policy.
``enable_unsafe_deserialization`` makes ``load_model`` accept Lambda layers
whose functions the caller passes by name, as ``safe_mode=False`` does (stored bytecode is
never run either way).
"""
from __future__ import annotations

from .backend import get_backend
from .dtype_policies.dtype_policy import dtype_policy, set_dtype_policy
from .settings import (disable_flash_attention, disable_interactive_logging,
                       disable_traceback_filtering, enable_flash_attention,
                       enable_interactive_logging, enable_traceback_filtering,
                       enable_unsafe_deserialization, epsilon, floatx, image_data_format,
                       is_flash_attention_enabled, is_interactive_logging_enabled,
                       is_traceback_filtering_enabled, max_epochs, max_steps_per_epoch,
                       set_epsilon, set_floatx, set_image_data_format, set_max_epochs,
                       set_max_steps_per_epoch, unsafe_deserialization_enabled)


def backend() -> str:
    """The active backend's name ("numpy" or "cupy")."""
    return get_backend().name


__all__ = ["set_max_epochs", "max_epochs", "set_max_steps_per_epoch", "max_steps_per_epoch",
           "enable_flash_attention", "disable_flash_attention", "is_flash_attention_enabled",
           "enable_traceback_filtering", "disable_traceback_filtering",
           "is_traceback_filtering_enabled", "backend", "epsilon", "floatx", "image_data_format", "set_epsilon", "set_floatx",
           "set_image_data_format", "enable_unsafe_deserialization",
           "unsafe_deserialization_enabled", "enable_interactive_logging",
           "disable_interactive_logging", "is_interactive_logging_enabled", "dtype_policy",
           "set_dtype_policy"]
