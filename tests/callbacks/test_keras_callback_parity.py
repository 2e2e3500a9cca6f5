"""Callback details Keras 3's own tests check (issue 22): the comparison op a monitoring
callback holds, and ReduceLROnPlateau starting each fit afresh."""
import pytest

from lamina import ops
from lamina.callbacks import EarlyStopping, ReduceLROnPlateau

from .tiny import LOSSES, fit, one_weight_model


def test_monitor_op_is_keras_comparison_op():
    """Keras's early_stopping_test: ``monitor_op`` is ``ops.greater`` for a maximized
    metric and ``ops.less`` for a minimized one."""
    model = one_weight_model()
    up, down = EarlyStopping(monitor="accuracy"), EarlyStopping(monitor="loss")
    for callback in (up, down):
        callback.set_model(model)
        callback._set_monitor_op()
    assert up.monitor_op is ops.greater and up.best == -float("inf")
    assert down.monitor_op is ops.less and down.best == float("inf")


def test_reduce_lr_on_plateau_resets_best_on_train_begin():
    """Keras's reduce_lr_on_plateau_test.test_state_reset_across_fit_calls."""
    reduce_lr = ReduceLROnPlateau(patience=1, factor=0.1, monitor="loss", min_delta=0,
                                  cooldown=2)
    reduce_lr.set_model(one_weight_model())
    reduce_lr.on_train_begin()
    reduce_lr.best, reduce_lr.wait, reduce_lr.cooldown_counter = 0.5, 3, 2
    reduce_lr.on_train_begin()
    assert reduce_lr.best is None
    assert (reduce_lr.wait, reduce_lr.cooldown_counter) == (0, 0)


def test_reduce_lr_on_plateau_second_fit_does_not_keep_the_old_best():
    """A second fit compares with its own first epoch, not the first fit's best: a loss
    above the old best is not counted as a plateau epoch."""
    model = one_weight_model()
    reduce_lr = ReduceLROnPlateau(monitor="loss", patience=1, min_delta=0)
    fit(model, epochs=3, callbacks=[reduce_lr])
    assert reduce_lr.best == pytest.approx(LOSSES[2], rel=1e-6)
    model.optimizer.learning_rate = 0.1
    model.layers[0].kernel.assign([[0.0]])            # back to the start: loss 1 again
    fit(model, epochs=1, callbacks=[reduce_lr])
    assert reduce_lr.best == pytest.approx(LOSSES[0]) and reduce_lr.wait == 0
    assert float(model.optimizer.learning_rate) == pytest.approx(0.1)   # not reduced
