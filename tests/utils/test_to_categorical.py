"""to_categorical: Keras's one-hot semantics on host data and on tensors."""
import numpy as np
import pytest

from lamina import Tensor, ops
from lamina.utils import to_categorical


def test_labels_become_float32_one_hot_rows():
    out = to_categorical([0, 2, 1])
    assert isinstance(out, np.ndarray) and out.dtype == np.float32
    np.testing.assert_array_equal(out, [[1, 0, 0], [0, 0, 1], [0, 1, 0]])


def test_num_classes_and_shapes():
    assert to_categorical(np.array([1, 0]), num_classes=5).shape == (2, 5)
    assert to_categorical(np.array([[1], [0], [3]])).shape == (3, 4)     # (n, 1) squeezed
    assert to_categorical(np.array([[0, 1], [1, 0]])).shape == (2, 2, 2)
    assert to_categorical(np.array([2])).shape == (1, 3)                 # (1,) kept
    assert to_categorical(np.array(1), 3).tolist() == [0, 1, 0]          # a scalar label
    np.testing.assert_array_equal(to_categorical(np.array([[1], [0]]), 2), [[0, 1], [1, 0]])


def test_integral_floats_and_bools_are_labels():
    np.testing.assert_array_equal(to_categorical([1.0, 0.0]), [[0, 1], [1, 0]])
    np.testing.assert_array_equal(to_categorical(np.array([True, False])), [[0, 1], [1, 0]])


def test_empty_labels():
    assert to_categorical(np.zeros((0,), dtype="int64"), 3).shape == (0, 3)


def test_tensors_stay_tensors(backend):
    out = to_categorical(ops.convert_to_tensor([[2], [0]]), 3)
    assert isinstance(out, Tensor) and out.backend is backend and out.dtype == "float32"
    np.testing.assert_array_equal(out.numpy(), [[0, 0, 1], [1, 0, 0]])
    np.testing.assert_array_equal(to_categorical(ops.convert_to_tensor([1, 0])).numpy(),
                                  [[0, 1], [1, 0]])


def test_errors():
    with pytest.raises(ValueError, match=r"to_categorical: labels must be in \[0, "
                                         r"num_classes=3\); received labels from 0 to 3"):
        to_categorical([0, 3], num_classes=3)
    with pytest.raises(ValueError, match=r"labels must be in \[0, num_classes=2\); received "
                                         r"labels from -1 to 1"):
        to_categorical([-1, 1])
    with pytest.raises(ValueError, match=r"to_categorical: argument 'x' must hold integer "
                                         r"class labels; received dtype float64 with values "
                                         r"such as \[0.5, 1.0\]"):
        to_categorical([0.5, 1.0])
    with pytest.raises(ValueError, match="to_categorical: argument 'num_classes' must be a "
                                         "positive int or None; received 0"):
        to_categorical([0], num_classes=0)
    with pytest.raises(ValueError, match="to_categorical: argument 'num_classes' is required "
                                         "when 'x' is empty"):
        to_categorical([])


def test_tensor_errors():
    with pytest.raises(ValueError, match="to_categorical: argument 'x' must hold integer "
                                         "class labels; received a tensor of dtype float32"):
        to_categorical(ops.convert_to_tensor([0.0, 1.0]))
    with pytest.raises(ValueError, match=r"labels must be in \[0, num_classes=2\); received "
                                         r"labels from 0 to 2"):
        to_categorical(ops.convert_to_tensor([0, 2]), num_classes=2)
    with pytest.raises(ValueError, match="'num_classes' is required when 'x' is empty"):
        to_categorical(ops.zeros((0,), dtype="int32"))
