"""Keras 3's saving hooks on layers: ``save_own_variables(store)`` /
``load_own_variables(store)`` (and ``save_assets`` / ``load_assets``) are what ``.keras`` and
``.weights.h5`` files hold for each layer, as in keras/src/saving/saving_lib_test.py."""
import io
import os
import warnings
import zipfile

import h5py
import numpy as np
import pytest

import lamina
from lamina import layers
from lamina.h5_guard import create_checked
from lamina.saving.errors import SavingError
from lamina.saving.object_graph import saveables
from lamina.saving.weights_h5 import write_weights

STORED = np.arange(10, dtype="float32") / 7.0
ASSETS = "These are my assets"


@lamina.saving.register_keras_serializable(package="HookTests")
class CustomSaving(layers.Dense):
    """Keras's LayerWithCustomSaving: its own arrays and an asset file, no kernel."""

    def build(self, input_shape):
        super().build(input_shape)
        self.assets = ASSETS
        self.stored_variables = STORED

    def save_assets(self, inner_path):
        with open(os.path.join(inner_path, "assets.txt"), "w") as f:
            f.write(self.assets)

    def save_own_variables(self, store):
        store["variables"] = self.stored_variables

    def load_assets(self, inner_path):
        with open(os.path.join(inner_path, "assets.txt")) as f:
            self.assets = f.read()

    def load_own_variables(self, store):
        self.stored_variables = np.array(store["variables"])


@lamina.saving.register_keras_serializable(package="HookTests")
class Doubled(layers.Dense):
    """Stores its kernel times two and an extra array; halves the kernel back on load."""

    def save_own_variables(self, store):
        store["kernel_x2"] = self._kernel.numpy() * 2
        store["bias"] = self.bias
        store["note"] = np.array([7.0], "float32")

    def load_own_variables(self, store):
        self.kernel.assign(store["kernel_x2"] / 2)
        self.bias.assign(store["bias"])
        self.note = store["note"]


class Failing(layers.Dense):
    """Assigns its kernel, then fails (a broken override)."""

    def load_own_variables(self, store):
        self.kernel.assign(np.full(self.kernel.shape, 9.0, "float32"))
        raise KeyError("broken")


def _model(layer, inputs=3):
    model = lamina.Sequential([lamina.Input((inputs,)), layers.Dense(4), layer])
    model(np.ones((1, inputs), "float32"))
    return model


def _vars(path, group):
    with h5py.File(path, "r") as f:
        return {k: np.asarray(v) for k, v in f[group].items()}


# ------------------------------------------------------------------ the default hooks
def test_default_save_writes_own_weights_in_keras_order():
    layer = layers.Dense(3)
    layer.build((None, 2))
    store = {}
    layer.save_own_variables(store)
    assert list(store) == ["0", "1"]
    assert store["0"] is layer.kernel and store["1"] is layer.bias


def test_default_load_assigns_in_order():
    layer = layers.Dense(3)
    layer.build((None, 2))
    kernel, bias = np.arange(6, dtype="float32").reshape(2, 3), np.array([1., 2., 3.], "f4")
    layer.load_own_variables({"0": kernel, "1": bias})
    np.testing.assert_array_equal(layer.kernel.numpy(), kernel)
    np.testing.assert_array_equal(layer.bias.numpy(), bias)


def test_default_load_refuses_another_count():
    layer = layers.Dense(3, name="d3")
    layer.build((None, 2))
    with pytest.raises(ValueError, match=r"Layer 'd3' expected 2 variables, but received 3 "
                                         r"variables during loading. Expected: \['kernel', "
                                         r"'bias'\]"):
        layer.load_own_variables({str(i): np.zeros(1) for i in range(3)})


def test_default_load_on_an_unbuilt_layer():
    with pytest.raises(ValueError, match="Layer 'never' was never built and thus it doesn't "
                                         "have any variables. However the weights file "
                                         "lists 2 variables"):
        layers.Dense(3, name="never").load_own_variables({"0": 1, "1": 2})


def test_default_load_refuses_a_shape_and_assigns_nothing():
    layer = layers.Dense(3, name="d3")
    layer.build((None, 2))
    before = layer.get_weights()
    with pytest.raises(ValueError, match=r"d3.*variable 1 'bias' has shape \(3,\); the "
                                         r"stored value has shape \(4,\)"):
        layer.load_own_variables({"0": np.ones((2, 3)), "1": np.ones(4)})
    for old, new in zip(before, layer.get_weights()):
        np.testing.assert_array_equal(old, new)


def test_default_load_refuses_other_key_names():
    layer = layers.Dense(3, name="d3")
    layer.build((None, 2))
    with pytest.raises(ValueError, match=r"named '0' to '1'; received keys \['0', 'x'\]"):
        layer.load_own_variables({"0": np.ones((2, 3)), "x": np.ones(3)})


