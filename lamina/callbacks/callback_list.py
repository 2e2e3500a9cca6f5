"""``CallbackList``: calls every callback's hook in order."""
from __future__ import annotations

from ..distribution.strategies import is_chief
from .callback import Callback
from .history import History
from .progbar_logger import ProgbarLogger


class CallbackList(Callback):
    """A container that calls the hook of every callback it holds, in order.

    ``fit``, ``evaluate`` and ``predict`` build one: the user's callbacks, then
    ``History`` and ``ProgbarLogger`` (Keras 3's order). Under ``DataParallel`` the
    callbacks that only write logs run on process 0 alone.

    Args:
        callbacks: A list of ``lamina.callbacks.Callback`` instances (or ``None``).
        add_history: If ``True``, add a ``History`` callback unless one is already in
            ``callbacks``; it becomes ``model.history``.
        add_progbar: If ``True``, add a ``ProgbarLogger`` unless one is already in
            ``callbacks``.
        model: The model the callbacks are attached to (``set_model``), or ``None``.
        **params: Training parameters (``epochs``, ``steps``, ``verbose``, ...) passed
            to every callback's ``set_params``.

    Raises:
        TypeError: If an element of ``callbacks`` is not a ``Callback``.

    Example:

    >>> callbacks = CallbackList([EarlyStopping()], add_history=True, model=model,
    ...                          epochs=10, steps=100, verbose=1)
    >>> callbacks.on_train_begin()
    """

    def __init__(self, callbacks=None, add_history=False, add_progbar=False, model=None,
                 **params):
        super().__init__()
        self.callbacks = list(callbacks or [])
        if not is_chief():       # DataParallel: loggers that only write run on process 0
            self.callbacks = [c for c in self.callbacks if not getattr(c, "chief_only", False)]
        for callback in self.callbacks:
            if not isinstance(callback, Callback):
                raise TypeError(f"callbacks must be lamina.callbacks.Callback instances; "
                                f"received {type(callback).__name__}")
        if add_history and not any(isinstance(c, History) for c in self.callbacks):
            self.callbacks.append(History())
        if add_progbar and not any(isinstance(c, ProgbarLogger) for c in self.callbacks):
            self.callbacks.append(ProgbarLogger())
        if model is not None:
            self.set_model(model)
        self.set_params(params)

    def set_model(self, model) -> None:
        super().set_model(model)
        for callback in self.callbacks:
            callback.set_model(model)
            if isinstance(callback, History):
                model.history = callback

    def set_params(self, params: dict) -> None:
        super().set_params(params)
        for callback in self.callbacks:
            callback.set_params(params)

    def _call(self, hook: str, *args) -> None:
        for callback in self.callbacks:
            getattr(callback, hook)(*args)

    def on_train_begin(self, logs=None):
        self._call("on_train_begin", logs or {})

    def on_train_end(self, logs=None):
        self._call("on_train_end", logs or {})

    def on_epoch_begin(self, epoch, logs=None):
        self._call("on_epoch_begin", epoch, logs or {})

    def on_epoch_end(self, epoch, logs=None):
        self._call("on_epoch_end", epoch, logs if logs is not None else {})

    def on_train_batch_begin(self, batch, logs=None):
        for callback in self.callbacks:
            callback.on_train_batch_begin(batch, logs or {})
            callback.on_batch_begin(batch, logs or {})

    def on_train_batch_end(self, batch, logs=None):
        for callback in self.callbacks:
            callback.on_train_batch_end(batch, logs or {})
            callback.on_batch_end(batch, logs or {})

    def on_test_begin(self, logs=None):
        self._call("on_test_begin", logs or {})

    def on_test_end(self, logs=None):
        self._call("on_test_end", logs or {})

    def on_test_batch_begin(self, batch, logs=None):
        self._call("on_test_batch_begin", batch, logs or {})

    def on_test_batch_end(self, batch, logs=None):
        self._call("on_test_batch_end", batch, logs or {})

    def on_predict_begin(self, logs=None):
        self._call("on_predict_begin", logs or {})

    def on_predict_end(self, logs=None):
        self._call("on_predict_end", logs or {})

    def on_predict_batch_begin(self, batch, logs=None):
        self._call("on_predict_batch_begin", batch, logs or {})

    def on_predict_batch_end(self, batch, logs=None):
        self._call("on_predict_batch_end", batch, logs or {})
