"""Keras 3 signatures of conversion and gather ops: arange's step=None, convert_to_tensor's
sparse/ragged (refused: Lamina tensors are dense), stop_gradient(variable), take and
take_along_axis without Lamina's internal range_message."""
import inspect

import numpy as np
import pytest

import lamina
from lamina import ops
from lamina.errors import IndexRangeError
from lamina.ops.indexing import checked_take, checked_take_along_axis


def test_arange_step_defaults_to_one():
    assert inspect.signature(ops.arange).parameters["step"].default is None
    np.testing.assert_array_equal(ops.arange(2, 6).numpy(), [2, 3, 4, 5])
    assert ops.arange(2, 6).dtype == "int32"
    np.testing.assert_allclose(ops.arange(0.5, 2, step=None).numpy(), [0.5, 1.5])
    np.testing.assert_allclose(ops.arange(0, 1, 0.25).numpy(), [0, 0.25, 0.5, 0.75])


def test_convert_to_tensor_refuses_sparse_and_ragged():
    assert ops.convert_to_tensor([1, 2], sparse=False, ragged=False).dtype == "int32"
    with pytest.raises(ValueError, match=r"convert_to_tensor: sparse=True is not supported; "
                                         r"Lamina tensors are dense"):
        ops.convert_to_tensor([1.0], sparse=True)
    with pytest.raises(ValueError, match=r"convert_to_tensor: ragged=True is not supported"):
        ops.convert_to_tensor([1.0], ragged=True)


def test_stop_gradient_takes_variable_keyword():
    v = lamina.Variable(np.ones(3, np.float32))
    with lamina.GradientTape() as tape:
        y = ops.sum(ops.multiply(ops.stop_gradient(variable=v), v))
    np.testing.assert_allclose(tape.gradient(y, v).numpy(), [1.0, 1.0, 1.0])


def test_checked_gathers_keep_their_messages():
    x = ops.convert_to_tensor(np.arange(6.0).reshape(2, 3))
    with pytest.raises(IndexRangeError, match=r"ids must be in \[0, 3\); got -1 \(-1\.\.2\)"):
        checked_take(x, [2, -1], axis=1, range_message="ids must be in [0, {size}); got {bad} "
                                                       "({low}..{high})")
    with pytest.raises(IndexRangeError, match=r"label 5 of 3"):
        checked_take_along_axis(x, ops.convert_to_tensor([[5], [0]]), axis=1,
                                range_message="label {bad} of {size}")
    # the public gathers count negative indices from the end, as numpy does
    np.testing.assert_allclose(ops.take(x, [2, -1], axis=1).numpy(), [[2, 2], [5, 5]])
    assert "range_message" not in inspect.signature(ops.take).parameters
    assert "range_message" not in inspect.signature(ops.take_along_axis).parameters
