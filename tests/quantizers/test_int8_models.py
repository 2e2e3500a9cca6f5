"""int8 models: a Keras-written int8 ``.keras`` file loads and predicts as Keras (exactly),
Lamina's int8 files have Keras's layout and round-trip, ``Model.quantize`` (filters,
warnings), and graph == eager over generated quantized models."""
import warnings

import h5py
import numpy as np
import pytest

import lamina
from lamina import layers
from tests.quantizers.fixtures import KERAS, array, path

INPUTS = [array(KERAS["model_inputs"]["ids"]), array(KERAS["model_inputs"]["feats"])]


def test_keras_int8_file_predicts_as_keras():
    # int8 products are exact integers and the scales are Keras's float32 values, so the
    # prediction is Keras's numpy backend's to the bit. JAX's differs from both in the last
    # float32 bits (its erf, inside the gelu, and XLA's fusions): rtol 1e-6, a few ulps.
    model = lamina.saving.load_model(path("int8_mixed.keras"))
    assert [(v.path, v.dtype, list(v.shape)) for v in model.weights] == [
        (w["path"], w["dtype"], w["shape"]) for w in KERAS["model_weights"]]
    assert model.get_layer("hidden").dtype_policy.name == "int8_from_float32"
    predicted = model.predict(INPUTS, verbose=0)
    np.testing.assert_array_equal(predicted, np.array(KERAS["model_pred_numpy"], "float32"))
    np.testing.assert_allclose(predicted, array(KERAS["model_pred"]), rtol=1e-6, atol=0)
    # int8 vs float: the quantization moved the logits, but not far.
    assert 0 < np.abs(predicted - array(KERAS["model_float_pred"])).max() < 0.5


def test_keras_int8_weights_file_loads():
    model = lamina.saving.load_model(path("int8_mixed.keras"))
    clone = lamina.models.Model.from_config(model.get_config())
    clone.load_weights(path("int8_mixed.weights.h5"))
    np.testing.assert_array_equal(clone.predict(INPUTS, verbose=0),
                                  np.array(KERAS["model_pred_numpy"], "float32"))


def _datasets(filename):
    with h5py.File(filename, "r") as f:
        found = {}
        f.visititems(lambda name, obj: found.setdefault(name, (obj.shape, obj.dtype.name))
                     if isinstance(obj, h5py.Dataset) else None)
    return found


def test_lamina_writes_keras_layout(tmp_path):
    model = lamina.saving.load_model(path("int8_mixed.keras"))
    target = str(tmp_path / "copy.weights.h5")
    model.save_weights(target)
    assert _datasets(target) == _datasets(path("int8_mixed.weights.h5"))
    model.save(str(tmp_path / "copy.keras"))
    again = lamina.saving.load_model(str(tmp_path / "copy.keras"))
    np.testing.assert_array_equal(again.predict(INPUTS, verbose=0),
                                  np.array(KERAS["model_pred_numpy"], "float32"))


def _mlp(seed, dropout=True):
    rng = np.random.default_rng(seed)
    inputs = lamina.Input((10,))
    h = layers.Dense(16, activation="relu", name="hidden")(inputs)
    if dropout:
        h = layers.Dropout(0.1)(h)
    outputs = layers.Dense(4, name="out")(h)
    model = lamina.Model(inputs, outputs)
    for v in model.weights:
        v.assign(rng.normal(size=v.shape).astype("float32"))
    return model


def test_model_quantize_skips_other_layers_with_keras_warning():
    model = _mlp(0)
    with pytest.warns(UserWarning, match="Layer Dropout does not have a `quantize` method "
                                         "implemented."):
        model.quantize("int8")
    assert [v.dtype for v in model.weights] == ["float32", "int8", "float32"] * 2
    assert model.get_layer("out").quantization_mode == "int8"


