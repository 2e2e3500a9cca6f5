"""``SwapEMAWeights``: evaluate and predict with the optimizer's moving-average weights
(Keras 3's ``keras.callbacks.SwapEMAWeights``; the optimizer needs ``use_ema=True``)."""
from __future__ import annotations

from ..registry import register_builtin
from .callback import Callback


@register_builtin
class SwapEMAWeights(Callback):
    """Evaluate and predict with the optimizer's moving averages of the weights.

    Swaps the model's weights with the optimizer's exponential moving averages of them
    for the duration of ``evaluate``/``predict`` (validation during ``fit`` included), and
    back afterwards. The optimizer must be built with ``use_ema=True``.

    Args:
        swap_on_epoch: If ``True``, the averages are also in the model between the end of
            an epoch and the start of the next (so callbacks after this one, such as a
            ModelCheckpoint, see them), and after the last epoch both the model and the
            averages hold the averaged weights. Defaults to ``False``.

    Example:

    >>> model.compile(optimizer=SGD(use_ema=True), loss="mse")
    >>> model.fit(x, y, validation_split=0.2, callbacks=[SwapEMAWeights()])
    """

    _keras_module = "keras.callbacks"

    def __init__(self, swap_on_epoch=False):
        super().__init__()
        self.swap_on_epoch = swap_on_epoch
        self._ema_weights_in_model = False

    def _optimizers(self) -> list:
        optimizer = self.model.optimizer
        optimizer = getattr(optimizer, "inner_optimizer", optimizer)   # LossScaleOptimizer
        inner = getattr(optimizer, "optimizers", None)
        if inner is None:
            if not getattr(optimizer, "use_ema", False):
                raise ValueError("SwapEMAWeights must be used when `use_ema=True` is set on "
                                 f"the optimizer. Received: use_ema="
                                 f"{getattr(optimizer, 'use_ema', None)}")
            return [optimizer]
        with_ema = [o for o in inner if getattr(o, "use_ema", False)]
        if not with_ema:
            raise ValueError("SwapEMAWeights must be used when at least one inner optimizer "
                             "has `use_ema=True` set. Received a MultiOptimizer with all "
                             "inner optimizers having `use_ema=False`.")
        return with_ema

    def _swap_variables(self) -> None:
        for optimizer in self._optimizers():
            for variable, average in zip(optimizer._trainable_variables,
                                         optimizer._model_variables_moving_average):
                current = variable.numpy()
                variable.assign(average)
                average.assign(current)

    def _finalize_ema_values(self) -> None:
        for optimizer in self._optimizers():
            for variable, average in zip(optimizer._trainable_variables,
                                         optimizer._model_variables_moving_average):
                average.assign(variable)

    def on_epoch_begin(self, epoch, logs=None):
        if self.swap_on_epoch and self._ema_weights_in_model:
            self._swap_variables()
            self._ema_weights_in_model = False

    def on_epoch_end(self, epoch, logs=None):
        if self.swap_on_epoch and not self._ema_weights_in_model:
            self._swap_variables()
            self._ema_weights_in_model = True
            if epoch == self.params["epochs"] - 1:
                self._finalize_ema_values()

    def on_test_begin(self, logs=None):
        if not self._ema_weights_in_model:
            self._swap_variables()
            self._ema_weights_in_model = True

    def on_test_end(self, logs=None):
        if self._ema_weights_in_model:
            self._swap_variables()
            self._ema_weights_in_model = False

    on_predict_begin = on_test_begin
    on_predict_end = on_test_end

    def get_config(self) -> dict:
        return {"swap_on_epoch": self.swap_on_epoch}

    @classmethod
    def from_config(cls, config: dict) -> "SwapEMAWeights":
        return cls(**config)
