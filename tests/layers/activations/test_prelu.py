import numpy as np
import pytest

from lamina import layers
from tests.layers.harness import LayerCase, case_id, run_layer_case

CASES = [
    LayerCase(layers.PReLU, {}, (2, 3, 4), (2, 3, 4), trainable_weights=1, params=12,
              weight_shapes={"alpha": (3, 4)}),
    LayerCase(layers.PReLU, dict(shared_axes=[1, 2], alpha_initializer="ones"),
              (2, 3, 3, 5), (2, 3, 3, 5), trainable_weights=1, params=5,
              weight_shapes={"alpha": (1, 1, 5)}),
    LayerCase(layers.PReLU, dict(shared_axes=1, alpha_regularizer="l2"), (2, 4, 3), (2, 4, 3),
              trainable_weights=1, params=3, weight_shapes={"alpha": (1, 3)}),
]


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_prelu_harness(case, backend):
    run_layer_case(case)


def test_prelu_matches_numpy(backend):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 3, 4, 5)).astype("float32")
    layer = layers.PReLU(shared_axes=[1, 2])
    layer(x)
    alpha = rng.uniform(0, 1, (1, 1, 5)).astype("float32")
    layer.set_weights([alpha])
    np.testing.assert_allclose(layer(x).numpy(), np.where(x >= 0, x, alpha * x), rtol=1e-6)


def test_zero_initial_alpha_is_relu(backend):
    x = np.random.default_rng(1).standard_normal((3, 4)).astype("float32")
    np.testing.assert_allclose(layers.PReLU()(x).numpy(), np.maximum(x, 0))


def test_config_keeps_shared_axes_as_a_list():
    config = layers.PReLU(shared_axes=(1, 2)).get_config()
    assert config["shared_axes"] == [1, 2]
    assert config["alpha_initializer"]["class_name"] == "Zeros"


def test_rejects_bad_shared_axes():
    with pytest.raises(ValueError, match=r"p: argument 'shared_axes' must be positive ints "
                                         r"\(input axes, 0 being the batch\); received \[0\]"):
        layers.PReLU(shared_axes=0, name="p")
    with pytest.raises(ValueError, match=r"p2: argument 'shared_axes' must name axes of the "
                                         r"input \(1 to 2\); received \[3\]"):
        layers.PReLU(shared_axes=[3], name="p2")(np.ones((2, 3, 4), "float32"))
    layer = layers.PReLU(shared_axes=[1], name="p3")
    layer(np.ones((2, 3, 4), "float32"))
    with pytest.raises(ValueError, match=r"p3 expects input with last dimension 4"):
        layer(np.ones((2, 3, 5), "float32"))
