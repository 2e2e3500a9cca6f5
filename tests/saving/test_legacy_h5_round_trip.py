"""Lamina writes legacy .h5 files in Keras's layout and reads them back exactly: weights and
optimizer state bit for bit, the same config, the same compile arguments."""
import h5py
import numpy as np
import pytest

import lamina
from lamina import layers
from lamina.models import load_model
from lamina.saving import SavedFileExistsError, WeightMismatchError
from lamina.saving.legacy_weights import names_attribute, write_names

from .helpers import assert_identical, dense_bn, snapshot
from .legacy_files import as_list


def multi_io():
    a, b = lamina.Input((8,), name="a"), lamina.Input((5,), name="b")
    ha = layers.Dense(6, activation="tanh", name="da")(a)
    hb = layers.Dense(6, name="db")(b)
    h = layers.BatchNormalization(name="bn")(layers.Concatenate(name="cat")([ha, hb]))
    cls = layers.Dense(3, activation="softmax", name="cls")(h)
    reg = layers.Dense(1, name="reg")(layers.Add(name="add")([ha, hb]))
    return lamina.Model([a, b], [cls, reg], name="multi_io")


def vgg():
    def block(filters):
        return [layers.Conv2D(filters, 3, padding="same", use_bias=False),
                layers.BatchNormalization(), layers.Activation("relu"),
                layers.Conv2D(filters, 3, padding="same"), layers.ReLU(),
                layers.MaxPooling2D()]
    return lamina.Sequential([lamina.Input((8, 8, 3)), *block(4), *block(6),
                              layers.Flatten(), layers.Dense(8, activation="relu"),
                              layers.Dropout(0.2), layers.Dense(3, activation="softmax")])


def recurrent():
    return lamina.Sequential([
        lamina.Input((5,), dtype="int32"), layers.Embedding(12, 4, mask_zero=True),
        layers.Bidirectional(layers.LSTM(3, return_sequences=True)),
        layers.GRU(4, reset_after=False, return_sequences=True), layers.SimpleRNN(2),
        layers.Dense(2, activation="softmax")])


def data(model, n=16):
    rng = np.random.RandomState(0)
    xs = []
    for tensor in model.inputs:
        shape = (n, *tensor.shape[1:])
        xs.append(rng.randint(0, 12, shape).astype("int32") if "int" in tensor.dtype
                  else rng.rand(*shape).astype("float32"))
    ys = [rng.randint(0, 3, n) if name != "reg" else rng.rand(n, 1).astype("float32")
          for name in model._output_names_for_compile()]
    return (xs if len(xs) > 1 else xs[0]), (ys if len(ys) > 1 else ys[0] % 2)


