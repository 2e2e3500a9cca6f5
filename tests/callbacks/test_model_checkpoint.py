"""ModelCheckpoint: file names, save_best_only, batch-level saving, messages and errors.

Numbers come from tests/callbacks/tiny.py (train losses 0.64^k, val_loss 0.09, 0.0196,
0.000144, 0.00817, 0.0297; w after k epochs 1 - 0.8^k). The model's save methods are
replaced by writers of the weight, so these tests check what the callback asks for.
"""
import os

import pytest

import lamina
from lamina.callbacks import ModelCheckpoint

from .tiny import WEIGHTS, data, fit, kernel, one_weight_model, read_saved, record_saves


def test_file_names_are_formatted_with_epoch_and_logs(tmp_path, monkeypatch, floatx):
    model = one_weight_model()
    calls = record_saves(model, monkeypatch)
    pattern = str(tmp_path / "ckpt" / "{epoch:02d}-{loss:.2f}.weights.h5")
    fit(model, 3, [ModelCheckpoint(pattern, save_weights_only=True)])
    assert sorted(os.listdir(tmp_path / "ckpt")) == [      # the folder was created
        "01-1.00.weights.h5", "02-0.64.weights.h5", "03-0.41.weights.h5"]
    assert [c[0] for c in calls] == ["save_weights"] * 3
    assert all(c[2] == {"overwrite": True} for c in calls)
    assert read_saved(tmp_path / "ckpt" / "02-0.64.weights.h5") == \
        pytest.approx(WEIGHTS[2], rel=1e-6)


def test_whole_model_saves_go_through_model_save(tmp_path, monkeypatch):
    model = one_weight_model()
    calls = record_saves(model, monkeypatch)
    fit(model, 2, [ModelCheckpoint(str(tmp_path / "m-{epoch}.keras"))])
    assert [(c[0], os.path.basename(c[1])) for c in calls] == [
        ("save", "m-1.keras"), ("save", "m-2.keras")]


def test_save_best_only_keeps_the_best_epoch(tmp_path, monkeypatch, capsys):
    model = one_weight_model()
    calls = record_saves(model, monkeypatch)
    path = str(tmp_path / "best.keras")
    fit(model, 5, [ModelCheckpoint(path, save_best_only=True, verbose=1)], validate=True)
    assert len(calls) == 3                                  # epochs 1, 2, 3 improved
    assert read_saved(path) == pytest.approx(WEIGHTS[3], rel=1e-6)
    assert capsys.readouterr().out == (
        f"\nEpoch 1: val_loss improved from inf to 0.09000, saving model to {path}\n"
        f"\nEpoch 2: val_loss improved from 0.09000 to 0.01960, saving model to {path}\n"
        f"\nEpoch 3: val_loss improved from 0.01960 to 0.00014, saving model to {path}\n"
        f"\nEpoch 4: val_loss did not improve from 0.00014\n"
        f"\nEpoch 5: val_loss did not improve from 0.00014\n")


def test_initial_value_threshold_is_the_first_best(tmp_path, monkeypatch):
    model = one_weight_model()
    calls = record_saves(model, monkeypatch)
    callback = ModelCheckpoint(str(tmp_path / "{epoch}.keras"), save_best_only=True,
                               initial_value_threshold=0.01)
    fit(model, 5, [callback], validate=True)
    assert [os.path.basename(c[1]) for c in calls] == ["3.keras"]


def test_mode_max_on_the_loss(tmp_path, monkeypatch):
    model = one_weight_model()
    calls = record_saves(model, monkeypatch)
    fit(model, 3, [ModelCheckpoint(str(tmp_path / "{epoch}.keras"), monitor="loss",
                                   mode="max", save_best_only=True)])
    assert [os.path.basename(c[1]) for c in calls] == ["1.keras"]


def test_verbose_message_without_save_best_only(tmp_path, monkeypatch, capsys):
    model = one_weight_model()
    record_saves(model, monkeypatch)
    path = str(tmp_path / "m.keras")
    fit(model, 1, [ModelCheckpoint(path, verbose=1)])
    assert capsys.readouterr().out == f"\nEpoch 1: saving model to {path}\n"


def test_integer_save_freq_counts_batches_across_epochs(tmp_path, monkeypatch):
    model = one_weight_model()
    calls = record_saves(model, monkeypatch)
    x, y = data(4)
    callback = ModelCheckpoint(str(tmp_path / "e{epoch}-b{batch}.keras"), save_freq=3)
    model.fit(x, y, batch_size=1, epochs=2, verbose=0, callbacks=[callback], shuffle=False)
    # 8 batches: a save after the 3rd (epoch 1, batch 3) and the 6th (epoch 2, batch 2)
    assert [os.path.basename(c[1]) for c in calls] == ["e1-b3.keras", "e2-b2.keras"]


