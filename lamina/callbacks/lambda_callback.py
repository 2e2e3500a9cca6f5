"""``LambdaCallback``: a callback made of plain functions (Keras 3)."""
from __future__ import annotations

import warnings

from ..registry import deserialize_keras_object, register_builtin, serialize_keras_object
from .callback import Callback

# Every hook of Callback (Keras 2's on_batch_begin/end included).
HOOKS = tuple(name for name in vars(Callback) if name.startswith("on_"))


@register_builtin
class LambdaCallback(Callback):
    """A callback made of plain functions given as its hooks.

    Each argument is a function called as that hook, with the hook's positional
    arguments.

    Args:
        on_epoch_begin: Called as ``on_epoch_begin(epoch, logs)``.
        on_epoch_end: Called as ``on_epoch_end(epoch, logs)``.
        on_train_begin: Called as ``on_train_begin(logs)``.
        on_train_end: Called as ``on_train_end(logs)``.
        on_train_batch_begin: Called as ``on_train_batch_begin(batch, logs)``.
        on_train_batch_end: Called as ``on_train_batch_end(batch, logs)``.
        **kwargs: Any other hook by its name (``on_test_end``, ``on_predict_batch_end``,
            ...); any other name is set as an attribute, as Keras does, with a warning
            (no training loop calls it).

    Example:

    >>> print_batch = LambdaCallback(on_train_batch_begin=lambda batch, logs: print(batch))
    """

    _keras_module = "keras.callbacks"

    def __init__(self, on_epoch_begin=None, on_epoch_end=None, on_train_begin=None,
                 on_train_end=None, on_train_batch_begin=None, on_train_batch_end=None,
                 **kwargs):
        super().__init__()
        unknown = sorted(set(kwargs) - set(HOOKS))
        if unknown:     # Keras sets them as attributes; no training loop ever calls them
            warnings.warn(f"LambdaCallback: keyword argument(s) {unknown} are not hook "
                          f"names (expected among {', '.join(HOOKS)}); they are set as "
                          f"attributes of the callback but fit/evaluate/predict never call "
                          f"them", UserWarning, stacklevel=2)
            for name in unknown:
                setattr(self, name, kwargs.pop(name))
        hooks = dict(on_epoch_begin=on_epoch_begin, on_epoch_end=on_epoch_end,
                     on_train_begin=on_train_begin, on_train_end=on_train_end,
                     on_train_batch_begin=on_train_batch_begin,
                     on_train_batch_end=on_train_batch_end, **kwargs)
        self._hooks = {}
        for name, function in hooks.items():
            if function is None:
                continue
            if not callable(function):
                raise TypeError(f"LambdaCallback: argument '{name}' must be a function or "
                                f"None; received {function!r}")
            self._hooks[name] = function
            setattr(self, name, function)       # shadows the do-nothing method

    def get_config(self) -> dict:
        """The hooks by their registered names (register the functions with
        ``lamina.saving.register_keras_serializable`` to round-trip through a file)."""
        return {name: serialize_keras_object(function)
                for name, function in self._hooks.items()}

    @classmethod
    def from_config(cls, config: dict, custom_objects=None) -> "LambdaCallback":
        return cls(**{name: deserialize_keras_object(value, custom_objects, kind="function")
                      for name, value in config.items()})
