"""Focused regressions for what the mutation sweep found (sweep seeds in each docstring)."""
import json
import zipfile
import types

import h5py
import numpy as np
import pytest

import lamina
from lamina.graph.errors import ExportError
from lamina.h5_guard import H5FileError, check_contained
from lamina.registry import UnknownObjectError
from lamina.saving.errors import CorruptFileError

from .sweep_files import X, build


def _model():
    model = build()
    model(X)
    return model


def test_truncated_exported_graph_raises_export_error_naming_it(tmp_path):
    """Sweep exported-3: h5py's raw OSError ("truncated file") escaped load_exported."""
    path = tmp_path / "m.graph.h5"
    _model().export(path, x=X)
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(ExportError, match=r"load_exported: cannot load '.*m\.graph\.h5': the "
                                          r"file is damaged .*OSError.*truncated"):
        lamina.graph.load_exported(path)


def test_exported_graph_json_damage_is_caught_by_its_digest(tmp_path):
    """Sweep exported-2: one flipped bit in a node's JSON ('shape' -> 'shApe') reached the
    graph rebuild; a changed reference (here: which variable a node reads) loaded a different
    graph silently."""
    path = tmp_path / "m.graph.h5"
    model = _model()
    model.export(path, x=X)
    with h5py.File(path, "r+") as f:
        nodes = [t.decode() if isinstance(t, bytes) else t for t in f["graph/nodes"][()]]
        index = next(i for i, t in enumerate(nodes) if '"variable:4"' in t)
        f["graph/nodes"][index] = nodes[index].replace('"variable:4"', '"variable:3"')
    with pytest.raises(ExportError, match=r"'.*m\.graph\.h5': the graph's JSON does not "
                                          r"match its SHA-256 \(attribute 'graph_sha256'\)"):
        lamina.graph.load_exported(path)


def test_exported_graph_intact_still_loads_identically(tmp_path):
    path = tmp_path / "m.graph.h5"
    model = _model()
    model.export(path, x=X)
    with h5py.File(path, "r") as f:
        assert f.attrs["format_version"] == 2 and len(f.attrs["graph_sha256"]) == 64
    np.testing.assert_array_equal(lamina.graph.load_exported(path)(X),
                                  np.asarray(model.predict(X, verbose=0)))


def test_unwalkable_h5_raises_h5_file_error_naming_it(tmp_path):
    """Sweep legacy-11: zeroed bytes made the walk fail with "TypeError: Objects of class
    FileID cannot be hashed" out of check_contained."""
    def unhashable(*args, **kwargs):
        raise TypeError("Objects of class FileID cannot be hashed")

    class Broken:
        id = types.SimpleNamespace(links=types.SimpleNamespace(visit=unhashable))
        name = "/"
        __iter__ = unhashable
    with pytest.raises(H5FileError, match=r"'where\.h5': the file is damaged: its groups "
                                          r"cannot be read \(TypeError: Objects of class"):
        check_contained(Broken(), "where.h5")


def test_keras_config_error_names_the_file(tmp_path):
    """Sweep keras-6: a layer config without 'class_name' raised UnknownObjectError that
    did not name the file."""
    path = tmp_path / "m.keras"
    _model().save(path)
    with zipfile.ZipFile(path) as zf:
        entries = [(i.filename, zf.read(i)) for i in zf.infolist()]
    config = json.loads(entries[1][1])
    del config["config"]["layers"][1]["class_name"]
    entries[1] = ("config.json", json.dumps(config).encode())
    with zipfile.ZipFile(path, "w") as zf:
        for name, data in entries:
            zf.writestr(name, data)
    with pytest.raises(UnknownObjectError, match=r"cannot load '.*m\.keras': cannot "
                                                 r"deserialize layer: the config has no "
                                                 r"'class_name' key"):
        lamina.saving.load_model(path)


def test_legacy_file_with_a_damaged_group_name_is_refused(tmp_path):
    """Sweep legacy-38: a bit flipped in the name 'optimizer_weights' loaded the model
    without its optimizer state, silently."""
    path = tmp_path / "m.h5"
    model = _model()
    model.fit(X, np.zeros((2, 2), "float32"), verbose=0)
    model.save(path)
    with h5py.File(path, "r+") as f:
        f.move("optimizer_weights", "optimizer_weighds")
    with pytest.raises(CorruptFileError, match=r"load_model: '.*m\.h5' holds "
                                               r"\['optimizer_weighds'\] at its root, where a"
                                               r" Keras model file has only \['model_weights',"
                                               r" 'optimizer_weights'\]"):
        lamina.saving.load_model(path)


def _layers_of(config):
    return config["config"]["layers"]


@pytest.mark.parametrize("suffix", [".keras", ".h5"])
def test_a_config_declaring_huge_weights_is_refused_before_allocating(tmp_path, suffix):
    """Sweep keras-28: a build_config of (10**9, 10**9) made load_model allocate and
    initialize an 8 GB kernel (64 s) before refusing. Variables a rebuilt model creates
    are now charged against the weights the file stores, before their initializer runs."""
    import time

    from lamina.core.weight_budget import WeightBudgetError
    path = tmp_path / f"m{suffix}"
    _model().save(path)
    if suffix == ".keras":
        with zipfile.ZipFile(path) as zf:
            entries = [(i.filename, zf.read(i)) for i in zf.infolist()]
        k = [name for name, _ in entries].index("config.json")
        config = json.loads(entries[k][1])
        dense = next(layer for layer in _layers_of(config) if layer["class_name"] == "Dense")
        dense["config"]["units"] = 10 ** 9
        entries[k] = ("config.json", json.dumps(config).encode())
        with zipfile.ZipFile(path, "w") as zf:
            for name, data in entries:
                zf.writestr(name, data)
    else:
        with h5py.File(path, "r+") as f:
            config = json.loads(f.attrs["model_config"])
            dense = next(layer for layer in _layers_of(config)
                         if layer["class_name"] == "Dense")
            dense["config"]["units"] = 10 ** 9
            f.attrs["model_config"] = json.dumps(config)
    start = time.perf_counter()
    with pytest.raises(WeightBudgetError, match=r"variable '.*kernel' of shape \(\d+, "
                                                r"1000000000\) needs [\d,]+ bytes, but the "
                                                r"model's weights may total only [\d,]+ bytes: "
                                                r"'.*m\.(keras|h5)'"):
        lamina.saving.load_model(path)
    assert time.perf_counter() - start < 5
