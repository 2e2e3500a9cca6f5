"""``save_weights`` / ``load_weights``: bit-identical round trips, Keras's own files, and
all-or-nothing loading with typed errors."""
import h5py
import numpy as np
import pytest

import lamina
from lamina import layers
from lamina.saving import CorruptFileError, SavingError, WeightMismatchError

from .helpers import BUILDERS, FIXTURES, assert_identical, dense_bn, reference, snapshot


def randomized(model, seed=0):
    """Give every weight distinct random values (BN statistics included)."""
    rng = np.random.default_rng(seed)
    for v in model.weights:
        v.assign(rng.normal(size=v.shape).astype(v.dtype))
    return model


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_round_trip_is_bit_identical(backend, dtype, tmp_path):
    model = randomized(dense_bn(dtype))
    model.save_weights(tmp_path / "w.weights.h5")
    other = dense_bn(dtype)
    other.load_weights(tmp_path / "w.weights.h5")
    assert_identical(snapshot(other), snapshot(model))
    assert other.weights[0].dtype == dtype and other.weights[0].backend is backend


@pytest.mark.parametrize("name", sorted(BUILDERS))
def test_loads_files_written_by_keras(name):
    model = BUILDERS[name]()
    path = FIXTURES / f"{name}_k3.weights.h5"
    model.load_weights(path)
    x0, pred = reference(name)
    np.testing.assert_allclose(model(x0).numpy(), pred, rtol=1e-4, atol=1e-5)
    with h5py.File(path, "r") as f:
        kernel = f["layers/dense/vars/0"][()] if name != "gru_text" else \
            f["layers/gru/cell/vars/1"][()]
    loaded = model.layers[0].weights[0] if name == "dense_bn" else (
        model.layers[-1].weights[0] if name == "small_cnn" else model.layers[1].cell.weights[1])
    assert loaded.numpy().tobytes() == kernel.tobytes()


def test_keras_optimizer_state_is_loaded_into_a_compiled_model():
    model = BUILDERS["dense_bn"]()
    model.compile(optimizer="adam", loss="sparse_categorical_crossentropy")
    model.load_weights(FIXTURES / "dense_bn_k3.weights.h5")   # builds the optimizer first
    optimizer = model.optimizer
    assert int(optimizer.iterations.numpy()) == 8
    assert float(optimizer.learning_rate.numpy()) == pytest.approx(0.01)
    with h5py.File(FIXTURES / "dense_bn_k3.weights.h5", "r") as f:
        velocity = f["optimizer/vars/3"][()]        # the first kernel's second Adam slot
    assert optimizer.variables[3].numpy().tobytes() == velocity.tobytes()


def test_shape_mismatch_names_layer_weight_and_shapes_and_changes_nothing(tmp_path):
    randomized(dense_bn()).save_weights(tmp_path / "w.weights.h5")
    other = lamina.Sequential([lamina.Input((10,)), layers.Dense(12),
                               layers.BatchNormalization(), layers.Activation("relu"),
                               layers.Dropout(0.1), layers.Dense(5, name="last")])
    before = snapshot(other)
    with pytest.raises(WeightMismatchError,
                       match=r"w\.weights\.h5.*layer 'last' \(stored at 'layers/dense_1/vars'"
                             r"\), weight 0 'kernel': expected shape \(12, 5\), found \(12, 4\) "
                             r"in the file \(the shapes must match\)"):
        other.load_weights(tmp_path / "w.weights.h5")
    assert_identical(snapshot(other), before)     # not even the matching first layers


def test_count_mismatch_lists_the_expected_weights(tmp_path):
    randomized(dense_bn()).save_weights(tmp_path / "w.weights.h5")
    other = lamina.Sequential([lamina.Input((10,)), layers.Dense(12, use_bias=False,
                                                                 name="nobias")])
    with pytest.raises(WeightMismatchError,
                       match=r"layer 'nobias' \(stored at 'layers/dense/vars'\) has 1 weights "
                             r"\['kernel'\]; the file has 2 there \(received 2 variables\)"):
        other.load_weights(tmp_path / "w.weights.h5")


