"""``lamina.saving.describe`` and ``python -m lamina.saving``: a saved file's layers, output
shapes, parameter counts and weight shapes, read without building the model."""
import json
import os
import subprocess
import sys
import zipfile

import h5py
import numpy as np
import pytest

import lamina
from lamina import layers
from lamina.saving import CorruptFileError, FileFormatError, SavedFileNotFoundError, describe

from .helpers import FIXTURES

REPO = FIXTURES.parent.parent.parent


def _rows(description):
    return [(r.name, r.class_name, r.output_shape, r.params, r.depth)
            for r in description.layers]


def test_a_keras_3_archive(capsys):
    d = describe(FIXTURES / "dense_bn_k3.keras")
    assert d.kind == ".keras" and d.model == "Sequential 'sequential'"
    assert _rows(d) == [("input_layer", "InputLayer", "(None, 10)", 0, 0),
                        ("dense", "Dense", "(None, 12)", 132, 0),
                        ("batch_normalization", "BatchNormalization", "?", 48, 0),
                        ("activation", "Activation", "?", 0, 0),
                        ("dropout", "Dropout", "(None, 12)", 0, 0),
                        ("dense_1", "Dense", "?", 52, 0)]
    assert d.total_params == 232
    assert d.weights["layers/dense/vars/0"] == ((10, 12), "float32")
    assert d.weights["layers/batch_normalization/vars/3"] == ((12,), "float32")
    assert list(d.weights)[-2:] == ["optimizer/vars/12", "optimizer/vars/13"]   # 10 < 12
    assert "Saved by Keras 3.15.1 on 2026-11-22@13:56:56" in d.details
    assert any(line.startswith("Compiled: optimizer Adam") and
               '"sparse_categorical_crossentropy"' in line for line in d.details)
    assert "Optimizer state: 14 variables, iterations 8" in d.details
    printed = capsys.readouterr().out
    assert printed == str(d) + "\n"
    assert "dense_1 (Dense)" in printed and "Total params: 232" in printed
    assert "  layers/dense_1/vars/0  (12, 4) float32" in printed


def test_a_recurrent_archive_counts_the_cell_weights():
    d = describe(FIXTURES / "gru_text_k3.keras", print_fn=None)
    assert _rows(d)[1:] == [("embedding", "Embedding", "(None, 6, 4)", 80, 0),
                            ("gru", "GRU", "(None, 5)", 3 * 5 * (4 + 5 + 2), 0),
                            ("dense_3", "Dense", "?", 12, 0)]


@pytest.mark.parametrize("name, version, prefix", [
    ("dense_bn_k2.h5", "2.21.0", "dense/dense/kernel:0"),
    ("dense_bn_k3.h5", "3.15.1", "dense/sequential/dense/kernel")])
def test_legacy_h5_files(name, version, prefix):
    d = describe(FIXTURES / name, print_fn=None)
    assert d.kind == "legacy .h5"
    assert [(r.class_name, r.params) for r in d.layers] == [
        ("InputLayer", 0), ("Dense", 132), ("BatchNormalization", 48), ("Activation", 0),
        ("Dropout", 0), ("Dense", 52)]
    assert d.layers[0].output_shape == "(None, 10)"
    assert d.total_params == 232
    assert d.weights[prefix] == ((10, 12), "float32")
    assert len(d.weights) == 8                     # the model's; the optimizer's not listed
    assert f"Saved by Keras {version} (backend tensorflow)" in d.details
    assert any(line.startswith("Optimizer state: 1") for line in d.details)


def test_a_weights_file_lists_objects_by_path():
    d = describe(FIXTURES / "small_cnn_k3.weights.h5", print_fn=None)
    assert d.kind == ".weights.h5" and d.model is None
    assert _rows(d) == [("conv2d", "layers/conv2d", "?", 76, 0),
                        ("conv2d_1", "layers/conv2d_1", "?", 102, 0),
                        ("dense_2", "layers/dense", "?", 21, 0)]
    assert d.weights["layers/conv2d/vars/0"] == ((3, 3, 2, 4), "float32")
    assert "Optimizer state: 14 variables, iterations 8" in d.details
    assert "Layer (weights path)" in str(d)


def _multi_model():
    inner = lamina.Sequential([lamina.Input((8,), name="inner_in"),
                               layers.Dense(4, name="inner_dense"),
                               layers.Dense(3, name="inner_out")], name="inner")
    a, b = lamina.Input((8,), name="a"), lamina.Input((5,), name="b")
    joined = layers.Concatenate(name="join")([inner(a), b])
    sequence = layers.Reshape((8, 1), name="seq")(joined)
    outputs = [layers.Dense(2, name="out")(joined), layers.LSTM(3, name="rnn")(sequence)]
    return lamina.Model([a, b], outputs, name="multi")


