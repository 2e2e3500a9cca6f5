"""The pieces of an exact resume: the training state stored in a backup's weights file,
the random generators' states, the callbacks' get_state/set_state, and BackupAndRestore's
errors (tests/saving/test_exact_resume.py runs the whole thing in killed processes)."""
import json
import math
import random
import shutil

import h5py
import numpy as np
import pytest

import lamina
from lamina import callbacks, layers
from lamina.saving import CorruptFileError, SavingError, rng_state
from lamina.saving.training_state import encode, read_state, write_state


@pytest.fixture(autouse=True)
def _seeded():
    lamina.backend.clear_session(free_memory=False)
    lamina.utils.set_random_seed(0)


def dropout_model(dropout=True):
    model = lamina.Sequential([lamina.Input((4,)), layers.Dense(6, activation="relu"),
                               *([layers.Dropout(0.5)] if dropout else []), layers.Dense(1)])
    model.compile(optimizer=lamina.optimizers.Adam(0.01), loss="mse", metrics=["mae"])
    return model


def data():
    rng = np.random.default_rng(1)
    x = rng.normal(size=(48, 4)).astype("float32")
    return x, x @ np.array([[1.0], [-1.0], [0.5], [2.0]], "float32")


class Interrupt(callbacks.Callback):
    def __init__(self, epoch, batch):
        super().__init__()
        self.at, self.epoch = (epoch, batch), None

    def on_epoch_begin(self, epoch, logs=None):
        self.epoch = epoch

    def on_train_batch_end(self, batch, logs=None):
        if (self.epoch, batch) == self.at:
            raise RuntimeError(f"interrupted after batch {batch + 1} of epoch {self.epoch + 1}")


class EpochLogs(callbacks.Callback):
    def __init__(self):
        super().__init__()
        self.rows = []

    def on_epoch_end(self, epoch, logs=None):
        self.rows.append((epoch, logs["loss"], logs["mae"]))


def fit(model, chain, epochs=4):
    x, y = data()
    return model.fit(x, y, batch_size=8, epochs=epochs, shuffle=True, verbose=0,
                     callbacks=chain)


# ------------------------------------------------------------------ stored state
def test_state_round_trips_through_the_weights_file(tmp_path):
    path = str(tmp_path / "w.weights.h5")
    dropout_model().save_weights(path)
    assert read_state(path) is None                       # a plain (Keras) weights file
    keys = np.arange(624, dtype=np.uint32) * 7919
    state = {"epoch": 3, "best": math.inf, "low": -math.inf, "nan": math.nan, "none": None,
             "flags": [True, "text", np.float32(1.5), np.int64(9)],
             "arrays": {"keys": keys, "scalar": np.array(4, np.int64),
                        "weights": [np.full((2, 3), 0.1, np.float32)]}}
    write_state(path, {"epoch": 1})
    write_state(path, state)                              # replaces the first one
    with h5py.File(path, "r") as f:
        text = f["training_state"].attrs["state"]
        json.loads(text, parse_constant=pytest.fail)      # strict JSON: no Infinity/NaN
        assert "layers" in f                              # the weights are still there
    got = read_state(path)
    assert got["epoch"] == 3 and got["best"] == math.inf and got["low"] == -math.inf
    assert math.isnan(got["nan"]) and got["none"] is None
    assert got["flags"] == [True, "text", 1.5, 9]
    assert got["arrays"]["keys"].dtype == np.uint32
    assert got["arrays"]["keys"].tobytes() == keys.tobytes()
    assert got["arrays"]["scalar"].shape == () and int(got["arrays"]["scalar"]) == 4
    assert got["arrays"]["weights"][0].tobytes() == state["arrays"]["weights"][0].tobytes()


@pytest.mark.parametrize("value, match", [
    ({"cb": {1: "x"}}, r"'state/cb' must have string keys; received the key 1"),
    ({"cb": [object]}, r"'state/cb/0' must be made of dicts, lists, numbers, strings and "
                       r"numpy arrays; received type"),
])
def test_unstorable_state_is_a_type_error(value, match):
    with pytest.raises(TypeError, match=match):
        encode(value, [])


