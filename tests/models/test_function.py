"""``lamina.Function`` (Keras 3's ``keras.Function``): a graph between any symbolic tensors
(placeholders or intermediate tensors), run on values or on symbolic tensors."""
import numpy as np
import pytest

import lamina
from lamina import ops


def test_placeholders_in_lists_and_dicts():
    x1, x2 = lamina.KerasTensor((2, 3)), lamina.KerasTensor((2, 3))
    x = ops.add(x1, x2)
    fn = lamina.Function([x1, x2], [x * 3, x ** 2], name="test_function")
    assert fn.name == "test_function"
    y1, y2 = fn([np.ones((2, 3)), np.ones((2, 3))])
    np.testing.assert_allclose(y1.numpy(), np.full((2, 3), 6.0))
    np.testing.assert_allclose(y2.numpy(), np.full((2, 3), 4.0))
    s1, s2 = fn([lamina.KerasTensor((2, 3)), lamina.KerasTensor((2, 3))])
    assert isinstance(s1, lamina.KerasTensor) and s1.shape == s2.shape == (2, 3)
    again = lamina.Function({"a": x1, "b": x2}, {"y": x * 3})
    out = again({"a": np.ones((2, 3)), "b": np.full((2, 3), 2.0)})
    np.testing.assert_allclose(out["y"].numpy(), np.full((2, 3), 9.0))


def test_output_specs_and_shapes_for_new_input_shapes():
    x = lamina.KerasTensor((None, 3))
    fn = lamina.Function(x, x ** 2)
    assert fn.compute_output_spec(lamina.KerasTensor((4, 3))).shape == (4, 3)
    assert fn.compute_output_shape((None, 3)) == (None, 3)
    assert fn(lamina.KerasTensor((4, 3))).shape == (4, 3)


def test_an_intermediate_tensor_as_input_leaves_its_producers_out():
    x = lamina.Input(batch_shape=(None, 3), name="x")
    b = ops.add(ops.multiply(x, 2.0), 1.0)
    fn = lamina.Function(b, b ** 2)
    names = [op.name for op in fn.operations]
    assert names == ["power"]
    np.testing.assert_allclose(fn(np.full((2, 3), 3.0)).numpy(), np.full((2, 3), 9.0))


def test_layers_are_operations_and_run():
    inputs = lamina.Input((4,))
    dense = lamina.layers.Dense(2, kernel_initializer="ones")
    fn = lamina.Function(inputs, ops.relu(dense(inputs)))
    assert fn.operations[0] is dense
    np.testing.assert_allclose(fn(np.array([[1.0, -2.0, 0.5, 1.0]])).numpy(), [[0.5, 0.5]])


def test_invalid_calls_and_graphs_raise_keras_errors():
    x1, x2 = lamina.KerasTensor((2, 3)), lamina.KerasTensor((2, 3))
    fn = lamina.Function([x1, x2], ops.add(x1, x2))
    with pytest.raises(ValueError, match=r"called with an invalid input structure"):
        fn(np.ones((2, 3)))
    with pytest.raises(ValueError, match=r"was passed incompatible inputs: input 0 expects "
                                         r"shape \(2, 3\); received shape \(2, 3, 3\)"):
        fn([np.ones((2, 3, 3)), np.ones((2, 3))])
    with pytest.raises(ValueError, match=r"incompatible inputs: input 0 expects shape "
                                         r"\(2, 3\); received shape \(4, 3\)"):
        fn([np.ones((4, 3)), np.ones((2, 3))])
    with pytest.raises(ValueError, match=r"`inputs` argument cannot be empty"):
        lamina.Function([], x1)
    with pytest.raises(ValueError, match=r"`outputs` argument cannot be empty"):
        lamina.Function(x1, [])
    with pytest.raises(ValueError, match=r"graph disconnected: Output 0 is not connected to "
                                         r"`inputs`"):
        lamina.Function(x1, ops.add(x1, x2))


def test_functional_model_names_the_disconnected_output():
    first = lamina.Input((6,))
    used = lamina.layers.Dense(2)(lamina.Input((6,)))
    with pytest.raises(ValueError, match=r"graph disconnected: Output 1 is not connected to "
                                         r"`inputs`"):
        lamina.Model(first, [lamina.layers.Dense(1)(first), used])