def test_lamina_model_counts_match_the_built_model(tmp_path):
    model = _multi_model()
    model.save(tmp_path / "multi.keras")
    d = describe(tmp_path / "multi.keras", print_fn=None)
    assert d.model == "Functional 'multi'"
    assert [(r.name, r.depth) for r in d.layers] == [
        # Keras 3's order of the layers (by depth from the outputs), then nested ones.
        ("a", 0), ("inner", 0), ("inner_in", 1), ("inner_dense", 1), ("inner_out", 1),
        ("b", 0), ("join", 0), ("seq", 0), ("out", 0), ("rnn", 0)]
    for row in d.layers:
        if row.depth == 0:
            assert row.params == model.get_layer(row.name).count_params(), row.name
        elif row.class_name != "InputLayer":     # a Sequential's layers leave it out
            assert row.params == model.get_layer("inner").get_layer(
                row.name).count_params(), row.name
    assert d.total_params == model.count_params() == 51 + 18 + 4 * 3 * (1 + 3 + 1)
    shapes = {r.name: r.output_shape for r in d.layers}
    assert shapes["inner"] == "(None, 3)" and shapes["join"] == "(None, 8)"
    assert shapes["seq"] == "(None, 8, 1)" and shapes["out"] == "?"
    assert "Not compiled" in d.details and any("Lamina" in line for line in d.details)


def test_nothing_is_built_or_looked_up(tmp_path, monkeypatch):
    model = _multi_model()
    model.save(tmp_path / "multi.keras")

    def forbidden(*args, **kwargs):
        raise AssertionError("describe built or deserialized something")
    monkeypatch.setattr(lamina.layers.Layer, "__init__", forbidden)
    monkeypatch.setattr(lamina.layers, "deserialize", forbidden)
    monkeypatch.setattr(lamina.registry.serialization, "deserialize_keras_object",
                        forbidden)
    assert describe(tmp_path / "multi.keras", print_fn=None).total_params == 129


def test_an_unknown_custom_class_is_still_described(tmp_path):
    path = tmp_path / "ghost.keras"
    lamina.Sequential([lamina.Input((3,)), layers.Dense(2)], name="s").save(path)
    _edit_archive(path, "config.json", lambda c: c["config"]["layers"][1].update(
        class_name="Ghost", registered_name="Nowhere>Ghost"))
    d = describe(path, print_fn=None)
    assert [(r.class_name, r.params) for r in d.layers] == [("InputLayer", 0), ("Ghost", 0)]
    assert d.weights["layers/dense/vars/0"] == ((3, 2), "float32")   # still listed
    with pytest.raises(lamina.saving.UnknownObjectError, match=r"Nowhere>Ghost"):
        lamina.models.load_model(path)


class TwoHeads(lamina.Model):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.body = layers.Dense(4)
        self.head = layers.Dense(2)

    def call(self, x):
        return self.head(self.body(x))


def test_a_subclassed_model_is_listed_by_attribute(tmp_path):
    model = TwoHeads(name="two")
    model(np.zeros((1, 3), "float32"))
    model.save(tmp_path / "sub.keras")
    d = describe(tmp_path / "sub.keras", print_fn=None)
    assert [(r.class_name, r.params) for r in d.layers] == [("body", 16), ("head", 10)]
    assert d.model == "TwoHeads 'two'"


def test_chunked_name_attributes_and_a_weights_only_legacy_file(tmp_path):
    path = tmp_path / "chunked.h5"
    with h5py.File(path, "w") as f:
        f.attrs["layer_names0"] = np.array([b"d1"], dtype="S")
        f.attrs["layer_names1"] = np.array([b"d2"], dtype="S")
        for name, shape in (("d1", (3, 4)), ("d2", (4, 2))):
            f.create_dataset(f"{name}/{name}/kernel:0", data=np.zeros(shape, "float32"))
            f[name].attrs["weight_names"] = [f"{name}/kernel:0"]
    d = describe(path, print_fn=None)
    assert d.model is None
    assert [(r.name, r.params) for r in d.layers] == [("d1", 12), ("d2", 8)]
    assert d.weights == {"d1/d1/kernel:0": ((3, 4), "float32"),
                         "d2/d2/kernel:0": ((4, 2), "float32")}


def _edit_archive(path, name, edit):
    with zipfile.ZipFile(path) as zf:
        entries = {n: zf.read(n) for n in zf.namelist()}
    if edit is None:
        entries[name] = b"{not json"
    else:
        value = json.loads(entries[name])
        edit(value)
        entries[name] = json.dumps(value).encode()
    with zipfile.ZipFile(path, "w") as zf:
        for n, data in entries.items():
            zf.writestr(n, data)


