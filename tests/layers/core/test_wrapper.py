import numpy as np
import pytest

from lamina import layers, ops


class Doubled(layers.Wrapper):
    def call(self, inputs):
        return ops.multiply(self.layer(inputs), 2.0)


def test_wrapper_builds_nests_config_and_round_trips():
    wrapped = Doubled(layers.Dense(2, name="inner"), name="outer")
    x = ops.convert_to_tensor(np.ones((1, 3), "float32"))
    y = wrapped(x)
    assert [w.path for w in wrapped.weights] == ["outer/inner/kernel", "outer/inner/bias"]
    np.testing.assert_allclose(y.numpy(), 2 * wrapped.layer(x).numpy(), rtol=1e-6)
    config = wrapped.get_config()
    assert config["layer"]["class_name"] == "Dense"
    assert config["layer"]["config"]["units"] == 2 and "build_config" not in config["layer"]
    clone = Doubled.from_config(config)
    assert isinstance(clone.layer, layers.Dense) and clone.layer.units == 2


def test_wrapper_refuses_a_non_layer():
    with pytest.raises(ValueError, match="Doubled: argument 'layer' must be a Layer instance"):
        Doubled(lambda x: x)
    with pytest.raises(ValueError, match=r"Layer .* supplied to Wrapper isn't a supported "
                                         r"layer type. Please ensure wrapped layer is a "
                                         r"valid Keras layer."):
        Doubled("not a layer")