def _old_writer(model, target):
    """Lamina's weights writer before the hooks: own variables, '0', '1', ... (in HDF5
    1.10's object formats, which weights files use since issue 21)"""
    with h5py.File(target, "w", libver=("v110", "v110")) as f:
        for saveable in saveables(model):
            group = f.create_group(saveable.group)
            group.attrs["name"] = str(getattr(saveable.obj, "name", ""))
            for i, variable in enumerate(saveable.variables):
                dataset = create_checked(group, str(i), variable.numpy())
                if variable.dtype == "bfloat16":
                    dataset.attrs["dtype"] = "bfloat16"


def test_files_are_byte_for_byte_what_lamina_wrote_before_the_hooks():
    inputs = lamina.Input((4,))
    x = layers.Dense(3)(inputs)
    x = layers.BatchNormalization()(x)
    x = layers.Dense(2, dtype="bfloat16")(x)
    model = lamina.Model(inputs, x)
    model.compile("adam", "mse")
    model.fit(np.ones((4, 4), "float32"), np.ones((4, 2), "float32"), verbose=0)
    quantized = lamina.Sequential([lamina.Input((4,)), layers.Dense(3)])
    quantized.layers[0].quantize("int8")
    for m in (model, quantized):
        ours, before = io.BytesIO(), io.BytesIO()
        write_weights(m, ours)
        _old_writer(m, before)
        assert ours.getvalue() == before.getvalue()


# ------------------------------------------------------------------ overrides in files
def test_custom_variables_and_assets_round_trip_through_keras_file(tmp_path):
    model = lamina.Sequential([lamina.Input((32,)), CustomSaving(1)])
    model.compile(optimizer="adam", loss="mse")
    model.fit(np.ones((8, 32), "float32"), np.ones((8, 1), "float32"), verbose=0)
    model.layers[0].stored_variables = STORED * 3
    model.layers[0].assets = "changed"
    model.save(tmp_path / "m.keras")
    with zipfile.ZipFile(tmp_path / "m.keras") as zf:
        names = zf.namelist()
        weights = io.BytesIO(zf.read("model.weights.h5"))
    assert "assets/layers/custom_saving/assets.txt" in names
    assert list(_vars(weights, "layers/custom_saving/vars")) == ["variables"]
    loaded = lamina.saving.load_model(tmp_path / "m.keras")
    assert loaded.layers[0].assets == "changed"
    assert loaded.layers[0].stored_variables.tolist() == (STORED * 3).tolist()


def test_overrides_transform_and_add_arrays_in_weights_files(tmp_path):
    model = _model(Doubled(2, name="doubled"))
    source = model.layers[1]
    model.save_weights(tmp_path / "w.weights.h5")
    stored = _vars(tmp_path / "w.weights.h5", "layers/doubled/vars")
    assert sorted(stored) == ["bias", "kernel_x2", "note"]
    np.testing.assert_array_equal(stored["kernel_x2"], source.kernel.numpy() * 2)
    fresh = _model(Doubled(2, name="doubled"))
    fresh.load_weights(tmp_path / "w.weights.h5")
    for a, b in zip(model.get_weights(), fresh.get_weights()):
        np.testing.assert_array_equal(a, b)
    assert fresh.layers[1].note.tolist() == [7.0]


def test_a_failing_load_override_changes_no_weight(tmp_path):
    model = _model(Failing(2, name="failing"))
    model.save_weights(tmp_path / "w.weights.h5")
    fresh = _model(Failing(2, name="failing"))
    before = fresh.get_weights()
    with pytest.raises(SavingError, match=r"w.weights.h5.*layer 'failing' \(stored at "
                                          r"'layers/failing/vars'\): its load_own_variables "
                                          r"raised KeyError: 'broken'"):
        fresh.load_weights(tmp_path / "w.weights.h5")
    for old, new in zip(before, fresh.get_weights()):     # the Dense before it too
        np.testing.assert_array_equal(old, new)


def test_a_failing_load_override_is_skipped_with_skip_mismatch(tmp_path):
    model = _model(Failing(2, name="failing"))
    model.save_weights(tmp_path / "w.weights.h5")
    fresh = _model(Failing(2, name="failing"))
    failing_before = fresh.layers[1].get_weights()
    with pytest.warns(UserWarning, match="raised KeyError.*skipped"):
        fresh.load_weights(tmp_path / "w.weights.h5", skip_mismatch=True)
    np.testing.assert_array_equal(fresh.layers[0].kernel.numpy(),
                                  model.layers[0].kernel.numpy())
    np.testing.assert_array_equal(fresh.layers[1].kernel.numpy(), failing_before[0])


