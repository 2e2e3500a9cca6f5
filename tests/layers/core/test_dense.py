import numpy as np
import pytest

import lamina
from lamina import layers, ops
from tests.layers.harness import LayerCase, case_id, run_layer_case

CASES = [
    LayerCase(layers.Dense, dict(units=3), (2, 4), (2, 3), trainable_weights=2,
              weight_shapes={"kernel": (4, 3), "bias": (3,)}, params=15),
    LayerCase(layers.Dense, dict(units=5, activation="relu", use_bias=False), (2, 6, 4),
              (2, 6, 5), trainable_weights=1, params=20),
    LayerCase(layers.Dense, dict(units=2, kernel_regularizer="l2", bias_initializer="ones"),
              (3, 4), (3, 2), trainable_weights=2, params=10),
]


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_dense_harness(case, backend):
    run_layer_case(case)


def test_dense_matches_numpy(backend):
    layer = layers.Dense(3, activation="tanh")
    x = np.random.default_rng(0).standard_normal((4, 5)).astype("float32")
    y = layer(x).numpy()
    k, b = layer.get_weights()
    np.testing.assert_allclose(y, np.tanh(x @ k + b), rtol=1e-5, atol=1e-6)


def test_dense_weight_paths():
    model = lamina.Sequential([lamina.Input((4,)), layers.Dense(3, name="d")])
    assert [w.path for w in model.weights] == ["d/kernel", "d/bias"]


def test_dense_rejects_bad_units():
    with pytest.raises(ValueError, match=r"argument 'units' must be a positive integer; "
                                         r"received 0"):
        layers.Dense(0)


def test_dense_rejects_other_feature_size():
    layer = layers.Dense(2, name="dense_x")
    layer(np.ones((3, 4), "float32"))
    with pytest.raises(ValueError, match=r"dense_x expects input with last dimension 4 "
                                         r"\(the layer was built for 4\); received shape "
                                         r"\(3, 5\)"):
        layer(np.ones((3, 5), "float32"))


def test_dense_rejects_rank_1():
    with pytest.raises(ValueError, match=r"expects input of rank at least 2"):
        layers.Dense(2)(ops.ones((4,)))


def test_dense_regularizer_loss():
    layer = layers.Dense(2, kernel_regularizer=lamina.regularizers.L2(0.5))
    layer(np.ones((1, 3), "float32"))
    (loss,) = layer.losses
    np.testing.assert_allclose(loss.numpy(), 0.5 * np.sum(layer.kernel.numpy() ** 2),
                               rtol=1e-6)


def test_dense_activation_set_to_none_after_construction():
    # Keras 3.15.1 allows `layer.activation = None` (the layer is then linear)
    layer = layers.Dense(2, use_bias=False)
    layer.build((1, 2))
    layer.set_weights([np.array([[1.0, -2.0], [3.0, -4.0]], "float32")])
    layer.activation = None
    np.testing.assert_allclose(layer(np.array([[-1.0, 2.0]], "float32")), [[5.0, -6.0]])
