import numpy as np
import pytest

from lamina import layers
from tests.layers.harness import LayerCase, case_id, run_layer_case

CASES = [
    LayerCase(layers.ReLU, {}, (2, 3), (2, 3), params=0),
    LayerCase(layers.ReLU, dict(max_value=1.0, negative_slope=0.1, threshold=0.5), (2, 3, 4),
              (2, 3, 4), params=0),
]


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_relu_harness(case, backend):
    run_layer_case(case)


def _reference(x, max_value=None, negative_slope=0.0, threshold=0.0):
    # Keras computes x * (x > threshold): exactly at a non-zero threshold the output is 0
    y = np.where(x > threshold, x, negative_slope * (x - threshold))
    return y if max_value is None else np.minimum(y, max_value)


@pytest.mark.parametrize("kwargs", [{}, dict(max_value=6.0), dict(negative_slope=0.2),
                                    dict(threshold=0.5),
                                    dict(max_value=1.0, negative_slope=0.5, threshold=0.25)])
def test_relu_matches_keras_formula(kwargs, backend):
    x = np.linspace(-8, 8, 33, dtype="float32").reshape(3, 11)
    np.testing.assert_allclose(layers.ReLU(**kwargs)(x).numpy(), _reference(x, **kwargs),
                               rtol=1e-6, atol=1e-6)


def test_relu_docstring_example(backend):
    x = np.array([[-10, -5, 0.0, 5, 10]], "float32")
    y = layers.ReLU(max_value=10, negative_slope=0.5, threshold=0)(x).numpy()
    np.testing.assert_allclose(y, [[-5.0, -2.5, 0.0, 5.0, 10.0]])


def test_rejects_bad_arguments():
    with pytest.raises(ValueError, match=r"r: argument 'max_value' must be a non-negative, "
                                         r"finite number; received -1"):
        layers.ReLU(max_value=-1, name="r")
    with pytest.raises(ValueError, match=r"argument 'negative_slope' must be a non-negative"):
        layers.ReLU(negative_slope=-0.1)
    with pytest.raises(ValueError, match=r"argument 'threshold' must be a non-negative"):
        layers.ReLU(threshold=-2.0)
    with pytest.raises(TypeError, match=r"r2: argument 'negative_slope' must be a "
                                        r"non-negative number; received None"):
        layers.ReLU(negative_slope=None, name="r2")


@pytest.mark.parametrize("arg", ["negative_slope", "threshold"])
def test_none_is_also_keras_s_value_error(arg):
    # Keras raises ValueError("<arg> of a ReLU layer cannot be None or a negative value")
    with pytest.raises(ValueError, match=rf"r3: argument '{arg}' must be a non-negative "
                                         rf"number; received None \({arg} of a ReLU layer "
                                         rf"cannot be None or a negative value\)"):
        layers.ReLU(**{arg: None}, name="r3")
    with pytest.raises(ValueError, match=r"max_value of a ReLU layer cannot be a negative"):
        layers.ReLU(max_value=-10)


def test_stateless_layers_are_built_at_construction():
    # Keras's _build_at_init: a layer with no build() is built once constructed
    from lamina.layers import (ELU, Activation, Identity, LeakyReLU, Masking, ReLU, Softmax,
                               UnitNormalization)
    for layer in (ReLU(), LeakyReLU(), ELU(), Softmax(), Activation("tanh"), Identity(),
                  Masking(), UnitNormalization()):
        assert layer.built, type(layer).__name__
    assert not layers.PReLU().built                 # it has weights to create


def test_build_at_init_leaves_a_subclass_with_its_own_build_unbuilt():
    class Scaled(layers.ReLU):
        def build(self, input_shape):
            self.scale = self.add_weight(shape=(input_shape[-1],), initializer="ones")

    layer = Scaled()
    assert not layer.built
    layer(np.ones((2, 3), "float32"))
    assert layer.built and len(layer.weights) == 1
