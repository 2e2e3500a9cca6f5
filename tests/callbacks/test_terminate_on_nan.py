"""TerminateOnNaN: a NaN in the data stops training at that batch, and the best checkpoint
written before it stays as it was."""
import math

import numpy as np
import pytest

import lamina
from lamina.callbacks import LambdaCallback, ModelCheckpoint, TerminateOnNaN

from .tiny import WEIGHTS, kernel, one_weight_model, read_saved, record_saves


def batches_with_nan_in_epoch_3():
    """Two batches per epoch: (x=1, y=1) trains w as in tiny.py, (x=0, y=0) adds a zero
    loss; in the third epoch the second batch is x=NaN. Epoch losses are 0.64^k / 2."""
    floatx = lamina.backend.floatx()
    one, zero = np.ones((1, 1), floatx), np.zeros((1, 1), floatx)
    for epoch in range(3):
        yield one, one
        yield (one * np.nan if epoch == 2 else zero), zero


@pytest.mark.parametrize("real", [
    pytest.param(True, marks=pytest.mark.skipif(
        not hasattr(lamina.Model, "save_weights"),
        reason="model.save_weights is not written yet (lamina/saving)")),
    False], ids=["save_weights", "recorded_saves"])
def test_a_nan_batch_stops_training_and_keeps_the_last_good_checkpoint(
        real, tmp_path, monkeypatch, backend, floatx, capsys):
    model = one_weight_model()
    calls = [] if real else record_saves(model, monkeypatch)
    path = str(tmp_path / "best.weights.h5")
    checkpoint = ModelCheckpoint(path, monitor="loss", save_best_only=True,
                                 save_weights_only=True)
    ends = []
    history = model.fit(batches_with_nan_in_epoch_3(), epochs=5, steps_per_epoch=2,
                        verbose=0,
                        callbacks=[checkpoint, TerminateOnNaN(),
                                   LambdaCallback(on_train_end=lambda logs: ends.append(1))])
    assert history.epoch == [0, 1, 2]
    assert history.history["loss"][:2] == pytest.approx([0.5, 0.32], rel=1e-5)
    assert math.isnan(history.history["loss"][2])
    assert capsys.readouterr().out == "Batch 1: Invalid loss, terminating training\n"
    assert model.stop_training and ends == [1]             # on_train_end still ran
    assert math.isnan(kernel(model))                       # the model itself is spoilt ...
    assert checkpoint.best == pytest.approx(0.32, rel=1e-5)  # ... the NaN epoch saved nothing
    if real:
        restored = one_weight_model()
        restored.load_weights(path)
        saved = kernel(restored)
    else:
        assert len(calls) == 2
        saved = read_saved(path)
    assert saved == pytest.approx(WEIGHTS[2], rel=1e-6)   # epoch 2's w = 0.36


def test_raise_error_stops_at_once_without_on_train_end():
    model = one_weight_model()
    ends = []
    with pytest.raises(RuntimeError, match="NaN or Inf loss encountered at batch 1. Loss "
                                           "value: nan. Terminating training immediately."):
        model.fit(batches_with_nan_in_epoch_3(), epochs=5, steps_per_epoch=2, verbose=0,
                  callbacks=[TerminateOnNaN(raise_error=True),
                             LambdaCallback(on_train_end=lambda logs: ends.append(1))])
    assert ends == []


def test_infinite_loss_also_stops():
    class Model:
        stop_training = False
    callback = TerminateOnNaN()
    callback.set_model(Model())
    callback.on_batch_end(4, {"loss": 3.0})
    assert not callback.model.stop_training
    callback.on_batch_end(5, {"loss": float("inf")})
    assert callback.model.stop_training


def test_raise_error_must_be_a_bool():
    with pytest.raises(TypeError, match="TerminateOnNaN: argument 'raise_error' must be True "
                                        "or False; received 'yes'"):
        TerminateOnNaN(raise_error="yes")
