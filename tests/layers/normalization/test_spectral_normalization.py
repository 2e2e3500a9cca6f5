import numpy as np
import pytest

import lamina
from lamina import layers, ops
from tests.layers.harness import LayerCase, case_id, run_layer_case
from tests.layers.keras11.reference import fixture, keras_weights
from tests.layers.recurrent.helpers import Make, fresh

CASES = [
    LayerCase(layers.SpectralNormalization, dict(layer=Make(layers.Dense, 3)), (2, 4), (2, 3),
              trainable_weights=2, non_trainable_weights=1,
              weight_shapes={"kernel": (4, 3), "vector_u": (1, 3), "bias": (3,)}, params=18),
]


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_spectral_normalization_harness(case):
    run_layer_case(fresh(case))


@pytest.mark.parametrize("key, make", [
    ("spectral_dense", lambda: layers.SpectralNormalization(layers.Dense(3, name="dense"))),
    ("spectral_conv_3iter", lambda: layers.SpectralNormalization(layers.Conv2D(2, 2, name="conv2d"),
                                                                 power_iterations=3)),
])
def test_training_call_matches_keras(key, make):
    entry = fixture(key)
    layer = make()
    x = ops.convert_to_tensor(entry["x"])
    layer(x)
    assert [w.path.split("/", 1)[-1] for w in layer.weights] == list(entry["names"])
    layer.set_weights(keras_weights(key))
    y = layer(x, training=True)
    np.testing.assert_allclose(y.numpy(), entry["y"], rtol=1e-5, atol=1e-5)
    for i, weight in enumerate(layer.weights):        # the updated kernel and vector_u
        np.testing.assert_allclose(weight.numpy(), entry[f"after{i}"], rtol=1e-5, atol=1e-6)


def test_inference_leaves_the_kernel_and_zero_kernel_is_kept():
    layer = layers.SpectralNormalization(layers.Dense(2, kernel_initializer="zeros"))
    x = ops.convert_to_tensor(np.ones((1, 3), "float32"))
    layer(x, training=True)
    np.testing.assert_array_equal(layer.layer.kernel.numpy(), np.zeros((3, 2)))
    dense = layers.Dense(2)
    wrapped = layers.SpectralNormalization(dense)
    wrapped(x)
    before = dense.kernel.numpy().copy()
    wrapped(x)
    np.testing.assert_array_equal(dense.kernel.numpy(), before)
    wrapped(x, training=True)
    sigma = np.linalg.svd(dense.kernel.numpy(), compute_uv=False)[0]
    assert 0.5 < sigma < 1.5 and not np.allclose(dense.kernel.numpy(), before)


def test_graph_training_equals_eager_and_keras_file(tmp_path):
    results = []
    for eager in (True, False):
        model = lamina.Sequential([layers.Input((4,)), layers.SpectralNormalization(
            layers.Dense(3, kernel_initializer=lamina.initializers.GlorotUniform(seed=1)))])
        model.layers[0].vector_u.assign(np.full((1, 3), 0.1, "float32"))
        model.compile(optimizer="sgd", loss="mse", run_eagerly=eager)
        x = np.random.default_rng(0).standard_normal((8, 4)).astype("float32")
        model.fit(x, np.zeros((8, 3), "float32"), epochs=2, batch_size=4, verbose=0,
                  shuffle=False)
        results.append([w.numpy() for w in model.weights])
    for a, b in zip(*results):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    model.save(tmp_path / "m.keras")
    again = lamina.saving.load_model(tmp_path / "m.keras")
    for a, b in zip(again.weights, model.weights):
        np.testing.assert_array_equal(a.numpy(), b.numpy())


def test_errors():
    with pytest.raises(ValueError, match=r"'power_iterations' must be a positive int "
                                         r"\(`power_iterations` should be greater than zero.\)"):
        layers.SpectralNormalization(layers.Dense(2), power_iterations=0)
    with pytest.raises(ValueError, match=r"a LayerNormalization object has no attribute "
                                         r"'kernel' nor 'embeddings'"):
        layers.SpectralNormalization(layers.LayerNormalization())(np.ones((1, 3), "float32"))
    with pytest.raises(ValueError, match="SpectralNormalization: argument 'layer' must be a "
                                         "Layer"):
        layers.SpectralNormalization("dense")