def test_unreadable_state_is_a_corrupt_file_error(tmp_path):
    path = str(tmp_path / "w.weights.h5")
    write_state(path, {"epoch": 1})
    with h5py.File(path, "a") as f:
        f["training_state"].attrs["state"] = json.dumps({"format": 99, "state": {}})
    with pytest.raises(CorruptFileError, match=r"w.weights.h5': training state of format "
                                               r"99; this Lamina reads format 1"):
        read_state(path)
    with h5py.File(path, "a") as f:
        del f["training_state"].attrs["state"]
    with pytest.raises(CorruptFileError, match=r"cannot read the training state in '.*w."
                                               r"weights.h5': the file is truncated or not a "
                                               r"Lamina backup \(KeyError"):
        read_state(path)


# ------------------------------------------------------------------ random state
def draws(model):
    x = np.ones((2, 4), "float32")
    return (np.random.permutation(10), random.random(),
            lamina.random.uniform((3,)).numpy(), model(x, training=True).numpy())


def test_random_state_round_trip():
    model = dropout_model()
    state = rng_state.collect(model)
    assert list(state["lamina"]["generators"]) == ["layers/dropout/seed_generator"]
    first = draws(model)
    generator = model.layers[1].seed_generator
    generator.key = (generator.key[0] + 1, generator.key[1])     # another process's key
    assert rng_state.restore(model, state, "backup") is True     # the key changed
    for again, before in zip(draws(model), first):
        np.testing.assert_array_equal(again, before)
    assert rng_state.restore(model, state, "backup") is False


def test_random_state_of_another_model_is_refused(tmp_path):
    model = dropout_model()
    x, y = data()
    backup = str(tmp_path / "b")
    with pytest.raises(RuntimeError, match="interrupted"):
        fit(model, [callbacks.BackupAndRestore(backup), Interrupt(1, 0)])
    other = dropout_model(dropout=False)
    before = [w.copy() for w in other.get_weights()]
    with pytest.raises(SavingError, match=r"latest.weights.h5': it was saved for a model "
                                          r"whose random generators are \['layers/dropout/"
                                          r"seed_generator'\]; this model has \[\]"):
        fit(other, [callbacks.BackupAndRestore(backup)])
    for got, want in zip(other.get_weights(), before):              # nothing loaded
        np.testing.assert_array_equal(got, want)


# ------------------------------------------------------------------ callbacks' state
def test_callbacks_hand_their_state_to_a_new_instance():
    weights = [np.ones((2, 2), "float32")]
    stop = callbacks.EarlyStopping(patience=3, restore_best_weights=True)
    stop.wait, stop.best, stop.best_epoch, stop.stopped_epoch = 2, 0.25, 4, 0
    stop.best_weights = weights
    again = callbacks.EarlyStopping(patience=3, restore_best_weights=True)
    again.set_state(stop.get_state())
    assert (again.wait, again.best, again.best_epoch, again.stopped_epoch) == (2, 0.25, 4, 0)
    assert again.best_weights[0] is weights[0]

    reduce_lr = callbacks.ReduceLROnPlateau(patience=2, cooldown=3)
    reduce_lr.wait, reduce_lr.best, reduce_lr.cooldown_counter = 1, 0.5, 2
    assert reduce_lr.get_state() == {"wait": 1, "best": 0.5, "cooldown_counter": 2}
    again = callbacks.ReduceLROnPlateau(patience=2, cooldown=3)
    again.set_state(reduce_lr.get_state())
    assert (again.wait, again.best, again.cooldown_counter) == (1, 0.5, 2)

    checkpoint = callbacks.ModelCheckpoint("m.keras", save_best_only=True)
    checkpoint.best = 0.125
    again = callbacks.ModelCheckpoint("m.keras", save_best_only=True)
    again.set_state(checkpoint.get_state())
    assert again.best == 0.125


def test_a_callback_state_that_does_not_fit_is_a_corrupt_file_error(tmp_path):
    backup = str(tmp_path / "b")
    with pytest.raises(RuntimeError, match="interrupted"):
        fit(dropout_model(), [callbacks.BackupAndRestore(backup),
                              callbacks.EarlyStopping(monitor="loss", patience=9),
                              Interrupt(2, 0)])
    path = str(tmp_path / "b" / "latest.weights.h5")
    state = read_state(path)
    assert state["callbacks"]["EarlyStopping"]["best"] > 0
    state["callbacks"]["EarlyStopping"] = {"wait": 1}             # edited by hand
    write_state(path, state)
    with pytest.raises(CorruptFileError, match=r"latest.weights.h5': the saved state of the "
                                               r"callback EarlyStopping cannot be restored "
                                               r"\(KeyError: 'best'\)"):
        fit(dropout_model(), [callbacks.BackupAndRestore(backup),
                              callbacks.EarlyStopping(monitor="loss", patience=9)])


