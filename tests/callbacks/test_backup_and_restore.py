"""BackupAndRestore: a fit interrupted in its third epoch resumes there, with the
optimizer's state, and ends with the weights of an uninterrupted run."""
import json
import os

import numpy as np
import pytest

import lamina
from lamina import layers, optimizers
from lamina.callbacks import BackupAndRestore, Callback

from .tiny import fake_weights_files

REAL_SAVING = hasattr(lamina.Model, "save_weights")
saving = pytest.mark.parametrize("real", [
    pytest.param(True, marks=pytest.mark.skipif(
        not REAL_SAVING, reason="model.save_weights is not written yet (lamina/saving)")),
    False], ids=["save_weights", "fake_save_weights"])


class Interrupt(Callback):
    """Raises at the start of epoch index ``epoch`` (1-based epoch ``epoch + 1``)."""

    def __init__(self, epoch):
        super().__init__()
        self.epoch = epoch

    def on_epoch_begin(self, epoch, logs=None):
        if epoch == self.epoch:
            raise RuntimeError(f"interrupted in epoch {epoch + 1}")


def momentum_model(real, monkeypatch, seed=1):
    """Momentum makes the optimizer's state matter: losing it changes the weights."""
    lamina.utils.set_random_seed(seed)
    model = lamina.Sequential([lamina.Input((3,)), layers.Dense(2)])
    model.compile(optimizer=optimizers.SGD(0.05, momentum=0.9), loss="mse")
    if not real:
        fake_weights_files(model, monkeypatch)
    return model


def regression_data():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((12, 3)).astype(lamina.backend.floatx())
    y = np.stack([x @ [1.0, -2.0, 0.5], x @ [0.3, 0.0, 1.0]], axis=1).astype(x.dtype)
    return x, y


def train(model, callbacks, epochs=5):
    x, y = regression_data()
    return model.fit(x, y, batch_size=4, epochs=epochs, shuffle=False, verbose=0,
                     callbacks=callbacks)


@saving
def test_interrupted_fit_resumes_in_epoch_3_with_the_same_result(
        real, tmp_path, monkeypatch, backend, floatx):
    reference = momentum_model(real, monkeypatch)
    train(reference, [])

    backup_dir = str(tmp_path / "backup")
    backup = BackupAndRestore(backup_dir)
    model = momentum_model(real, monkeypatch)
    with pytest.raises(RuntimeError, match="interrupted in epoch 3"):
        train(model, [backup, Interrupt(2)])
    assert sorted(os.listdir(backup_dir)) == ["latest.weights.h5", "training_metadata.json"]
    with open(os.path.join(backup_dir, "training_metadata.json")) as f:
        assert json.load(f) == {"epoch": 2, "batch": 0}

    # A new process: a fresh model (other initial weights, unbuilt optimizer) and the
    # same BackupAndRestore settings.
    resumed = momentum_model(real, monkeypatch, seed=7)
    assert not np.allclose(resumed.get_weights()[0], model.get_weights()[0])
    history = train(resumed, [BackupAndRestore(backup_dir)])
    assert history.epoch == [2, 3, 4]
    for got, want in zip(resumed.get_weights(), reference.get_weights()):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    assert int(resumed.optimizer.iterations) == int(reference.optimizer.iterations) == 15
    assert not os.path.exists(backup_dir)                # deleted after a finished fit
    # the resumed epoch was consumed: the next fit starts at epoch 0 again
    assert train(resumed, [], epochs=1).epoch == [0]


def test_without_the_optimizer_state_the_result_would_differ(monkeypatch):
    # The check above is sharp: restarting epochs 3-5 with fresh momentum changes the
    # weights by far more than its tolerance.
    reference = momentum_model(False, monkeypatch)
    train(reference, [])
    model = momentum_model(False, monkeypatch)
    train(model, [], epochs=2)
    model.compile(optimizer=optimizers.SGD(0.05, momentum=0.9), loss="mse")
    train(model, [], epochs=3)
    gap = max(np.max(np.abs(a - b)) for a, b in zip(model.get_weights(),
                                                    reference.get_weights()))
    assert gap > 1e-3


def test_the_same_callback_object_resumes_the_same_model(tmp_path, monkeypatch):
    model = momentum_model(False, monkeypatch)
    backup = BackupAndRestore(tmp_path / "b", delete_checkpoint=False)
    with pytest.raises(RuntimeError):
        train(model, [backup, Interrupt(3)])
    history = train(model, [backup])
    assert history.epoch == [3, 4]
    with open(tmp_path / "b" / "training_metadata.json") as f:
        assert json.load(f) == {"epoch": 5, "batch": 0}     # kept: delete_checkpoint=False


@saving
def test_double_checkpoint_falls_back_to_the_previous_backup(real, tmp_path, monkeypatch):
    model = momentum_model(real, monkeypatch)
    backup_dir = tmp_path / "b"
    with pytest.raises(RuntimeError):
        train(model, [BackupAndRestore(backup_dir, double_checkpoint=True), Interrupt(3)])
    assert sorted(os.listdir(backup_dir)) == [
        "latest.weights.h5", "latest.weights.h5.bkp",
        "training_metadata.json", "training_metadata.json.bkp"]
    (backup_dir / "latest.weights.h5").write_bytes(b"torn write")   # died while saving
    history = train(model, [BackupAndRestore(backup_dir, double_checkpoint=True)])
    assert history.epoch == [2, 3, 4]                     # the backup of epoch 2's end
    with pytest.raises(RuntimeError):
        train(model, [BackupAndRestore(backup_dir), Interrupt(1)])
    (backup_dir / "latest.weights.h5").write_bytes(b"torn write")
    with pytest.raises((OSError, ValueError)):             # no second copy to fall back to
        train(model, [BackupAndRestore(backup_dir)])


def test_save_freq_in_batches(tmp_path, monkeypatch):
    model = momentum_model(False, monkeypatch)
    saves = []
    original = model.save_weights
    monkeypatch.setattr(model, "save_weights",
                        lambda path, overwrite=True: saves.append(1) or original(path))
    train(model, [BackupAndRestore(tmp_path / "b", save_freq=2)], epochs=2)
    assert len(saves) == 3                                 # 6 batches, one save per 2


def test_an_unbuilt_model_is_a_value_error(tmp_path):
    model = lamina.Sequential([layers.Dense(1)])
    model.compile(optimizer=optimizers.SGD(0.1), loss="mse")
    backup = BackupAndRestore(tmp_path / "b")
    backup.set_model(model)
    with pytest.raises(ValueError, match="To use the BackupAndRestore callback, your model "
                                         "must be built before you call `fit\\(\\)`"):
        backup.on_train_begin()


@pytest.mark.parametrize("kwargs, error, match", [
    ({"backup_dir": ""}, ValueError, "BackupAndRestore: Empty `backup_dir` argument passed"),
    ({"backup_dir": 5}, TypeError, "BackupAndRestore: argument 'backup_dir' must be a "
                                   "string or a path; received 5"),
    ({"backup_dir": "b", "save_freq": "step"}, ValueError,
     "BackupAndRestore: Invalid value for argument `save_freq`: 'step'"),
])
def test_bad_arguments(kwargs, error, match):
    with pytest.raises(error, match=match):
        BackupAndRestore(**kwargs)