def test_model_quantize_filters():
    model = _mlp(1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model.quantize("int8", filters="hid")
    assert model.get_layer("hidden").quantization_mode == "int8"
    assert model.get_layer("out").quantization_mode is None
    other = _mlp(1)
    other.quantize("int8", filters=lambda layer: layer.name == "out")
    assert other.get_layer("hidden").quantization_mode is None
    with pytest.raises(ValueError, match="The `filters` argument must be a regex string, a "
                                         "list of regex strings, or a callable."):
        other.quantize("int8", filters=3)
    with pytest.raises(ValueError, match="Unrecognized keyword arguments passed to "
                                         "Functional: {'bogus': 1}"):
        other.quantize("int8", bogus=1)


def test_quantized_predict_retraces_and_stays_close():
    model = _mlp(2)
    x = np.random.default_rng(5).normal(size=(32, 10)).astype("float32")
    before = model.predict(x, verbose=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model.quantize("int8")
    after = model.predict(x, verbose=0)
    assert not np.array_equal(before, after)
    np.testing.assert_allclose(after, before, atol=0.05 * np.abs(before).max())


def _generated(seed):
    """A random small model with Dense, EinsumDense and Embedding layers."""
    rng = np.random.default_rng(seed)
    kind = seed % 3
    if kind == 0:
        inputs = lamina.Input((int(rng.integers(2, 9)),))
        x = inputs
        for _ in range(int(rng.integers(1, 4))):
            x = layers.Dense(int(rng.integers(1, 12)),
                             activation=str(rng.choice(["relu", "tanh", "linear"])))(x)
        feed = rng.normal(size=(5, inputs.shape[-1])).astype("float32")
    elif kind == 1:
        steps, width = int(rng.integers(2, 6)), int(rng.integers(2, 7))
        inputs = lamina.Input((steps, width))
        x = layers.EinsumDense("abc,cde->abde", output_shape=(steps, 3, 2), bias_axes="de")(
            inputs)
        x = layers.Reshape((steps, 6))(x)
        x = layers.EinsumDense("abc,cd->abd", output_shape=(steps, 4), bias_axes="d",
                               activation="gelu")(x)
        feed = rng.normal(size=(3, steps, width)).astype("float32")
    else:
        inputs = lamina.Input((7,), dtype="int32")
        x = layers.Embedding(13, int(rng.integers(2, 6)))(inputs)
        x = layers.Flatten()(x)
        x = layers.Dense(3)(x)
        feed = rng.integers(0, 13, size=(4, 7)).astype("int32")
    model = lamina.Model(inputs, x)
    for v in model.weights:
        v.assign(rng.normal(size=v.shape).astype("float32"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model.quantize("int8")
    return model, feed


@pytest.mark.parametrize("seed", range(9))
def test_graph_equals_eager_on_generated_quantized_models(seed):
    model, feed = _generated(seed)
    assert any(v.dtype == "int8" for v in model.weights)
    graph = model.predict(feed, verbose=0)
    eager = model(feed).numpy()
    np.testing.assert_array_equal(graph, eager)
    np.testing.assert_array_equal(lamina.jit(lambda t: model(t))(feed).numpy(), eager)


@pytest.mark.parametrize("seed", [0, 1])
def test_training_a_quantized_model_graph_equals_eager(seed):
    # The bias still trains, and the gradient reaches the first layer's inputs through the
    # dequantized kernel of the second (the custom gradient), in both modes.
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(16, 10)).astype("float32")
    y = rng.normal(size=(16, 4)).astype("float32")
    results = []
    for eager in (True, False):
        model = _mlp(seed, dropout=False)
        model.quantize("int8", filters="out")
        model.compile(optimizer="sgd", loss="mse", run_eagerly=eager)
        losses = [float(model.train_on_batch(x, y)) for _ in range(3)]
        results.append((losses, [v.numpy() for v in model.weights]))
    (eager_losses, eager_weights), (graph_losses, graph_weights) = results
    np.testing.assert_allclose(graph_losses, eager_losses, rtol=1e-5)
    assert eager_losses[-1] < eager_losses[0]
    initial = _mlp(seed, dropout=False).get_layer("hidden").kernel.numpy()
    assert np.abs(eager_weights[0] - initial).max() > 1e-4     # reached through int8 'out'
    for e, g in zip(eager_weights, graph_weights):
        np.testing.assert_allclose(g, e, rtol=1e-5, atol=1e-6)
