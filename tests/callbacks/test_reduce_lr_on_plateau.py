"""ReduceLROnPlateau: the schedule of learning rates on a plateau, cooldown, min_lr."""
import numpy as np
import pytest

import lamina
from lamina.callbacks import ReduceLROnPlateau

from .tiny import fit, one_weight_model


def plateau_fit(callback, epochs, learning_rate=0.1):
    """Input 0 -> no gradient: the loss stays 1.0 every epoch."""
    model = one_weight_model(learning_rate)
    x = np.zeros((1, 1), lamina.backend.floatx())
    history = model.fit(x, x + 1, epochs=epochs, verbose=0, callbacks=[callback])
    return model, history


def test_schedule_with_patience_cooldown_and_min_lr(backend, floatx, capsys):
    callback = ReduceLROnPlateau(monitor="loss", factor=0.5, patience=2, cooldown=1,
                                 min_lr=0.02, verbose=1)
    model, history = plateau_fit(callback, 10)
    # epoch 0 sets the best; reductions at the ends of epochs 2, 4 (after 1 cooldown epoch
    # and 2 more waits) and 6 (0.025 * 0.5 clipped to min_lr); at min_lr it stays.
    expected = [0.1, 0.1, 0.1, 0.05, 0.05, 0.025, 0.025, 0.02, 0.02, 0.02]
    assert history.history["learning_rate"] == pytest.approx(expected, rel=1e-6)
    assert float(model.optimizer.learning_rate) == pytest.approx(0.02, rel=1e-6)
    out = capsys.readouterr().out
    assert out.count("ReduceLROnPlateau reducing learning rate") == 3
    lr = float(np.array(0.1, floatx))             # the rate as the optimizer stores it
    assert out.startswith(f"\nEpoch 3: ReduceLROnPlateau reducing learning rate to "
                          f"{lr * 0.5}.\n\nEpoch 5: ")
    assert out.endswith("\nEpoch 7: ReduceLROnPlateau reducing learning rate to 0.02.\n")


def test_improvements_reset_the_wait():
    # train losses 0.64^k keep improving by more than min_delta: the rate never changes
    callback = ReduceLROnPlateau(monitor="loss", patience=1)
    history = fit(one_weight_model(), 4, [callback])
    assert history.history["learning_rate"] == pytest.approx([0.1] * 4, rel=1e-6)


def test_min_delta_makes_small_improvements_a_plateau():
    # losses 1, 0.64, 0.4096, 0.2621: epoch 3 is not 0.2 below the best (0.4096), so the
    # rate drops at its end; the rate logged is the one the epoch trained with.
    callback = ReduceLROnPlateau(monitor="loss", patience=1, factor=0.1, min_delta=0.2)
    history = fit(one_weight_model(), 5, [callback])
    assert history.history["learning_rate"] == pytest.approx([0.1, 0.1, 0.1, 0.1, 0.01],
                                                             rel=1e-6)
    assert callback.best == pytest.approx(0.64 ** 4, rel=1e-5)     # epoch 4 improved again


def test_missing_monitor_warns_and_still_logs_the_rate():
    with pytest.warns(UserWarning, match="Learning rate reduction is conditioned on metric "
                                         "`val_loss` which is not available. Available "
                                         "metrics are: loss,learning_rate."):
        model, history = plateau_fit(ReduceLROnPlateau(patience=0), 2)
    assert history.history["learning_rate"] == pytest.approx([0.1, 0.1], rel=1e-6)


def test_factor_of_one_or_more_is_a_value_error():
    with pytest.raises(ValueError, match="ReduceLROnPlateau does not support a factor >= "
                                         "1.0. Received factor=1.0"):
        ReduceLROnPlateau(factor=1.0)


@pytest.mark.parametrize("kwargs, error, match", [
    ({"patience": -1}, ValueError, "ReduceLROnPlateau: argument 'patience' must be a "
                                   "non-negative int; received -1"),
    ({"cooldown": 1.5}, ValueError, "argument 'cooldown' must be a non-negative int"),
    ({"factor": "half"}, TypeError, "ReduceLROnPlateau: argument 'factor' must be a number; "
                                    "received 'half'"),
    ({"min_lr": None}, TypeError, "argument 'min_lr' must be a number; received None"),
    ({"patience_": 3}, TypeError, "ReduceLROnPlateau: unrecognized keyword argument\\(s\\) "
                                  "\\['patience_'\\]"),
])
def test_bad_arguments(kwargs, error, match):
    with pytest.raises(error, match=match):
        ReduceLROnPlateau(**kwargs)


def test_keras2_epsilon_is_min_delta():
    with pytest.warns(UserWarning, match="argument 'epsilon' is deprecated"):
        callback = ReduceLROnPlateau(epsilon=0.01)
    assert callback.min_delta == 0.01


def test_an_uncompiled_model_is_a_clear_error():
    callback = ReduceLROnPlateau(monitor="loss")
    callback.set_model(lamina.Sequential([lamina.Input((1,)), lamina.layers.Dense(1)]))
    with pytest.raises(ValueError, match="ReduceLROnPlateau: the model's optimizer must "
                                         "have a \"learning_rate\" attribute"):
        callback.on_epoch_end(0, {"loss": 1.0})
