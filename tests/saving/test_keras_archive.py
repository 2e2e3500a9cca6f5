"""``.keras`` archives: Keras 3's zip layout and config schema, Keras's own files, and
bit-identical round trips of weights, compile arguments and optimizer state."""
import json
import re
import zipfile

import h5py
import numpy as np
import pytest

import lamina
from lamina import layers
from lamina.saving import load_model, model_from_json, save_model

from .helpers import BUILDERS, FIXTURES, assert_identical, dense_bn, reference, snapshot


def compiled(model, optimizer="adam", metrics=None):
    model.compile(optimizer=optimizer, loss="sparse_categorical_crossentropy",
                  metrics=metrics)
    x = np.random.default_rng(0).normal(size=(8, 10)).astype(model.weights[0].dtype)
    model.fit(x, np.arange(8) % 4, epochs=1, batch_size=4, verbose=0, shuffle=False)
    return model


def test_archive_layout_and_config_schema(tmp_path):
    model = compiled(dense_bn(), metrics=["accuracy"])
    model.save(tmp_path / "m.keras")
    with zipfile.ZipFile(tmp_path / "m.keras") as zf:
        infos = zf.infolist()
        metadata = json.loads(zf.read("metadata.json"))
        config = json.loads(zf.read("config.json"))
    assert [i.filename for i in infos] == ["metadata.json", "config.json", "model.weights.h5"]
    assert all(i.compress_type == zipfile.ZIP_STORED for i in infos)
    assert metadata["keras_version"] == "3.15.1"
    assert re.fullmatch(r"\d{4}-\d\d-\d\d@\d\d:\d\d:\d\d", metadata["date_saved"])
    assert list(config) == ["module", "class_name", "config", "registered_name",
                            "build_config", "compile_config"]
    assert (config["module"], config["class_name"], config["registered_name"]) == \
        ("keras", "Sequential", None)
    assert config["build_config"] == {"input_shape": [None, 10]}
    assert config["config"]["layers"][1]["module"] == "keras.layers"
    compile_config = config["compile_config"]
    assert sorted(compile_config) == sorted(
        ["optimizer", "loss", "loss_weights", "metrics", "weighted_metrics", "run_eagerly",
         "steps_per_execution", "jit_compile"])
    assert compile_config["optimizer"]["module"] == "keras.optimizers"
    assert compile_config["optimizer"]["class_name"] == "Adam"
    assert compile_config["optimizer"]["config"]["learning_rate"] == pytest.approx(0.001)
    assert compile_config["loss"] == "sparse_categorical_crossentropy"
    assert compile_config["metrics"] == ["accuracy"]
    assert (compile_config["run_eagerly"], compile_config["steps_per_execution"],
            compile_config["jit_compile"]) == (False, 1, False)


def test_saving_does_not_change_the_compile_config(tmp_path):
    model = compiled(dense_bn())
    before = dict(model._compile_config)
    model.save(tmp_path / "m.keras")
    assert model._compile_config == before and model.optimizer is not None


@pytest.mark.parametrize("name", sorted(BUILDERS))
def test_loads_models_written_by_keras(name):
    model = load_model(FIXTURES / f"{name}_k3.keras")
    x0, pred = reference(name)
    np.testing.assert_allclose(model.predict(x0, verbose=0), pred, rtol=1e-4, atol=1e-5)
    assert isinstance(model.optimizer, lamina.optimizers.Adam)
    assert int(model.optimizer.iterations.numpy()) == 8            # 2 epochs of 4 steps
    with zipfile.ZipFile(FIXTURES / f"{name}_k3.keras") as zf, \
            h5py.File(zf.open("model.weights.h5"), "r") as f:
        saved = [f[f"optimizer/vars/{i}"][()] for i in range(len(f["optimizer/vars"]))]
    loaded = [v.numpy() for v in model.optimizer.variables]
    assert [a.tobytes() for a in loaded[1:]] == [a.tobytes() for a in saved[1:]]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_round_trip_keeps_every_number(backend, dtype, tmp_path):
    model = compiled(dense_bn(dtype))
    model.save(tmp_path / "m.keras")
    loaded = load_model(tmp_path / "m.keras")
    assert_identical(snapshot(loaded), snapshot(model))
    assert loaded.get_config() == model.get_config()
    assert loaded.get_compile_config() == model.get_compile_config()
    x = np.random.default_rng(1).normal(size=(3, 10)).astype(dtype)
    assert loaded.predict(x, verbose=0).tobytes() == model.predict(x, verbose=0).tobytes()


def test_compile_false_gives_an_uncompiled_model(tmp_path):
    compiled(dense_bn()).save(tmp_path / "m.keras")
    model = load_model(tmp_path / "m.keras", compile=False)
    assert not getattr(model, "compiled", False)
    assert getattr(model, "optimizer", None) is None


