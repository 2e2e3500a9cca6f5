"""Zeros, Ones, Constant, Identity and the shared argument checks of the base class."""
import numpy as np
import pytest

from lamina import Tensor, ops
from lamina.errors import DTypeError, ShapeError
from lamina.initializers import Constant, Identity, Initializer, Ones, Zeros


def test_zeros_and_ones(backend):
    z = Zeros()((2, 3))
    o = Ones()((4,), dtype="float64")
    assert isinstance(z, Tensor) and z.dtype == "float32" and z.backend is backend
    np.testing.assert_array_equal(z.numpy(), np.zeros((2, 3)))
    assert o.dtype == "float64"
    np.testing.assert_array_equal(o.numpy(), np.ones(4))


def test_integer_and_scalar_shapes():
    assert Ones()((2,), dtype="int32").dtype == "int32"
    assert Zeros()(3).shape == (3,)
    assert Zeros()(()).shape == ()


def test_constant_scalar(backend):
    np.testing.assert_array_equal(Constant(2.5)((2, 2)).numpy(), np.full((2, 2), 2.5))
    ints = Constant(7)((3,), dtype="int64")
    assert ints.dtype == "int64"
    np.testing.assert_array_equal(ints.numpy(), [7, 7, 7])
    assert Constant(np.float64(1.5)).get_config() == {"value": 1.5}


def test_constant_array_broadcasts_and_loads_pretrained_matrices(backend):
    matrix = np.arange(6, dtype="float64").reshape(3, 2)
    np.testing.assert_array_equal(Constant(matrix)((3, 2)).numpy(), matrix)
    row = Constant([1.0, 2.0])((3, 2))
    np.testing.assert_array_equal(row.numpy(), [[1, 2]] * 3)
    from_tensor = Constant(ops.convert_to_tensor(matrix))((3, 2), dtype="float64")
    np.testing.assert_array_equal(from_tensor.numpy(), matrix)


def test_constant_array_config_is_a_list_and_round_trips():
    config = Constant(np.array([[1.0, 2.0]])).get_config()
    assert config == {"value": [[1.0, 2.0]]}
    rebuilt = Constant.from_config(config)
    np.testing.assert_array_equal(rebuilt((2, 2)).numpy(), [[1, 2], [1, 2]])
    assert Constant(ops.convert_to_tensor([3.0])).get_config() == {"value": [3.0]}


def test_constant_reads_keras3_numpy_values():
    keras_value = {"class_name": "__numpy__", "config": {"value": [1.0, 2.0],
                                                         "dtype": "float32"}}
    np.testing.assert_array_equal(Constant(keras_value)((2,)).numpy(), [1.0, 2.0])


def test_constant_errors():
    with pytest.raises(ShapeError, match=r"Constant: the value of shape \(3,\) does not "
                                         r"broadcast to the requested shape \(2, 2\)"):
        Constant([1.0, 2.0, 3.0])((2, 2))
    with pytest.raises(ShapeError, match="does not broadcast"):
        Constant(np.ones((2, 3)))((3,))
    with pytest.raises(TypeError, match="Constant: argument 'value' must be a number or an "
                                        "array; received 'a' of type str"):
        Constant("a")


@pytest.mark.parametrize("shape", [(3, 3), (2, 4), (4, 2)])
def test_identity(shape, backend):
    np.testing.assert_array_equal(Identity()(shape).numpy(), np.eye(*shape))
    np.testing.assert_allclose(Identity(gain=0.5)(shape, dtype="float64").numpy(),
                               0.5 * np.eye(*shape))


def test_identity_keeps_the_requested_dtype():
    assert Identity(2.0)((2, 2), dtype="int32").dtype == "int32"
    np.testing.assert_array_equal(Identity(2.0)((2, 2), dtype="int32").numpy(),
                                  2 * np.eye(2))


def test_identity_errors():
    with pytest.raises(ShapeError, match=r"Identity: can only initialize 2-D matrices; "
                                         r"received shape \(2, 2, 2\) of rank 3"):
        Identity()((2, 2, 2))
    with pytest.raises(TypeError, match="Identity: argument 'gain' must be a number; "
                                        "received 'big' of type str"):
        Identity("big")
    with pytest.raises(ValueError, match="Identity: argument 'gain' must be finite"):
        Identity(float("nan"))


def test_shape_and_dtype_errors():
    with pytest.raises(ShapeError, match=r"Zeros: argument 'shape' must be a tuple of "
                                         r"non-negative ints; received \(2, -1\)"):
        Zeros()((2, -1))
    with pytest.raises(ShapeError, match=r"Ones: argument 'shape' must be a tuple of "
                                         r"non-negative ints; received \(2.5,\)"):
        Ones()((2.5,))
    with pytest.raises(DTypeError, match="unknown dtype 'float13'"):
        Zeros()((2,), dtype="float13")


def test_base_class_contract():
    with pytest.raises(NotImplementedError, match="Initializer: Initializer subclasses must "
                                                  r"implement __call__\(shape, dtype=None\)"):
        Initializer()((2,))
    assert Initializer().get_config() == {}
    clone = Identity(3.0).clone()
    assert isinstance(clone, Identity) and clone.gain == 3.0
    assert repr(Identity(3.0)) == "Identity(gain=3.0)"


def test_from_config_drops_the_dtype_of_tf1_era_files():
    assert Identity.from_config({"gain": 2.0, "dtype": "float32"}).gain == 2.0
    assert isinstance(Zeros.from_config({"dtype": "float32"}), Zeros)