def test_missing_monitor_warns_and_saves(tmp_path, monkeypatch):
    model = one_weight_model()
    calls = record_saves(model, monkeypatch)
    with pytest.warns(UserWarning, match="Can save best model only with val_loss available"):
        fit(model, 1, [ModelCheckpoint(str(tmp_path / "m.keras"), save_best_only=True)])
    assert len(calls) == 1


def test_an_unknown_placeholder_is_a_key_error(tmp_path, monkeypatch):
    model = one_weight_model()
    record_saves(model, monkeypatch)
    callback = ModelCheckpoint(str(tmp_path / "{epoch}-{val_acc:.2f}.keras"))
    with pytest.raises(KeyError, match="Failed to format this callback filepath: .*"
                                       "Reason: .*val_acc.*; the logs have \\[.*loss.*\\]"):
        fit(model, 1, [callback])


def test_an_existing_directory_is_not_a_file_path(tmp_path, monkeypatch):
    model = one_weight_model()
    record_saves(model, monkeypatch)
    (tmp_path / "d.keras").mkdir()
    with pytest.raises(IsADirectoryError, match="Please specify a non-directory filepath "
                                                "for ModelCheckpoint"):
        fit(model, 1, [ModelCheckpoint(str(tmp_path / "d.keras"))])


@pytest.mark.parametrize("kwargs, match", [
    ({"filepath": "w.h5", "save_weights_only": True},
     "When using `save_weights_only=True` in `ModelCheckpoint`, the filepath provided must "
     "end in `.weights.h5` \\(Keras weights format\\). Received: filepath=w.h5"),
    ({"filepath": "model.weights.h5x"},
     "The filepath provided must end in `.keras` \\(Keras model format\\) or `.h5`.*"
     "Received: filepath=model.weights.h5x"),
    ({"filepath": "ckpt"}, "must end in `.keras`.*Received: filepath=ckpt"),
    ({"filepath": "m.keras", "save_freq": "batch"},
     "ModelCheckpoint: Unrecognized save_freq: 'batch'. Expected save_freq are 'epoch' or "
     "a positive integer"),
    ({"filepath": "m.keras", "save_freq": 0}, "Unrecognized save_freq: 0"),
])
def test_bad_arguments_are_value_errors(kwargs, match):
    with pytest.raises(ValueError, match=match):
        ModelCheckpoint(**kwargs)


def test_type_errors():
    with pytest.raises(TypeError, match="ModelCheckpoint: argument 'filepath' must be a "
                                        "string or a path; received 3"):
        ModelCheckpoint(3)
    with pytest.raises(TypeError, match="argument 'initial_value_threshold' must be a "
                                        "number or None; received 'low'"):
        ModelCheckpoint("m.keras", initial_value_threshold="low")


def test_legacy_h5_and_path_objects_are_accepted(tmp_path):
    assert ModelCheckpoint(tmp_path / "m.h5").filepath == str(tmp_path / "m.h5")


@pytest.mark.skipif(not hasattr(lamina.Model, "save_weights"),
                    reason="model.save_weights is not written yet (lamina/saving)")
def test_real_weights_files_load_back(tmp_path, backend):
    model = one_weight_model()
    path = str(tmp_path / "best.weights.h5")
    fit(model, 5, [ModelCheckpoint(path, save_best_only=True, save_weights_only=True)],
        validate=True)
    assert kernel(model) == pytest.approx(WEIGHTS[5], rel=1e-6)
    model.load_weights(path)
    assert kernel(model) == pytest.approx(WEIGHTS[3], rel=1e-6)


@pytest.mark.skipif(not hasattr(lamina.Model, "save"),
                    reason="model.save is not written yet (lamina/saving)")
def test_real_keras_files_load_back(tmp_path):
    from lamina.saving.saving_api import load_model
    model = one_weight_model()
    fit(model, 3, [ModelCheckpoint(str(tmp_path / "m{epoch}.keras"))])
    assert sorted(os.listdir(tmp_path)) == ["m1.keras", "m2.keras", "m3.keras"]
    assert kernel(load_model(str(tmp_path / "m2.keras"))) == pytest.approx(WEIGHTS[2],
                                                                           rel=1e-6)