def test_errors_name_the_file_and_the_problem(tmp_path):
    with pytest.raises(SavedFileNotFoundError, match=r"describe: no file or folder at "
                                                     r"'.*missing\.keras'"):
        describe(tmp_path / "missing.keras")
    (tmp_path / "notes.txt").write_text("hello")
    with pytest.raises(FileFormatError, match=r"'.*notes\.txt' is not a model file.*"
                                              r"'\.keras', '\.weights\.h5'"):
        describe(tmp_path / "notes.txt")
    for name in ("empty.h5", "empty.weights.h5"):
        (tmp_path / name).write_bytes(b"")
        with pytest.raises(CorruptFileError, match=rf"cannot read '.*{name}' as HDF5.*"
                                                   r"empty, truncated"):
            describe(tmp_path / name)
    (tmp_path / "empty.keras").write_bytes(b"")
    with pytest.raises(CorruptFileError, match=r"empty\.keras'.*not a readable \.keras zip"):
        describe(tmp_path / "empty.keras")


def test_damaged_configs_are_typed_errors(tmp_path):
    path = tmp_path / "m.keras"
    lamina.Sequential([lamina.Input((3,)), layers.Dense(2)]).save(path)
    _edit_archive(path, "metadata.json", None)
    with pytest.raises(CorruptFileError, match=r"m\.keras': metadata\.json is not valid JSON"):
        describe(path)
    for config, message in (("{oops", r"model_config is not valid JSON"),
                            ("[1, 2]", r"model_config should be a JSON object; found "
                                       r"'\[1, 2\]'")):
        with h5py.File(tmp_path / "bad.h5", "w") as f:
            f.attrs["model_config"] = config
            f.create_group("model_weights").attrs["layer_names"] = []
        with pytest.raises(CorruptFileError, match=rf"bad\.h5': {message}"):
            describe(tmp_path / "bad.h5")
    with h5py.File(tmp_path / "hole.h5", "w") as f:
        f.attrs["layer_names"] = ["dense"]           # lists a group the file lacks
    with pytest.raises(CorruptFileError, match=r"describe: cannot read '.*hole\.h5': "
                                               r"KeyError"):
        describe(tmp_path / "hole.h5")


def test_the_command_line():
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    result = subprocess.run([sys.executable, "-m", "lamina.saving",
                             str(FIXTURES / "dense_bn_k2.h5"), str(FIXTURES / "nope.keras")],
                            capture_output=True, text=True, timeout=120, env=env)
    assert result.returncode == 1
    assert "Model: Sequential 'sequential'" in result.stdout
    assert "batch_normalization (BatchNormalization)" in result.stdout
    assert result.stderr.strip().startswith("error: describe: no file or folder at")
    assert "Traceback" not in result.stderr
    ok = subprocess.run([sys.executable, "-m", "lamina.saving",
                         str(FIXTURES / "small_cnn_k3.keras")],
                        capture_output=True, text=True, timeout=120, env=env)
    assert ok.returncode == 0 and "Total params: 199" in ok.stdout


def test_repr_is_short():
    d = describe(FIXTURES / "small_cnn_k3.keras", print_fn=None)
    assert repr(d) == (f"<Description of {str(FIXTURES / 'small_cnn_k3.keras')!r}: "
                       f"Sequential 'sequential_1', 6 layers, 20 weight arrays>")


def test_a_legacy_nested_model_counts_its_inner_layers(tmp_path):
    """Keras 3 writes a nested model's weights in its own group, named by inner layer."""
    inner = {"class_name": "Sequential", "name": "inner", "config": {"name": "inner", "layers": [
        {"class_name": "InputLayer", "config": {"name": "i", "batch_shape": [None, 3]}},
        {"class_name": "Dense", "config": {"name": "dense_1", "units": 2}}]}}
    config = {"class_name": "Functional", "config": {"name": "outer", "layers": [
        {"class_name": "InputLayer", "name": "x", "config": {"name": "x",
                                                             "batch_input_shape": [None, 3]}},
        inner]}}
    with h5py.File(tmp_path / "nested.h5", "w") as f:
        f.attrs["model_config"] = json.dumps(config).encode()     # Keras 2 writes bytes
        group = f.create_group("model_weights")
        group.attrs["layer_names"] = [b"x", b"inner"]
        group.create_group("x").attrs["weight_names"] = np.asarray([])   # float64, empty
        names = ["inner/dense_1/kernel", "inner/dense_1/bias"]
        group.create_group("inner").attrs["weight_names"] = names
        group.create_dataset("inner/inner/dense_1/kernel", data=np.zeros((3, 2), "float32"))
        group.create_dataset("inner/inner/dense_1/bias", data=np.zeros((2,), "float32"))
    d = describe(tmp_path / "nested.h5", print_fn=None)
    assert _rows(d) == [("x", "InputLayer", "(None, 3)", 0, 0),
                        ("inner", "Sequential", "?", 8, 0),
                        ("i", "InputLayer", "(None, 3)", 0, 1),
                        ("dense_1", "Dense", "?", 8, 1)]
    assert d.model == "Functional 'outer'" and d.total_params == 8