def test_skip_mismatch_warns_and_loads_the_rest(tmp_path):
    source = randomized(dense_bn())
    source.save_weights(tmp_path / "w.weights.h5")
    other = lamina.Sequential([lamina.Input((10,)), layers.Dense(12),
                               layers.BatchNormalization(), layers.Activation("relu"),
                               layers.Dropout(0.1), layers.Dense(5)])
    last_before = snapshot(other)[-2:]
    with pytest.warns(UserWarning, match=r"expected shape \(12, 5\).*skipped"):
        other.load_weights(tmp_path / "w.weights.h5", skip_mismatch=True)
    assert_identical(snapshot(other)[:6], snapshot(source)[:6])
    assert_identical(snapshot(other)[-2:], last_before)


def test_optimizer_of_another_size_is_skipped_with_keras_warning(tmp_path):
    model = randomized(dense_bn())
    model.compile(optimizer="adam", loss="mse")
    model.optimizer.build(model.trainable_weights)
    model.save_weights(tmp_path / "w.weights.h5")
    other = dense_bn()
    other.compile(optimizer=lamina.optimizers.SGD(momentum=0.9), loss="mse")
    other.optimizer.build(other.trainable_weights)
    name = other.optimizer.name
    with pytest.warns(UserWarning, match=rf"Skipping variable loading for optimizer '{name}'.*"
                                         r"has 8 variables whereas the saved optimizer in "
                                         r"'.*w\.weights\.h5' has 14"):
        other.load_weights(tmp_path / "w.weights.h5")
    assert_identical(snapshot(other)[:8], snapshot(model)[:8])


@pytest.mark.parametrize("content", [b"", b"not an hdf5 file at all", "truncated"])
def test_damaged_files_raise_corrupt_file_error_and_change_nothing(content, tmp_path):
    good = tmp_path / "good.weights.h5"
    randomized(dense_bn()).save_weights(good)
    bad = tmp_path / "bad.weights.h5"
    data = good.read_bytes()
    bad.write_bytes(data[: len(data) // 2] if content == "truncated" else content)
    model = dense_bn()
    before = snapshot(model)
    with pytest.raises(CorruptFileError, match=r"cannot read weights from '.*bad\.weights\.h5'"
                                               r": the file is not a readable HDF5"):
        model.load_weights(bad)
    assert_identical(snapshot(model), before)


def test_unexpected_group_content_is_reported(tmp_path):
    path = tmp_path / "odd.weights.h5"
    randomized(dense_bn()).save_weights(path)
    with h5py.File(path, "a") as f:
        f["layers/dense/vars/extra"] = np.zeros(3)
    with pytest.raises(CorruptFileError, match=r"group 'layers/dense/vars' should hold "
                                               r"datasets named '0', '1', \.\.\.; found "
                                               r"\['0', '1', 'extra'\]"):
        dense_bn().load_weights(path)
    with h5py.File(path, "a") as f:
        del f["layers/dense/vars/extra"]
        del f["layers/dense/vars/1"]
        f["layers/dense/vars/1"] = np.array([b"ab", b"cd"])
    with pytest.raises(CorruptFileError, match=r"'layers/dense/vars/1' holds \|S2 values; "
                                               r"expected numbers"):
        dense_bn().load_weights(path)


def test_unbuilt_model_cannot_load(tmp_path):
    randomized(dense_bn()).save_weights(tmp_path / "w.weights.h5")
    model = lamina.Sequential([layers.Dense(12)])
    with pytest.raises(SavingError, match=r"model '.*' is not built.*call it on data"):
        model.load_weights(tmp_path / "w.weights.h5")


def test_dtype_of_the_model_wins_when_the_file_differs(tmp_path):
    model = randomized(dense_bn("float64"))
    model.save_weights(tmp_path / "w64.weights.h5")
    narrow = dense_bn("float32")
    narrow.load_weights(tmp_path / "w64.weights.h5")
    assert narrow.weights[0].dtype == "float32"
    np.testing.assert_array_equal(narrow.weights[0].numpy(),
                                  model.weights[0].numpy().astype("float32"))
