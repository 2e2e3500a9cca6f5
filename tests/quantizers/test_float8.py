"""float8 training (lamina/layers/core/float8_dense.py) against Keras 3.15.1
(tests/fixtures/make_float8_references.py): the delayed-scaling state variables (paths,
order, trainable, overwritten by their "gradients"), the outputs, three training steps in
eager and graph mode, and a Keras-trained float8 file."""
import io
import zipfile

import h5py
import numpy as np
import pytest

import lamina
from lamina import layers, ops
from lamina.dtype_policies import QuantizedFloat8DTypePolicy
from tests.quantizers.fixtures import KERAS_FLOAT8 as KERAS, array, float8_path

OPTIMIZERS = {"dense_quantized": lambda: lamina.optimizers.SGD(0.05),
              "dense_policy": lambda: lamina.optimizers.Adam(0.01),
              "einsum_quantized": lambda: lamina.optimizers.AdamW(0.01)}


def _layer(name):
    if name == "einsum_quantized":
        return layers.EinsumDense("abc,cd->abd", output_shape=(3, 5), bias_axes="d",
                                  name="einsum")
    if name == "dense_policy":
        return layers.Dense(6, activation="relu", name="dense",
                            dtype=QuantizedFloat8DTypePolicy("float8", "float32", 16))
    return layers.Dense(6, activation="relu", name="dense")


def _model(name, run_eagerly=False):
    case = KERAS[name]
    layer = _layer(name)
    x = array(case["x"])
    inputs = lamina.Input(x.shape[1:])
    model = lamina.Model(inputs, layer(inputs))
    layer.set_weights([array(w) for w in case["float_weights"]])
    if name != "dense_policy":
        layer.quantize("float8")
    model.compile(optimizer=OPTIMIZERS[name](), loss="mse", run_eagerly=run_eagerly)
    return model, layer, case


def _assert_snapshot(layer, snapshot, rtol=1e-5, atol=1e-6):
    assert [v.path for v in layer.weights] == [w["path"] for w in snapshot]
    for variable, want in zip(layer.weights, snapshot):
        np.testing.assert_allclose(variable.numpy(), array(want), rtol=rtol, atol=atol,
                                   err_msg=variable.path)


@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
def test_state_variables_and_outputs_are_keras(name):
    model, layer, case = _model(name)
    assert layer.dtype_policy.name == case["policy"] == "float8_from_float32"
    _assert_snapshot(layer, case["initial"], rtol=0, atol=0)
    assert [v.path for v in layer.trainable_weights] == case["trainable"]
    assert all(v.overwrite_with_gradient == (v.name not in ("kernel", "bias"))
               for v in layer.weights)
    assert layer.get_config()["dtype"] == case["config"]["dtype"]
    assert layer.get_config()["quantization_config"] == case["config"]["quantization_config"]
    x = array(case["x"])
    np.testing.assert_allclose(layer(x, training=False).numpy(), array(case["output"]),
                               rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(layer(x, training=True).numpy(),
                               array(case["output_training"]), rtol=1e-5, atol=1e-6)
    _assert_snapshot(layer, case["initial"], rtol=0, atol=0)     # a call moves nothing


@pytest.mark.parametrize("run_eagerly", [True, False], ids=["eager", "graph"])
@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
def test_training_steps_are_keras(name, run_eagerly):
    # Each step overwrites the scales with amax/dtype_max of the history so far and rolls
    # this step's amax into the histories; the kernel and bias train through the
    # quantize-dequantize (Keras's train_on_batch, JAX backend).
    model, layer, case = _model(name, run_eagerly)
    x, y = array(case["x"]), array(case["y"])
    for loss, snapshot in zip(case["losses"], case["steps"]):
        # Keras's train_on_batch resets the metrics first (its loss is this batch's); at
        # the time of writing Lamina's keeps averaging, so reset here.
        model.reset_metrics()
        np.testing.assert_allclose(float(model.train_on_batch(x, y)), loss, rtol=1e-5)
        _assert_snapshot(layer, snapshot)
    np.testing.assert_allclose(layer(x, training=False).numpy(), array(case["output_after"]),
                               rtol=1e-5, atol=1e-5)


def test_keras_float8_file_loads_and_predicts():
    case = KERAS["dense_policy"]
    model = lamina.saving.load_model(float8_path("float8_dense.keras"))
    layer = model.layers[-1]
    assert layer.dtype_policy == QuantizedFloat8DTypePolicy("float8", "float32", 16)
    _assert_snapshot(layer, case["steps"][-1], rtol=0, atol=0)
    np.testing.assert_allclose(model.predict(array(case["x"]), verbose=0),
                               array(case["output_after"]), rtol=1e-5, atol=1e-5)
    # Keras's Adam keeps no slots for the float8 state (it is assigned, never stepped):
    # iterations, learning rate and two slots for each of kernel and bias, all restored.
    with zipfile.ZipFile(float8_path("float8_dense.keras")) as archive:
        with h5py.File(io.BytesIO(archive.read("model.weights.h5")), "r") as f:
            stored = [f["optimizer/vars"][str(i)][()] for i in range(
                len(f["optimizer/vars"]))]
    assert len(model.optimizer.variables) == len(stored) == 6
    for variable, value in zip(model.optimizer.variables, stored):
        np.testing.assert_array_equal(variable.numpy(), value)


def test_policy_builds_the_state_first():
    layer = _layer("dense_policy")
    layer.build((None, 10))
    assert [v.path for v in layer.weights] == KERAS["policy_build_order"]
    assert lamina.dtype_policies.serialize(layer.dtype_policy) == KERAS["policy_config"]


def test_save_and_load_round_trip(tmp_path):
    model, layer, case = _model("dense_quantized")
    x, y = array(case["x"]), array(case["y"])
    model.train_on_batch(x, y)
    target = str(tmp_path / "float8.keras")
    model.save(target)
    again = lamina.saving.load_model(target)
    # A layer built from the float8 policy creates its state before the kernel (Keras's
    # order, which differs from the quantized layer's): compare by path.
    loaded = {v.path: v.numpy() for v in again.weights}
    assert sorted(loaded) == sorted(v.path for v in model.weights)
    for variable in model.weights:
        np.testing.assert_array_equal(loaded[variable.path], variable.numpy())
    np.testing.assert_array_equal(again.predict(x, verbose=0), model.predict(x, verbose=0))


def test_overwritten_state_ignores_clipping_and_gradient_accumulation_takes_the_max():
    # Keras's optimizer rule: overwrite variables skip clipping and the update; with
    # gradient accumulation the largest value over the steps lands on the update step.
    layer = layers.Dense(3)
    layer.build((None, 4))
    layer.quantize("float8")
    optimizer = lamina.optimizers.SGD(0.1, clipnorm=1e-3, gradient_accumulation_steps=2)
    x1 = np.full((2, 4), 3.0, "float32")
    x2 = np.full((2, 4), 5.0, "float32")
    for x in (x1, x2):
        with lamina.GradientTape() as tape:
            loss = ops.sum(layer(x, training=True))
        grads = tape.gradient(loss, layer.trainable_variables)
        optimizer.apply(grads, layer.trainable_variables)
        if x is x1:       # not an update step: the state keeps its value
            assert layer.inputs_amax_history.numpy()[0] == 0.0
    assert layer.inputs_amax_history.numpy()[0] == 5.0
    assert float(layer.inputs_scale.numpy()) == 1.0     # computed from the empty history
