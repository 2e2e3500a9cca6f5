"""saving.KerasFileEditor on a Keras-written .keras file and on Lamina's own files."""
import pathlib

import h5py
import numpy as np
import pytest

import lamina
from lamina import saving

KERAS_FILE = pathlib.Path(__file__).resolve().parents[1] / "fixtures" / "keras_files" / \
    "dense_bn_k3.keras"


def _paths(tree, prefix=""):
    out = {}
    for key, value in tree.items():
        if isinstance(value, dict):
            out.update(_paths(value, f"{prefix}/{key}"))
        else:
            out[f"{prefix}/{key}"] = (tuple(value.shape), str(value.dtype))
    return out


def test_reads_a_keras_file_as_keras_does(capsys):
    editor = saving.KerasFileEditor(str(KERAS_FILE))
    out = capsys.readouterr().out
    assert out == (f"Keras model file '{KERAS_FILE}'\n"
                   f"Saved with Keras 3.15.1 - date: 2026-11-22@13:56:56\n")
    paths = _paths(editor.weights_dict)
    # Keras 3.15.1's KerasFileEditor lists the same 22 arrays for this file
    assert len(paths) == 22
    assert paths["/layers/dense/0"] == ((10, 12), "float32")
    assert paths["/layers/dense_1/1"] == ((4,), "float32")
    assert paths["/layers/batch_normalization/3"] == ((12,), "float32")
    assert paths["/optimizer/0"] == ((), "int64")
    assert editor.config["class_name"] == "Sequential"
    assert editor.metadata["keras_version"] == "3.15.1"


def test_summary_prints_the_tree(capsys):
    editor = saving.KerasFileEditor(str(KERAS_FILE))
    capsys.readouterr()
    editor.summary()
    lines = capsys.readouterr().out.splitlines()
    assert lines[:4] == ["Weights structure", "  > layers",
                         "  │   ├─ batch_normalization ('batch_normalization')",
                         "  │   │   ├─ 0: shape=(12,), dtype=float32"]
    assert "  │   └─ dense_1 ('dense_1')" in lines
    assert "      └─ 9: shape=(12,), dtype=float32" in lines


def test_compare_with_the_model_and_after_edits(capsys):
    model = saving.load_model(KERAS_FILE)
    editor = saving.KerasFileEditor(str(KERAS_FILE))
    # Keras 3.15.1 reports match_count 50 here: it adds nested counts twice; Lamina counts
    # each of the 22 matching arrays once
    assert editor.compare(model) == {"status": "success", "error_count": 0,
                                     "match_count": 22}
    editor.delete_object("dense_1")
    editor.add_weights("layers/dense", {"2": np.zeros(3)})
    capsys.readouterr()
    assert editor.compare(model) == {"status": "error", "error_count": 2, "match_count": 20}
    out = capsys.readouterr().out
    assert "...Object /layers/dense_1 present in reference model, missing from saved file" in out
    assert "...Weight /layers/dense/2 present in saved file, missing from reference model" in out
    assert "Found 2 errors: saved file is not compatible with the reference model" in out


def test_edit_and_save_then_load_into_a_renamed_model(tmp_path):
    model = lamina.Sequential([lamina.Input((3,)), lamina.layers.Dense(2, name="first"),
                               lamina.layers.Dense(1, name="second")])
    model.set_weights([np.full((3, 2), 0.5, "float32"), np.array([1.0, -1.0], "float32"),
                       np.array([[2.0], [3.0]], "float32"), np.array([0.25], "float32")])
    model.save_weights(tmp_path / "m.weights.h5")
    editor = saving.KerasFileEditor(str(tmp_path / "m.weights.h5"))
    assert sorted(editor.weights_dict["layers"]) == ["dense", "dense_1"]
    editor.rename_object("dense_1", "renamed")
    editor.rename_object("layers/renamed", "dense_1")
    editor.delete_weight("layers/dense_1", "1")
    editor.add_weights("dense_1", {"1": np.array([5.0], "float32")})
    editor.save(tmp_path / "edited.weights.h5")
    fresh = lamina.Sequential([lamina.Input((3,)), lamina.layers.Dense(2),
                               lamina.layers.Dense(1)])
    fresh.load_weights(tmp_path / "edited.weights.h5")
    x = np.array([[1.0, 1.0, 1.0]], "float32")
    # (x @ 0.5 + [1, -1]) = [2.5, 0.5]; @ [2, 3] = 6.5; + 5 (the edited bias) = 11.5
    np.testing.assert_allclose(fresh.predict(x, verbose=0), [[11.5]])
    with h5py.File(tmp_path / "edited.weights.h5", "r") as f:
        assert "layers/dense_1/vars/1" in f


def test_add_object_and_resave(tmp_path):
    model = lamina.Sequential([lamina.Input((2,)), lamina.layers.Dense(1)])
    model.save_weights(tmp_path / "one.weights.h5")
    editor = saving.KerasFileEditor(str(tmp_path / "one.weights.h5"))
    editor.add_object("layers/dense_1", {"0": np.ones((1, 4)), "1": np.zeros(4)})
    editor.resave_weights(tmp_path / "two.weights.h5")
    two = lamina.Sequential([lamina.Input((2,)), lamina.layers.Dense(1),
                             lamina.layers.Dense(4)])
    two.load_weights(tmp_path / "two.weights.h5")
    np.testing.assert_allclose(two.layers[1].get_weights()[0], np.ones((1, 4)))


def test_errors_name_what_is_wrong(tmp_path):
    editor = saving.KerasFileEditor(str(KERAS_FILE))
    with pytest.raises(ValueError, match="Path 'layers/nope' not found in model."):
        editor.delete_object("layers/nope")
    with pytest.raises(ValueError, match="Source name 'nope' does not appear in the model"):
        editor.delete_object("nope")
    with pytest.raises(ValueError, match="Name '0' occurs more than once in the model"):
        editor.delete_object("0")
    with pytest.raises(ValueError, match="`target_name` should be a leaf name"):
        editor.rename_object("dense", "a/b")
    with pytest.raises(ValueError, match=r"Weight 7 not found in object dense. Weights "
                                         r"found: \['0', '1'\]"):
        editor.delete_weight("dense", "7")
    with pytest.raises(ValueError, match="Argument `weights` should be a dict"):
        editor.add_object("layers/x", [1])
    with pytest.raises(ValueError, match="Path 'nope/deeper' not found in model."):
        editor.add_object("nope/deeper/x", {"0": np.ones(1)})
    with pytest.raises(ValueError, match="expected a `.weights.h5` extension"):
        editor.save(tmp_path / "x.h5")
    with pytest.raises(ValueError, match=r"expected a `.keras` or `.weights.h5` extension"):
        saving.KerasFileEditor(str(tmp_path / "model.h5"))


def test_files_that_point_outside_themselves_are_refused(tmp_path):
    other = tmp_path / "other.h5"
    with h5py.File(other, "w") as f:
        f["secret"] = np.arange(3)
    path = tmp_path / "evil.weights.h5"
    with h5py.File(path, "w") as f:
        f.create_group("layers/dense/vars")
        f["layers/dense/vars/0"] = h5py.ExternalLink(str(other), "secret")
    with pytest.raises(saving.UnsafeH5FileError):
        saving.KerasFileEditor(str(path))
