"""InputLayer's arguments, as Keras 3.15.1's input_layer_test checks them."""
import numpy as np
import pytest

import lamina
from lamina import layers


def test_shape_and_batch_size_make_the_batch_shape():
    layer = layers.InputLayer(shape=(2, 3), batch_size=4, dtype="float32")
    assert layer.batch_shape == (4, 2, 3) and layer.output.shape == (4, 2, 3)
    assert layer.sparse is False and layer.ragged is False and layer.trainable
    assert layer.output.sparse is False and layer.output.ragged is False     # KerasTensor's
    assert layer.call() is None                        # Keras's call() computes nothing


def test_argument_errors():
    with pytest.raises(ValueError, match=r"i1: you cannot pass both `shape` and `batch_shape` "
                                         r"at the same time"):
        layers.InputLayer(shape=(2, 3), batch_shape=(2, 3), name="i1")
    with pytest.raises(ValueError, match=r"i2: you cannot pass both `batch_size` and "
                                         r"`batch_shape` at the same time"):
        layers.InputLayer(batch_size=4, batch_shape=(2, 3), name="i2")
    with pytest.raises(ValueError, match=r"i3: you must pass a `shape` argument."):
        layers.InputLayer(name="i3")
    with pytest.raises(ValueError, match=r"i4: `ragged=True` is not supported"):
        layers.InputLayer(shape=(2,), ragged=True, name="i4")
    with pytest.raises(ValueError, match=r"i5: `sparse=True` is not supported"):
        layers.InputLayer(shape=(2,), sparse=True, name="i5")


def test_input_shape_is_deprecated_with_keras_s_warning():
    with pytest.warns(UserWarning, match=r"Argument `input_shape` is deprecated. Use `shape` "
                                         r"instead."):
        layer = layers.InputLayer(input_shape=(2, 3), batch_size=4)
    assert layer.batch_shape == (4, 2, 3)


def test_input_tensor_becomes_the_output():
    tensor = lamina.KerasTensor((2, 3), dtype="float32")
    layer = layers.InputLayer(input_tensor=tensor)
    assert layer.output is tensor and layer.batch_shape == (2, 3)
    assert layers.InputLayer(shape=(3,), batch_size=2, sparse=False, dtype="float32",
                             input_tensor=lamina.KerasTensor((2, 3))).batch_shape == (2, 3)
    model = lamina.Model(tensor, layers.Dense(1, kernel_initializer="ones")(tensor))
    np.testing.assert_allclose(model(np.ones((2, 3), "float32")).numpy(), [[3.0], [3.0]])


@pytest.mark.parametrize("arg,value", [("shape", (2, 4)), ("batch_shape", (2, 4)),
                                       ("batch_size", 5), ("dtype", "float16"),
                                       ("sparse", True)])
def test_input_tensor_refuses_arguments_that_disagree(arg, value):
    with pytest.raises(ValueError, match=rf"i: when providing the `input_tensor` argument, "
                                         rf"you cannot provide an incompatible `{arg}` "
                                         rf"argument"):
        layers.InputLayer(input_tensor=lamina.KerasTensor((2, 3)), name="i", **{arg: value})
    with pytest.raises(ValueError, match=r"Argument `input_tensor` must be a KerasTensor"):
        layers.InputLayer(shape=(2, 3), input_tensor=np.zeros((2, 3)))
