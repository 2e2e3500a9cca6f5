"""EarlyStopping: Keras 3's waiting rule, baseline, warm-up and restoring the best weights.

Numbers come from tests/callbacks/tiny.py: val_loss is 0.09, 0.0196, 0.000144, 0.00817,
0.0297, ... (best at epoch index 2); the train loss is 0.64^k; w after k epochs 1 - 0.8^k.
"""
import pytest

from lamina.callbacks import EarlyStopping

from .tiny import VAL_LOSSES, WEIGHTS, fit, kernel, one_weight_model


def test_stops_after_patience_epochs_and_restores_the_best_weights(backend, floatx, capsys):
    model = one_weight_model()
    stop = EarlyStopping(patience=2, restore_best_weights=True, verbose=1)
    history = fit(model, 20, [stop], validate=True)
    # epoch 2 is best; epochs 3 and 4 do not improve; the wait reaches 2 in epoch 4.
    assert history.epoch == [0, 1, 2, 3, 4]
    assert history.history["val_loss"] == pytest.approx(VAL_LOSSES[:5], rel=1e-5)
    assert stop.stopped_epoch == 4 and stop.best_epoch == 2
    assert stop.best == pytest.approx(0.000144, rel=1e-4)
    assert kernel(model) == pytest.approx(WEIGHTS[3], rel=1e-6)      # 0.488, not 0.67232
    assert capsys.readouterr().out == (
        "Epoch 5: early stopping\n"
        "Restoring model weights from the end of the best epoch: 3.\n")


def test_without_restore_the_last_weights_stay():
    model = one_weight_model()
    fit(model, 20, [EarlyStopping(patience=2)], validate=True)
    assert kernel(model) == pytest.approx(WEIGHTS[5], rel=1e-6)      # 0.67232


def test_restores_the_best_weights_even_without_an_early_stop():
    # Keras 3 restores in on_train_end whenever restore_best_weights is set.
    model = one_weight_model()
    stop = EarlyStopping(patience=10, restore_best_weights=True)
    history = fit(model, 4, [stop], validate=True)
    assert len(history.epoch) == 4 and stop.stopped_epoch == 0
    assert kernel(model) == pytest.approx(WEIGHTS[3], rel=1e-6)      # epoch 3's, not 0.5904


def test_patience_zero_stops_at_the_first_worse_epoch():
    history = fit(one_weight_model(), 20, [EarlyStopping(patience=0)], validate=True)
    assert history.epoch == [0, 1, 2, 3]


def test_min_delta_counts_small_improvements_as_none():
    # train losses 1, 0.64, 0.4096, 0.2621, 0.1678: drops of 0.36, 0.23, 0.147, then 0.094
    stop = EarlyStopping(monitor="loss", min_delta=0.1, patience=0)
    history = fit(one_weight_model(), 20, [stop])
    assert history.epoch == [0, 1, 2, 3, 4]
    assert stop.best == pytest.approx(0.262144, rel=1e-5)


def test_the_wait_restarts_only_when_the_baseline_is_beaten_too():
    # 0.0001 is never reached: epochs 0-2 improve the best but keep counting the wait.
    stop = EarlyStopping(patience=3, baseline=0.0001)
    history = fit(one_weight_model(), 20, [stop], validate=True)
    assert history.epoch == [0, 1, 2, 3]
    free = fit(one_weight_model(), 20, [EarlyStopping(patience=3)], validate=True)
    assert free.epoch == [0, 1, 2, 3, 4, 5]


def test_start_from_epoch_ignores_the_warm_up_epochs():
    stop = EarlyStopping(patience=0, start_from_epoch=3, restore_best_weights=True)
    model = one_weight_model()
    history = fit(model, 20, [stop], validate=True)
    # epoch 3 (0.00817) is the first one monitored, epoch 4 is worse
    assert history.epoch == [0, 1, 2, 3, 4]
    assert stop.best_epoch == 3
    assert kernel(model) == pytest.approx(WEIGHTS[4], rel=1e-6)


def test_mode_max_and_reuse_across_fits():
    # Maximizing the loss: epoch 1 is already worse than epoch 0.
    stop = EarlyStopping(monitor="loss", mode="max", patience=0)
    model = one_weight_model()
    assert fit(model, 10, [stop]).epoch == [0, 1]
    # A second fit starts afresh (best, wait and stopped_epoch are reset).
    assert fit(model, 10, [stop]).epoch == [0, 1]


def test_missing_monitor_warns_and_never_stops():
    with pytest.warns(UserWarning, match="Early stopping conditioned on metric `val_loss` "
                                         "which is not available. Available metrics are: loss"):
        history = fit(one_weight_model(), 3, [EarlyStopping(patience=0)])
    assert history.epoch == [0, 1, 2]


def test_unknown_mode_warns_and_falls_back_to_auto():
    with pytest.warns(UserWarning, match="EarlyStopping mode 'best' is unknown"):
        stop = EarlyStopping(mode="best")
    assert stop.mode == "auto"


@pytest.mark.parametrize("kwargs, match", [
    ({"patience": -1}, "EarlyStopping: argument 'patience' must be a non-negative int; "
                       "received -1"),
    ({"patience": 2.5}, "argument 'patience' must be a non-negative int; received 2.5"),
    ({"start_from_epoch": -2}, "argument 'start_from_epoch' must be a non-negative int"),
])
def test_bad_counts_are_value_errors(kwargs, match):
    with pytest.raises(ValueError, match=match):
        EarlyStopping(**kwargs)


@pytest.mark.parametrize("kwargs, match", [
    ({"monitor": 3}, "EarlyStopping: argument 'monitor' must be the name of a logged "
                     "quantity such as 'val_loss'; received 3"),
    ({"min_delta": "0.1"}, "EarlyStopping: argument 'min_delta' must be a number; "
                           "received '0.1'"),
    ({"baseline": "low"}, "argument 'baseline' must be a number or None; received 'low'"),
])
def test_bad_types_are_type_errors(kwargs, match):
    with pytest.raises(TypeError, match=match):
        EarlyStopping(**kwargs)
