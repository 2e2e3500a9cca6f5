import numpy as np
import pytest

import lamina
from lamina.errors import ShapeError


def test_assign_writes_into_the_same_buffer(backend):
    v = lamina.Variable(np.zeros((2, 2)), name="kernel")
    buffer = v.data
    v.assign(np.ones((2, 2)))
    v.assign_add(np.full((2, 2), 2.0))
    v.assign_sub([[1.0, 1.0], [1.0, 1.0]])
    assert v.data is buffer
    np.testing.assert_array_equal(v.numpy(), np.full((2, 2), 2.0))


def test_value_is_a_snapshot(backend):
    v = lamina.Variable([1.0])
    snapshot = v.value
    v.assign([5.0])
    assert snapshot.numpy()[0] == 1.0


def test_dtype_defaults_to_floatx_like_keras(backend):
    assert lamina.Variable(np.zeros(3)).dtype == "float32"
    assert lamina.Variable(np.zeros(3), dtype="float64").dtype == "float64"
    assert lamina.Variable(np.zeros(3, dtype=np.int64)).dtype == "int64"


def test_callable_initializer_needs_shape(backend):
    def ones(shape, dtype):
        return np.ones(shape, dtype=dtype)
    v = lamina.Variable(ones, shape=(2, 3), trainable=False, name="ones")
    assert v.shape == (2, 3) and not v.trainable and v.name == "ones"
    with pytest.raises(ValueError, match="'shape' is required when the initializer is a callable"):
        lamina.Variable(ones)


def test_assign_shape_mismatch_names_the_variable(backend):
    v = lamina.Variable(np.zeros((2, 3)), name="bias")
    with pytest.raises(ShapeError, match=r"Variable 'bias'.assign: expected a value of shape "
                                         r"\(2, 3\); received shape \(3, 2\)"):
        v.assign(np.zeros((3, 2)))
    with pytest.raises(ShapeError, match="initial value has shape"):
        lamina.Variable(np.zeros(3), shape=(4,), name="x")


def test_variable_reads_like_a_tensor(backend):
    v = lamina.Variable([1.0, 2.0])
    np.testing.assert_allclose((v * 2.0 + 1.0).numpy(), [3.0, 5.0])
    assert "Variable" in repr(v) and "trainable=True" in repr(v)
    assert v.backend is backend


def test_variable_pickles(backend):
    import pickle
    v = lamina.Variable([1.0, 2.0], name="w", trainable=False)
    w = pickle.loads(pickle.dumps(v))
    assert w.name == "w" and not w.trainable and w.dtype == "float32"
    np.testing.assert_array_equal(w.numpy(), v.numpy())


def test_a_replicated_layout_is_accepted_and_a_split_one_named():
    from lamina.distribution import DeviceMesh, TensorLayout
    mesh = DeviceMesh((1,), ["batch"])
    v = lamina.Variable(np.ones((2, 3), "float32"), layout=TensorLayout([None, None], mesh))
    np.testing.assert_array_equal(v.numpy(), np.ones((2, 3)))
    with pytest.raises(ValueError, match="Variable: argument 'layout' must be None or a "
                                         "TensorLayout that splits no dimension .*data-parallel "
                                         "only"):
        lamina.Variable(np.ones((2, 3), "float32"), layout=TensorLayout(["batch", None], mesh))
    with pytest.raises(ValueError, match="argument 'layout'"):
        lamina.Variable(np.ones((2, 3), "float32"), layout="rows")
