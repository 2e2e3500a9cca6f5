"""``TerminateOnNaN``: stop training when the loss becomes NaN or infinite (Keras 3)."""
from __future__ import annotations

import math

from ..registry import register_builtin
from .callback import Callback


@register_builtin
class TerminateOnNaN(Callback):
    """Stop training when the loss becomes NaN or infinite.

    After each training batch, a NaN or infinite ``loss`` prints
    ``Batch N: Invalid loss, terminating training`` and sets ``model.stop_training`` (the
    epoch ends there and every callback's ``on_epoch_end``/``on_train_end`` still runs).

    Args:
        raise_error: If ``True``, raise a ``RuntimeError`` at once instead, so no later
            hook runs (useful to keep a BackupAndRestore backup of the last good epoch).
            Defaults to ``False``.

    Example:

    >>> model.fit(x, y, callbacks=[TerminateOnNaN()])
    """

    _keras_module = "keras.callbacks"

    def __init__(self, raise_error: bool = False):
        super().__init__()
        if not isinstance(raise_error, bool):
            raise TypeError(f"TerminateOnNaN: argument 'raise_error' must be True or False; "
                            f"received {raise_error!r}")
        self.raise_error = raise_error

    def on_batch_end(self, batch, logs=None):
        loss = (logs or {}).get("loss")
        if loss is None:
            return
        loss = float(loss)
        if math.isnan(loss) or math.isinf(loss):
            if self.raise_error:
                raise RuntimeError(f"NaN or Inf loss encountered at batch {batch}. Loss "
                                   f"value: {loss}. Terminating training immediately.")
            print(f"Batch {batch}: Invalid loss, terminating training", flush=True)
            self.model.stop_training = True

    def get_config(self) -> dict:
        return {"raise_error": self.raise_error}

    @classmethod
    def from_config(cls, config: dict) -> "TerminateOnNaN":
        return cls(**config)
