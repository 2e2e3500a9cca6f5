"""Global settings at the ground of the package: the fuzz factor ``epsilon``, the image data
format, the default float dtype (``floatx``, kept in ``dtypes``), the hooks that
``clear_session`` runs, and the switches of Keras's ``keras.config`` (unsafe
deserialization, interactive logging, debugging caps, flash attention, traceback
filtering). Every part may read them; ``lamina.config`` (Keras's
``keras.config``) and ``lamina.backend`` (``keras.backend``) re-export them."""
from __future__ import annotations

import os
import warnings
from typing import Callable

from .dtypes import floatx, set_floatx


# The package version (lamina.__version__; written into saved files).
VERSION = "0.1.0"
_epsilon = 1e-7
_clear_hooks: list[Callable[[], None]] = []


def epsilon() -> float:
    """The fuzz factor added to denominators (Keras's default 1e-7)."""
    return _epsilon


def set_epsilon(value: float) -> None:
    """Set the fuzz factor added to denominators (default ``1e-7``).

    Args:
        value: a float, e.g. ``1e-5``.
    """
    global _epsilon
    _epsilon = float(value)


_image_data_format = "channels_last"


def image_data_format() -> str:
    """The default ``data_format`` of image layers and ops (Keras's default
    "channels_last"); every layer and op also takes ``data_format=`` explicitly."""
    return _image_data_format


def set_image_data_format(data_format: str) -> None:
    """Set the default ``data_format`` of image layers and ops.

    Args:
        data_format: ``"channels_last"`` (the default) or ``"channels_first"``.
    """
    global _image_data_format
    value = str(data_format).lower()
    if value not in ("channels_last", "channels_first"):
        raise ValueError("set_image_data_format: the `data_format` argument must be one of "
                         f"'channels_last', 'channels_first'; received {data_format!r}")
    _image_data_format = value


def register_clear_hook(fn: Callable[[], None]) -> None:
    """Let a module (layer names, trace caches, the global dtype policy) reset its state in
    ``clear_session``."""
    _clear_hooks.append(fn)


def run_clear_hooks() -> None:
    for fn in _clear_hooks:
        fn()


# ------------------------------------------------------------- keras.config's switches
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
    """Whether progress bars and messages are written to stdout (the default).

    Returns:
        A bool; see ``enable_interactive_logging`` and ``disable_interactive_logging``.
    """
    return _interactive_logging


def _limit(function, arg, value):
    if value is not None and (isinstance(value, bool) or not isinstance(value, int)
                              or value < 1):
        raise ValueError(f"{function}: argument '{arg}' must be a positive int or None; "
                         f"received {value!r}")
    return value


def set_max_epochs(max_epochs) -> None:
    """Cap every ``fit`` at ``max_epochs`` epochs (None: no cap), for quick debugging runs;
    also set by the ``KERAS_MAX_EPOCHS`` environment variable.

    Args:
        max_epochs: a positive int, or None to remove the cap.

    Raises:
        ValueError: for anything else.
    """
    global _max_epochs
    _max_epochs = _limit("set_max_epochs", "max_epochs", max_epochs)


def max_epochs():
    """The cap on the epochs of every ``fit`` set by ``set_max_epochs`` (None: no cap).

    Returns:
        An int or None.
    """
    return _max_epochs


def set_max_steps_per_epoch(max_steps_per_epoch) -> None:
    """Cap every epoch of fit, validation, evaluate and predict at ``max_steps_per_epoch``
    steps (None: no cap); also set by ``KERAS_MAX_STEPS_PER_EPOCH``.

    Args:
        max_steps_per_epoch: a positive int, or None to remove the cap.

    Raises:
        ValueError: for anything else.
    """
    global _max_steps_per_epoch
    _max_steps_per_epoch = _limit("set_max_steps_per_epoch", "max_steps_per_epoch",
                                  max_steps_per_epoch)


def max_steps_per_epoch():
    """The cap on the steps of every epoch set by ``set_max_steps_per_epoch`` (None: no cap).

    Returns:
        An int or None.
    """
    return _max_steps_per_epoch


def enable_flash_attention() -> None:
    """Accepted for Keras scripts. Lamina has no flash-attention kernel on numpy or cupy:
    attention always runs the standard computation (the same numbers), so this warns once."""
    global _flash_attention
    _flash_attention = True
    _warn_no_effect("enable_flash_attention", "Lamina has no flash-attention kernel; "
                    "attention computes the same result the standard way")


def disable_flash_attention() -> None:
    """Turn flash attention off for attention layers (Keras's switch; Lamina has no
    flash-attention kernel, so attention always runs the plain way).
    """
    global _flash_attention
    _flash_attention = False


def is_flash_attention_enabled():
    """True, False, or None (Keras's default: not set either way)."""
    return _flash_attention


def enable_traceback_filtering() -> None:
    """Errors raised through Lamina's entry points (layer and op calls, fit / evaluate /
    predict, saving and loading) show only the frames outside Lamina (the default, as in
    Keras; see ``lamina/traceback_filter.py``)."""
    global _traceback_filtering
    _traceback_filtering = True


def disable_traceback_filtering() -> None:
    """Show Lamina's own frames in tracebacks again, and the exceptions an error was
    raised while handling."""
    global _traceback_filtering
    _traceback_filtering = False


def is_traceback_filtering_enabled() -> bool:
    """Whether Lamina's own frames are hidden from tracebacks (the default).

    Returns:
        A bool; see ``enable_traceback_filtering``.
    """
    return _traceback_filtering


def env_seconds(variable: str, default: float, owner: str, error: type = ValueError) -> float:
    """A positive, finite number of seconds from the environment variable ``variable``
    (``default`` when unset or blank): the bound of a wait (collectives, input workers,
    TensorBoard's writer, graphviz). Anything else is ``error`` naming ``owner``, the
    variable and the value."""
    text = os.environ.get(variable, "")
    if not text.strip():
        return default
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not 0 < value < float("inf"):
        raise error(f"{owner}: environment variable {variable} must be a positive number of "
                    f"seconds; received {text!r}")
    return value
