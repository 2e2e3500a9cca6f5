import numpy as np
import pytest

import lamina
from lamina import layers
from tests.layers.harness import LayerCase, case_id, run_layer_case

CASES = [
    LayerCase(layers.Activation, dict(activation="relu"), (2, 3), (2, 3), trainable_weights=0,
              params=0),
    LayerCase(layers.Activation, dict(activation="softmax"), (2, 4, 3), (2, 4, 3),
              trainable_weights=0, params=0),
    LayerCase(layers.Activation, dict(activation=lamina.activations.tanh), (3, 2), (3, 2),
              trainable_weights=0, params=0, id="Activation(callable)"),
]


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_activation_harness(case, backend):
    run_layer_case(case)


def test_activation_matches_numpy(backend):
    x = np.linspace(-3, 3, 12, dtype="float32").reshape(3, 4)
    np.testing.assert_allclose(layers.Activation("sigmoid")(x).numpy(), 1 / (1 + np.exp(-x)),
                               rtol=1e-6)
    np.testing.assert_allclose(layers.Activation(None)(x).numpy(), x)


def test_activation_config_stores_the_name():
    assert layers.Activation(lamina.activations.relu).get_config()["activation"] == "relu"


def test_activation_passes_the_mask_on():
    x = lamina.ops.convert_to_tensor(np.array([[1, 2, 0]]))
    embedded = layers.Embedding(4, 2, mask_zero=True)(x)
    out = layers.Activation("tanh")(embedded)
    np.testing.assert_array_equal(out._keras_mask.numpy(), [[True, True, False]])


def test_activation_rejects_unknown_name():
    with pytest.raises(ValueError, match=r"act: argument 'activation': .*unknown activation "
                                         r"'nope'"):
        layers.Activation("nope", name="act")
