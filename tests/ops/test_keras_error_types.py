"""Where Keras's own tests check the exception type, Lamina raises that type, keeping its
clearer message (issue 22, cause 13)."""
import pytest

from lamina import ops


def test_eye_with_float_sizes_is_a_type_error():
    with pytest.raises(TypeError, match="eye: argument 'N' must be a non-negative int"):
        ops.eye(3.0)
    with pytest.raises(TypeError, match="eye: argument 'M'"):
        ops.eye(3, 2.0)
    with pytest.raises(ValueError, match="eye: argument 'N'"):
        ops.eye(-1)


def test_an_axis_out_of_range_says_it_as_numpy_and_keras_do():
    with pytest.raises(ValueError, match="axis 10 is out of bounds for array of dimension 2"):
        ops.sum(ops.ones((2, 3)), axis=10)
    with pytest.raises(ValueError, match="sum: argument 'axis' must be in \\[-2, 2\\)"):
        ops.sum(ops.ones((2, 3)), axis=-3)
