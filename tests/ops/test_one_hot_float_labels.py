"""``ops.one_hot`` casts float labels to int32 as Keras does (issue 22, cause 5)."""
import numpy as np

from lamina import ops


def test_float_labels_are_cast():
    out = ops.one_hot(np.array([0.0, 2.0, 1.0], "float32"), 3)
    np.testing.assert_array_equal(out.numpy(), np.eye(3, dtype="float32")[[0, 2, 1]])


def test_float_labels_truncate_like_a_cast():
    out = ops.one_hot(np.array([1.7, -0.5]), 3)
    np.testing.assert_array_equal(out.numpy(), np.eye(3, dtype="float32")[[1, 0]])