def test_include_optimizer_false_leaves_the_state_out(tmp_path):
    model = compiled(dense_bn())
    model.save(tmp_path / "m.keras", include_optimizer=False)
    with zipfile.ZipFile(tmp_path / "m.keras") as zf, \
            h5py.File(zf.open("model.weights.h5"), "r") as f:
        assert "optimizer" not in f
    loaded = load_model(tmp_path / "m.keras")
    assert int(loaded.optimizer.iterations.numpy()) == 0          # fresh, compiled
    assert_identical(snapshot(loaded)[:8], snapshot(model)[:8])


def test_unzipped_folder_round_trip(tmp_path):
    model = compiled(dense_bn())
    model.save(tmp_path / "m_dir", zipped=False)                # any name but '*.keras'
    assert sorted(p.name for p in (tmp_path / "m_dir").iterdir()) == \
        ["config.json", "metadata.json", "model.weights.h5"]
    model.save(tmp_path / "m_dir", zipped=False)               # replaces the folder
    assert_identical(snapshot(load_model(tmp_path / "m_dir")), snapshot(model))


def test_functional_model_round_trip(tmp_path):
    inputs = lamina.Input((4,), name="x")
    hidden = layers.Dense(3, activation="tanh", name="h")(inputs)
    outputs = [layers.Dense(2, name="a")(hidden), layers.Dense(1, name="b")(hidden)]
    model = lamina.Model(inputs, outputs, name="two_heads")
    model.compile(optimizer=lamina.optimizers.SGD(0.1, momentum=0.5), loss=["mse", "mae"],
                  loss_weights=[1.0, 0.5])
    x = np.linspace(-1, 1, 12, dtype="float32").reshape(3, 4)
    model.fit(x, [np.ones((3, 2), "float32"), np.zeros((3, 1), "float32")], verbose=0)
    save_model(model, tmp_path / "f.keras")
    loaded = load_model(tmp_path / "f.keras")
    assert loaded.name == "two_heads" and [l.name for l in loaded.layers] == \
        ["x", "h", "a", "b"]
    assert_identical(snapshot(loaded), snapshot(model))
    assert loaded.get_compile_config()["loss_weights"] == [1.0, 0.5]


@lamina.saving.register_keras_serializable(package="SavingTests")
class Scale(layers.Layer):
    def __init__(self, init=2.0, **kwargs):
        super().__init__(**kwargs)
        self.init = init

    def build(self, input_shape):
        self.scale = self.add_weight(shape=(input_shape[-1],), name="scale",
                                     initializer=lamina.initializers.Constant(self.init))

    def call(self, x):
        return x * self.scale

    def get_config(self):
        return {**super().get_config(), "init": self.init}


class Unregistered(Scale):
    pass


def test_registered_custom_layer_round_trip(tmp_path):
    model = lamina.Sequential([lamina.Input((3,)), Scale(3.0)])
    model.save(tmp_path / "c.keras")
    with zipfile.ZipFile(tmp_path / "c.keras") as zf:
        entry = json.loads(zf.read("config.json"))["config"]["layers"][1]
    assert entry["registered_name"] == "SavingTests>Scale"
    loaded = load_model(tmp_path / "c.keras")
    assert isinstance(loaded.layers[0], Scale)
    np.testing.assert_array_equal(loaded.layers[0].scale.numpy(), [3.0, 3.0, 3.0])


def test_unregistered_layer_needs_custom_objects(tmp_path):
    lamina.Sequential([lamina.Input((3,)), Unregistered(name="u")]).save(tmp_path / "u.keras")
    with pytest.raises(lamina.saving.UnknownObjectError,
                       match=r"unknown layer 'Unregistered'.*custom_objects="):
        load_model(tmp_path / "u.keras")
    model = load_model(tmp_path / "u.keras", custom_objects={"Unregistered": Unregistered})
    assert isinstance(model.layers[0], Unregistered)


def test_to_json_and_model_from_json(tmp_path):
    model = compiled(dense_bn())
    text = model.to_json(indent=1)
    assert json.loads(text)["compile_config"]["optimizer"]["class_name"] == "Adam"
    rebuilt = model_from_json(text)
    assert rebuilt.get_config() == model.get_config()
    assert isinstance(rebuilt.optimizer, lamina.optimizers.Adam)


def squared_error(y_true, y_pred):
    return lamina.ops.mean(lamina.ops.square(y_true - y_pred), axis=-1)


def test_custom_loss_and_metric_objects_in_the_compile_config(tmp_path):
    model = lamina.Sequential([lamina.Input((3,)), layers.Dense(2)])
    model.compile(optimizer="sgd", loss=squared_error,
                  metrics=[lamina.metrics.MeanAbsoluteError()])
    x, y = np.ones((4, 3), "float32"), np.full((4, 2), 0.5, "float32")
    model.fit(x, y, verbose=0)
    model.save(tmp_path / "c.keras")
    with pytest.raises(lamina.saving.UnknownObjectError,
                       match=r"unknown loss 'squared_error'.*pass compile=False"):
        load_model(tmp_path / "c.keras")
    loaded = load_model(tmp_path / "c.keras", custom_objects={"squared_error": squared_error})
    assert loaded.loss is squared_error
    assert loaded.evaluate(x, y, verbose=0) == model.evaluate(x, y, verbose=0)
