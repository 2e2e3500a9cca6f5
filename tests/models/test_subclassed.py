import numpy as np
import pytest

import lamina
from lamina import layers, ops


class TwoLayer(lamina.Model):
    def __init__(self, hidden=4, **kwargs):
        super().__init__(**kwargs)
        self.hidden = layers.Dense(hidden, activation="relu")
        self.out = layers.Dense(2)

    def call(self, inputs, training=None):
        return self.out(self.hidden(inputs))


class DataDependent(lamina.Model):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.dense = layers.Dense(1)

    def call(self, inputs):
        if float(ops.sum(inputs).numpy()) > 0:       # Python control flow on values
            return self.dense(inputs)
        return -self.dense(inputs)


def setup_function():
    lamina.backend.clear_session(free_memory=False)


def test_subclassed_model_tracks_layers_and_builds_on_first_call(backend):
    model = TwoLayer()
    assert not model.built and model.weights == []
    y = model(np.ones((3, 5), "float32"))
    assert y.shape == (3, 2) and model.built
    assert [layer.name for layer in model.layers] == ["dense", "dense_1"]
    assert model.count_params() == 5 * 4 + 4 + 4 * 2 + 2


def test_build_with_a_shape_creates_the_weights():
    model = TwoLayer()
    model.build((None, 7))
    assert model.count_params() == 7 * 4 + 4 + 10


def test_eager_control_flow_works_on_first_call():
    model = DataDependent()
    y_pos = model(np.ones((1, 2), "float32"))
    y_neg = model(-np.ones((1, 2), "float32"))
    (k, b) = model.get_weights()
    np.testing.assert_allclose(y_pos.numpy(), np.ones((1, 2)) @ k + b, rtol=1e-6)
    np.testing.assert_allclose(y_neg.numpy(), -(-np.ones((1, 2)) @ k + b), rtol=1e-6)


def test_gradients_through_a_subclassed_model():
    model = TwoLayer()
    x = ops.convert_to_tensor(np.ones((2, 3), "float32"))
    with lamina.GradientTape() as tape:
        loss = ops.sum(ops.square(model(x)))
    grads = tape.gradient(loss, model.trainable_weights)
    assert len(grads) == 4 and all(g is not None for g in grads)


def test_default_config_of_a_subclassed_model():
    config = TwoLayer(hidden=3, name="tl").get_config()
    assert config == {"name": "tl", "trainable": True, "hidden": 3}
    assert TwoLayer.from_config(config).hidden.units == 3


def test_build_requires_a_shape():
    with pytest.raises(ValueError, match=r"argument 'input_shape' is required"):
        TwoLayer().build()