CASES = {
    "sequential": (dense_bn, dict(optimizer="adam", loss="sparse_categorical_crossentropy",
                                  metrics=["accuracy"])),
    "multi_io": (multi_io, dict(optimizer=lamina.optimizers.SGD(0.05, momentum=0.9),
                                loss={"cls": "sparse_categorical_crossentropy", "reg": "mse"},
                                loss_weights={"cls": 1.0, "reg": 0.5},
                                metrics={"cls": ["accuracy"]})),
    "vgg": (vgg, dict(optimizer="rmsprop", loss="sparse_categorical_crossentropy")),
    "recurrent": (recurrent, dict(optimizer=lamina.optimizers.Adam(amsgrad=True),
                                  loss="sparse_categorical_crossentropy")),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_lamina_reads_back_exactly_what_it_wrote(name, tmp_path):
    build, compile_args = CASES[name]
    model = build()
    model.compile(**compile_args)
    x, y = data(model)
    model.fit(x, y, epochs=1, batch_size=8, verbose=0)
    model.save(tmp_path / "m.h5")
    back = load_model(tmp_path / "m.h5")
    assert_identical(snapshot(back), snapshot(model))        # optimizer state included
    assert back.get_config() == model.get_config()
    assert back.get_compile_config() == model.get_compile_config()
    for ours, theirs in zip(as_list(model.predict(x, verbose=0)),
                            as_list(back.predict(x, verbose=0))):
        np.testing.assert_array_equal(ours, theirs)
    if name in ("multi_io", "recurrent"):    # no dropout: training goes on identically
        a = model.fit(x, y, epochs=1, batch_size=8, shuffle=False, verbose=0)
        b = back.fit(x, y, epochs=1, batch_size=8, shuffle=False, verbose=0)
        assert a.history["loss"] == b.history["loss"]


def test_layout_is_keras(tmp_path):
    model = dense_bn()
    model.compile(optimizer="adam", loss="mse")
    model.fit(np.ones((4, 10), "float32"), np.ones((4, 4), "float32"), verbose=0)
    model.save(tmp_path / "m.hdf5")
    with h5py.File(tmp_path / "m.hdf5", "r") as f:
        assert f.attrs["keras_version"] == "3.15.1" and "model_config" in f.attrs
        assert '"optimizer_config": {"class_name": "Adam"' in f.attrs["training_config"]
        weights = f["model_weights"]
        assert names_attribute(weights, "layer_names") == [
            layer.name for layer in model.layers]
        bn = model.layers[1].name
        assert names_attribute(weights[bn], "weight_names") == [
            f"{bn}/gamma", f"{bn}/beta", f"{bn}/moving_mean", f"{bn}/moving_variance"]
        assert weights[f"{bn}/{bn}/moving_variance"].shape == (12,)
        assert names_attribute(weights["top_level_model_weights"], "weight_names") == []
        names = names_attribute(f["optimizer_weights"], "weight_names")
        name = model.optimizer.name        # "adam", or "adam_N" after other tests' Adams
        assert names[:2] == [f"{name}/iteration", f"{name}/learning_rate"]
        assert len(names) == 14 and int(f[f"optimizer_weights/{name}/iteration"][()]) == 1


def test_uncompiled_and_without_optimizer(tmp_path):
    model = dense_bn()
    model.save(tmp_path / "plain.h5")
    back = load_model(tmp_path / "plain.h5")
    assert not getattr(back, "compiled", False)
    assert_identical(snapshot(back), snapshot(model))
    model.compile(optimizer="adam", loss="mse")
    model.save(tmp_path / "no_opt.h5", include_optimizer=False)
    with h5py.File(tmp_path / "no_opt.h5", "r") as f:
        assert "training_config" not in f.attrs and "optimizer_weights" not in f
    with pytest.raises(SavedFileExistsError, match=r"'.*no_opt\.h5' already exists"):
        model.save(tmp_path / "no_opt.h5", overwrite=False)


def test_long_name_lists_are_chunked(tmp_path):
    names = [f"layer_{i:05d}_" + "x" * 40 for i in range(3000)]     # ~150 kB of names
    with h5py.File(tmp_path / "names.h5", "w") as f:
        write_names(f, "layer_names", names)
        assert "layer_names" not in f.attrs and "layer_names2" in f.attrs
        assert names_attribute(f, "layer_names") == names
        write_names(f, "weight_names", [])
        assert f.attrs["weight_names"].dtype == np.float64       # as Keras writes []
        assert names_attribute(f, "weight_names") == []


@lamina.saving.register_keras_serializable(package="LegacyTest")
class Scaled(lamina.Model):
    """A subclassed model with a variable of its own (``top_level_model_weights``)."""

    def __init__(self, units=3, **kwargs):
        super().__init__(**kwargs)
        self.units = units
        self.hidden = layers.Dense(units, name="hidden")
        self.scale = self.add_weight(shape=(units,), initializer="ones", name="scale")

    def call(self, x):
        return self.hidden(x) * self.scale

    def get_config(self):
        return {**super().get_config(), "units": self.units}


def test_registered_subclass_and_its_own_weights(tmp_path):
    model = Scaled()
    model.build((None, 4))
    model.scale.assign(np.array([1.0, 2.0, 3.0], "float32"))
    model.save(tmp_path / "scaled.h5")
    with h5py.File(tmp_path / "scaled.h5", "r") as f:
        top = f["model_weights/top_level_model_weights"]
        assert names_attribute(top, "weight_names") == [model.scale.path]
    back = load_model(tmp_path / "scaled.h5")
    assert isinstance(back, Scaled)
    assert_identical(snapshot(back), snapshot(model))
    with h5py.File(tmp_path / "scaled.h5", "r+") as f:
        top = f["model_weights/top_level_model_weights"]
        del top[model.scale.path]
        top[model.scale.path] = np.ones(5, "float32")
    with pytest.raises(WeightMismatchError, match=r"weight '.*scale': expected shape \(3,\), "
                                                  r"found \(5,\).*top_level_model_weights"):
        load_model(tmp_path / "scaled.h5")


@lamina.saving.register_keras_serializable(package="legacy_round_trip")
def _mean_squared(y_true, y_pred):
    return lamina.ops.mean(lamina.ops.square(y_pred - y_true), axis=-1)


def test_a_registered_function_loss_compiles_back(tmp_path):
    """The file's training_config names the function ({"class_name": "function", "config":
    "pkg>name"}); Keras 3 itself writes just the name."""
    inputs = lamina.Input((4,), batch_size=2)
    model = lamina.Model(inputs, layers.Dense(1)(inputs))
    model.compile(optimizer="adam", loss=_mean_squared, metrics=["mse"])
    x = np.random.default_rng(0).random((2, 4)).astype("float32")
    model.save(tmp_path / "m.h5")
    loaded = lamina.saving.load_model(tmp_path / "m.h5")
    y = np.ones((2, 1), "float32")
    assert loaded.compiled
    np.testing.assert_allclose(loaded.evaluate(x, y, verbose=0),
                               model.evaluate(x, y, verbose=0), rtol=1e-6)
