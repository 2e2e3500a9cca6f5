"""Keras 3's ``keras.device(device_name)``: run what is inside on a device. "cpu" means the
numpy backend and "gpu"/"cuda" (with an optional ":index", where only 0 exists per process
here) the cupy backend; a missing cupy gives the error naming the extra to install."""
from __future__ import annotations

import contextlib

from . import use

_KINDS = {"cpu": "numpy", "gpu": "cupy", "cuda": "cupy"}


@contextlib.contextmanager
def device(device_name):
    """Scope placing new tensors on a device (Keras's ``keras.device``).

    Args:
        device_name: ``"cpu"``, ``"gpu"`` / ``"cuda"`` or ``"gpu:0"`` (one GPU per
            process): inside the scope ops run on the cupy backend for a GPU, on
            numpy for ``"cpu"``.

    Returns:
        A context manager.

    Example:

    >>> with lamina.device("cpu"):
    ...     x = lamina.ops.ones((2, 2))
    """
    if not isinstance(device_name, str):
        raise ValueError(f"device: argument 'device_name' must be a string such as 'cpu' or "
                         f"'gpu:0'; received {device_name!r}")
    kind, _, index = device_name.lower().partition(":")
    if kind not in _KINDS or (index and index != "0"):
        raise ValueError(f"device: argument 'device_name' must be 'cpu', 'gpu' or 'cuda', "
                         f"optionally with ':0'; received {device_name!r}")
    with use(_KINDS[kind]):
        yield
