"""``dtype="mixed_float16"``: float32 variables read in float16 inside ``call`` (Keras 3's
autocast), float16 outputs, float32 gradients and updates, eager == graph."""
from __future__ import annotations

import numpy as np
import pytest

import lamina
from lamina import layers, ops
from lamina.core.autocast import AutocastScope, autocast_dtype

_rng = np.random.default_rng(7)


def _pair(make, x):
    """A mixed_float16 layer and a float16 layer holding the same (float16-rounded) weights."""
    mixed, half = make("mixed_float16"), make("float16")
    mixed(x)
    half(x.astype("float16"))
    weights = [w.astype("float16").astype("float32") for w in mixed.get_weights()]
    mixed.set_weights(weights)
    half.set_weights([w.astype("float16") for w in weights])
    return mixed, half


@pytest.mark.parametrize("make,shape", [
    (lambda d: layers.Dense(5, activation="tanh", dtype=d), (4, 3)),
    (lambda d: layers.Conv2D(4, 3, padding="same", dtype=d), (2, 6, 6, 3)),
    (lambda d: layers.LSTM(4, return_sequences=True, dtype=d), (2, 5, 3)),
], ids=["Dense", "Conv2D", "LSTM"])
def test_mixed_layer_computes_in_float16(backend, make, shape):
    x = _rng.normal(size=shape).astype("float32")
    mixed, half = _pair(make, x)
    assert (mixed.compute_dtype, mixed.variable_dtype) == ("float16", "float32")
    assert all(w.dtype == "float32" for w in mixed.weights)
    y = mixed(ops.convert_to_tensor(x))
    assert y.dtype == "float16"
    expected = ops.convert_to_numpy(half(ops.convert_to_tensor(x.astype("float16"))))
    np.testing.assert_array_equal(ops.convert_to_numpy(y), expected)
    assert all(w.dtype == "float32" for w in mixed.weights)


def test_dense_values_are_a_float16_product(backend):
    x = _rng.normal(size=(4, 3)).astype("float32")
    layer = layers.Dense(2, dtype="mixed_float16")
    layer(x)
    kernel = _rng.normal(size=(3, 2)).astype("float32")
    bias = np.array([0.1, -0.2], "float32")
    layer.set_weights([kernel, bias])
    y = ops.convert_to_numpy(layer(x))
    half = x.astype("float16") @ kernel.astype("float16") + bias.astype("float16")
    np.testing.assert_allclose(y.astype("float32"), half.astype("float32"), rtol=2e-3,
                               atol=2e-3)
    # float32 weights used as such would differ from the float16 product here:
    assert y.dtype == np.float16


def test_gradients_reach_float32_variables(backend):
    layer = layers.Dense(3, dtype="mixed_float16")
    x = ops.convert_to_tensor(_rng.normal(size=(4, 2)).astype("float32"))
    layer(x)
    with lamina.GradientTape() as tape:
        loss = ops.sum(ops.cast(layer(x), "float32"))
    grads = tape.gradient(loss, layer.trainable_weights)
    assert [g.dtype for g in grads] == ["float32", "float32"]
    x16 = ops.convert_to_numpy(x).astype("float16").astype("float32")
    np.testing.assert_allclose(ops.convert_to_numpy(grads[0]),
                               np.repeat(x16.sum(0)[:, None], 3, axis=1), rtol=1e-3)
    np.testing.assert_allclose(ops.convert_to_numpy(grads[1]), [4.0, 4.0, 4.0])


def _mixed_model():
    return lamina.Sequential([
        layers.Input((6, 6, 2)),
        layers.Conv2D(3, 3, activation="relu", dtype="mixed_float16"),
        layers.Reshape((4, 12)),
        layers.LSTM(4, dtype="mixed_float16"),
        layers.Dense(3, dtype="mixed_float16"),
        layers.Activation("softmax", dtype="float32")])


def test_fit_graph_equals_eager(backend):
    x = _rng.normal(size=(16, 6, 6, 2)).astype("float32")
    y = _rng.integers(0, 3, size=16)
    results = {}
    for eager in (True, False):
        lamina.utils.set_random_seed(3)
        model = _mixed_model()
        model.compile("adam", "sparse_categorical_crossentropy", run_eagerly=eager)
        start = [w.copy() for w in model.get_weights()]
        history = model.fit(x, y, batch_size=4, epochs=2, shuffle=False, verbose=0)
        results[eager] = (model.get_weights(), history.history["loss"], start)
        assert all(w.dtype == np.float32 for w in model.get_weights())
        assert model.predict(x[:2], verbose=0).dtype == np.float32
    (w_eager, loss_eager, start), (w_graph, loss_graph, _) = results[True], results[False]
    assert any(not np.array_equal(a, b) for a, b in zip(w_eager, start))   # it trained
    np.testing.assert_allclose(loss_graph, loss_eager, rtol=1e-4, atol=1e-5)
    for a, b in zip(w_graph, w_eager):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)


def test_mixed_output_feeds_a_float32_layer(backend):
    model = lamina.Sequential([layers.Input((3,)), layers.Dense(4, dtype="mixed_float16"),
                               layers.Dense(2)])
    out = model(ops.convert_to_tensor(np.ones((2, 3), "float32")))
    assert out.dtype == "float32"
    assert model.layers[0](ops.convert_to_tensor(np.ones((2, 3), "float32"))).dtype == \
        "float16"


def test_autocast_false_layer_keeps_float32_variables(backend):
    class Scale(layers.Layer):
        def build(self, input_shape):
            self.w = self.add_weight(shape=(), initializer="ones", autocast=False)

        def call(self, x):
            return ops.multiply(x, self.w)

    layer = Scale(dtype="mixed_float16")
    out = layer(ops.convert_to_tensor(np.ones((2,), "float32")))
    assert out.dtype == "float32"          # float16 input times a float32 variable


def test_scope_nesting_and_reset():
    assert autocast_dtype() is None
    with AutocastScope("float16"):
        assert autocast_dtype() == "float16"
        with AutocastScope(None):
            assert autocast_dtype() is None
        assert autocast_dtype() == "float16"
    assert autocast_dtype() is None
    with pytest.raises(ValueError, match=r"AutocastScope: argument 'dtype' must be a float "
                       r"dtype or None; received 'int32'"):
        AutocastScope("int32")