def test_weights_written_as_another_format_carry_no_state(tmp_path, monkeypatch):
    model = dropout_model()

    def save_weights(filepath, overwrite=True):
        with open(filepath, "wb") as f:
            np.savez(f, *model.get_weights())
    monkeypatch.setattr(model, "save_weights", save_weights)
    with pytest.warns(UserWarning, match=r"model.save_weights wrote '.*latest.weights.h5' "
                                         r"in a format other than HDF5, so the backup holds "
                                         r"no random, metric or callback state"):
        fit(model, [callbacks.BackupAndRestore(tmp_path / "b")], epochs=2)


def test_temporary_files_of_a_killed_backup_are_removed(tmp_path):
    backup = tmp_path / "b"
    backup.mkdir()
    leftovers = [".latest.weights.h5.77.1a2b3c4d.tmp",
                 ".latest.weights.h5.77.1a2b3c4d.tmp.weights.h5",
                 "..latest.weights.h5.77.1a2b3c4d.tmp.weights.h5.77.5e6f7a8b.tmp",
                 ".training_metadata.json.77.9c0d1e2f.tmp"]
    for name in leftovers + ["notes.txt"]:
        (backup / name).write_text("x")
    fit(dropout_model(), [callbacks.BackupAndRestore(backup, delete_checkpoint=False)], 1)
    assert sorted(p.name for p in backup.iterdir()) == [
        "latest.weights.h5", "notes.txt", "training_metadata.json"]


# ------------------------------------------------------------------ mid-epoch resume
def test_mid_epoch_resume_restores_the_running_metrics(tmp_path):
    straight = EpochLogs()
    fit(dropout_model(), [straight])

    lamina.backend.clear_session()
    lamina.utils.set_random_seed(0)
    model, logs = dropout_model(), EpochLogs()
    backup = str(tmp_path / "b")
    with pytest.raises(RuntimeError, match="interrupted after batch 5 of epoch 2"):
        fit(model, [callbacks.BackupAndRestore(backup, save_freq=4), logs, Interrupt(1, 4)])
    assert read_state(backup + "/latest.weights.h5")["step"] == 2    # batches 7, 8 = 1, 2
    history = fit(model, [callbacks.BackupAndRestore(backup, save_freq=4), logs])
    assert history.epoch == [1, 2, 3]
    assert [row[0] for row in logs.rows] == [0, 1, 2, 3]
    np.testing.assert_allclose(np.array(logs.rows), np.array(straight.rows), rtol=1e-6)


def test_mid_epoch_resume_in_a_new_process_warns_about_compiled_metrics(tmp_path):
    backup = str(tmp_path / "b")
    with pytest.raises(RuntimeError, match="interrupted"):
        fit(dropout_model(), [callbacks.BackupAndRestore(backup, save_freq=4),
                              Interrupt(1, 4)])
    with pytest.warns(UserWarning, match=r"resumed after batch 2 of epoch 2; that epoch's "
                                         r"values of \['mae'\] cover only the batches after "
                                         r"the resume"):
        fit(dropout_model(), [callbacks.BackupAndRestore(backup, save_freq=4)])


def test_a_restored_dropout_key_replaces_the_traced_training_step(tmp_path):
    # Another process (another global seed) made the backup; this model has already traced
    # its training step with its own dropout key, which the restore replaces.
    backup = str(tmp_path / "b")
    writer = dropout_model()
    fit(writer, [callbacks.BackupAndRestore(backup, delete_checkpoint=False)], epochs=2)
    lamina.utils.set_random_seed(5)
    reader = dropout_model()
    fit(reader, [], epochs=1)                          # traced with seed 5's key
    assert reader.layers[1].seed_generator.key != writer.layers[1].seed_generator.key
    shutil.copytree(backup, str(tmp_path / "copy"))
    resumed = fit(reader, [callbacks.BackupAndRestore(str(tmp_path / "copy"))])
    assert reader.layers[1].seed_generator.key == writer.layers[1].seed_generator.key
    continued = fit(writer, [callbacks.BackupAndRestore(backup)])
    assert resumed.epoch == continued.epoch == [2, 3]
    np.testing.assert_allclose(resumed.history["loss"], continued.history["loss"], rtol=1e-6)