def test_load_model_raises_a_value_error_from_a_failing_override(tmp_path):
    # keras saving_lib_test: test_load_model_exception_raised
    model = _model(Failing(2, name="failing"))
    model.save(tmp_path / "model.keras")
    with pytest.raises(ValueError):
        lamina.saving.load_model(tmp_path / "model.keras",
                                 custom_objects={"Failing": Failing})
    assert os.listdir(tmp_path) == ["model.keras"]


def test_save_raises_the_overrides_error_and_writes_nothing(tmp_path):
    # keras saving_lib_test: test_save_model_exception_raised
    class RaiseErrorLayer(layers.Layer):
        def __init__(self, units, **kwargs):
            super().__init__(**kwargs)
            self.dense = layers.Dense(units)

        def call(self, inputs):
            return self.dense(inputs)

        def save_own_variables(self, store):
            raise ValueError("no saving")

    model = lamina.Sequential([lamina.Input((1,)), RaiseErrorLayer(1)])
    with pytest.raises(ValueError, match="no saving"):
        model.save(tmp_path / "model.keras")
    with pytest.raises(ValueError, match="no saving"):
        model.save_weights(tmp_path / "model.weights.h5")
    assert os.listdir(tmp_path) == []


def test_store_keys_and_values_are_checked_on_save(tmp_path):
    class BadKey(layers.Dense):
        def save_own_variables(self, store):
            store["a/b"] = np.ones(2)

    class BadValue(layers.Dense):
        def save_own_variables(self, store):
            store["words"] = np.array(["a", "b"])

    with pytest.raises(SavingError, match=r"BadKey 'bk'.save_own_variables: store keys must "
                                          r"be non-empty strings without '/'; received 'a/b'"):
        _model(BadKey(2, name="bk")).save_weights(tmp_path / "a.weights.h5")
    with pytest.raises(SavingError, match=r"store\['words'\]: a weights file stores numbers "
                                          r"only; received an array of dtype <U1"):
        _model(BadValue(2, name="bv")).save_weights(tmp_path / "b.weights.h5")


def test_a_missing_key_names_the_keys_the_file_has(tmp_path):
    class Reader(layers.Dense):
        def load_own_variables(self, store):
            store["nothing"]

    _model(Reader(2, name="reader")).save_weights(tmp_path / "w.weights.h5")
    with pytest.raises(SavingError, match=r"KeyError: \"'nothing': not in "
                                          r"'layers/reader/vars', which holds \['0', '1'\]"):
        _model(Reader(2, name="reader")).load_weights(tmp_path / "w.weights.h5")


def test_optimizer_overrides_are_called(tmp_path):
    class TaggedSGD(lamina.optimizers.SGD):
        def save_own_variables(self, store):
            super().save_own_variables(store)
            store["tag"] = np.array([3.0], "float32")

        def load_own_variables(self, store):
            self.tag = float(store["tag"][0])
            super().load_own_variables({k: v for k, v in store.items() if k != "tag"})

    model = _model(layers.Dense(2))
    model.compile(TaggedSGD(0.1), "mse")
    model.train_on_batch(np.ones((2, 3), "float32"), np.ones((2, 2), "float32"))
    model.save_weights(tmp_path / "w.weights.h5")
    assert "tag" in _vars(tmp_path / "w.weights.h5", "optimizer/vars")
    fresh = _model(layers.Dense(2))
    fresh.set_weights(model.get_weights())
    fresh.compile(TaggedSGD(0.1), "mse")
    fresh.optimizer.build(fresh.trainable_weights)
    fresh.load_weights(tmp_path / "w.weights.h5")
    assert fresh.optimizer.tag == 3.0
    assert int(fresh.optimizer.iterations.numpy()) == 1


def test_assets_in_sub_folders_round_trip(tmp_path):
    @lamina.saving.register_keras_serializable(package="HookTests")
    class Nested(layers.Layer):
        text = "start"

        def call(self, inputs):
            return inputs

        def save_assets(self, dir_path):
            os.makedirs(os.path.join(dir_path, "sub", "deeper"))
            with open(os.path.join(dir_path, "sub", "deeper", "t.txt"), "w") as f:
                f.write(self.text)

        def load_assets(self, dir_path):
            with open(os.path.join(dir_path, "sub", "deeper", "t.txt")) as f:
                self.text = f.read()

    model = lamina.Sequential([lamina.Input((2,)), Nested(name="nested")])
    model.layers[0].text = "kept"
    for name, zipped in (("m.keras", True), ("folder", False)):
        model.save(tmp_path / name, zipped=zipped)
        loaded = lamina.saving.load_model(tmp_path / name)
        assert loaded.layers[0].text == "kept"
