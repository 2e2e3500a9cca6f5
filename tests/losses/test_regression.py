"""Regression losses (mse, mae, mape, msle, huber, log_cosh, cosine similarity): values
worked out by hand, weights, reductions, numerics and errors."""
import math

import numpy as np
import pytest

from lamina import GradientTape, ops
from lamina.errors import ShapeError
from lamina.losses import (CosineSimilarity, Huber, LogCosh, MeanAbsoluteError,
                           MeanAbsolutePercentageError, MeanSquaredError,
                           MeanSquaredLogarithmicError, cosine_similarity, huber, log_cosh,
                           mean_absolute_error, mean_absolute_percentage_error,
                           mean_squared_error, mean_squared_logarithmic_error)

Y_TRUE = [[1.0, 2.0], [4.0, -2.0]]
Y_PRED = [[1.5, 1.0], [3.0, 0.0]]
# errors: [[-0.5, 1], [1, -2]]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_squared_and_absolute_errors(dtype, backend):
    y_pred = ops.convert_to_tensor(Y_PRED, dtype=dtype)
    mse = mean_squared_error(Y_TRUE, y_pred)
    assert mse.dtype == dtype and mse.backend is backend
    np.testing.assert_allclose(mse.numpy(), [0.625, 2.5], rtol=1e-6)       # (0.25 + 1) / 2
    np.testing.assert_allclose(mean_absolute_error(Y_TRUE, y_pred).numpy(), [0.75, 1.5],
                               rtol=1e-6)
    np.testing.assert_allclose(MeanSquaredError(dtype=dtype)(Y_TRUE, y_pred).numpy(), 1.5625,
                               rtol=1e-6)
    np.testing.assert_allclose(MeanAbsoluteError(reduction="sum")(Y_TRUE, y_pred).numpy(),
                               2.25, rtol=1e-6)
    # weights (2, 0): 2 * 0.625 / 2
    np.testing.assert_allclose(MeanSquaredError()(Y_TRUE, y_pred, [2.0, 0.0]).numpy(), 0.625,
                               rtol=1e-6)


def test_percentage_error():
    # |1 - 1.5| / 1 = 0.5, |2 - 1| / 2 = 0.5 -> 50; |4 - 3| / 4 = 0.25, |-2 - 0| / 2 = 1 -> 62.5
    np.testing.assert_allclose(mean_absolute_percentage_error(Y_TRUE, Y_PRED).numpy(),
                               [50.0, 62.5], rtol=1e-6)
    np.testing.assert_allclose(MeanAbsolutePercentageError()(Y_TRUE, Y_PRED).numpy(), 56.25,
                               rtol=1e-6)
    # y_true = 0 divides by epsilon = 1e-7 instead of 0
    np.testing.assert_allclose(mean_absolute_percentage_error([[0.0]], [[1e-7]]).numpy(),
                               [100.0], rtol=1e-5)


def test_squared_logarithmic_error():
    y_true, y_pred = [[0.0, math.e - 1]], [[math.e ** 2 - 1, -5.0]]
    # logs: y_pred -> [2, log(1 + 1e-7)], y_true -> [log(1 + 1e-7), 1]; negatives -> epsilon
    tiny = math.log1p(1e-7)
    expected = ((2 - tiny) ** 2 + (tiny - 1) ** 2) / 2
    np.testing.assert_allclose(mean_squared_logarithmic_error(y_true, y_pred).numpy(),
                               [expected], rtol=1e-5)
    np.testing.assert_allclose(MeanSquaredLogarithmicError()([[3.0]], [[1.0]]).numpy(),
                               math.log(2) ** 2, rtol=1e-6)


def test_huber():
    y_true, y_pred = [[0.0, 1.0], [0.0, 0.0]], [[0.6, 0.4], [0.4, 0.6]]
    # all |e| <= 1: 0.5 e**2 -> rows (0.18 + 0.18) / 2 and (0.08 + 0.18) / 2
    np.testing.assert_allclose(huber(y_true, y_pred).numpy(), [0.18, 0.13], rtol=1e-6)
    np.testing.assert_allclose(Huber()(y_true, y_pred).numpy(), 0.155, rtol=1e-6)
    # delta 0.5: |e| = 0.6 is linear: 0.5 * 0.6 - 0.125 = 0.175
    np.testing.assert_allclose(huber(y_true, y_pred, delta=0.5).numpy(), [0.175, 0.1275],
                               rtol=1e-6)
    np.testing.assert_allclose(Huber(delta=2.0)([[0.0]], [[5.0]]).numpy(), 2 * 5 - 2, rtol=1e-6)


def test_log_cosh_values_and_numerics():
    y_true, y_pred = [[0.0, 1.0], [0.0, 0.0]], [[1.0, 1.0], [0.0, 0.0]]
    np.testing.assert_allclose(log_cosh(y_true, y_pred).numpy(), [math.log(math.cosh(1)) / 2,
                                                                  0.0], atol=1e-7)
    np.testing.assert_allclose(LogCosh()(y_true, y_pred).numpy(), 0.10844521, rtol=1e-6)
    # cosh(1000) overflows, log(cosh(1000)) = 1000 - log 2 does not
    y_pred = ops.convert_to_tensor([[1000.0, 0.0]])
    with GradientTape() as tape:
        tape.watch(y_pred)
        loss = ops.sum(log_cosh([[0.0, 0.0]], y_pred))
    np.testing.assert_allclose(loss.numpy(), (1000 - math.log(2)) / 2, rtol=1e-6)
    # gradient tanh(e) / 2: 0.5 at a huge error, exactly 0 at no error
    np.testing.assert_array_equal(tape.gradient(loss, y_pred).numpy(), [[0.5, 0.0]])


def test_cosine_similarity():
    y_true = [[0.0, 1.0], [1.0, 1.0], [1.0, 1.0], [0.0, 0.0]]
    y_pred = [[1.0, 0.0], [1.0, 1.0], [-1.0, -1.0], [1.0, 2.0]]
    # orthogonal, equal, opposite, and a zero vector (0)
    np.testing.assert_allclose(cosine_similarity(y_true, y_pred).numpy(), [0, -1, 1, 0],
                               atol=1e-6)
    np.testing.assert_allclose(CosineSimilarity()(y_true, y_pred).numpy(), 0.0, atol=1e-6)
    # along axis 0: columns (0, 1) vs (1, 1) -> -1/sqrt(2); (1, 2) vs (0, 3) -> -2/sqrt(5)
    np.testing.assert_allclose(CosineSimilarity(axis=0, reduction=None)(
        [[0.0, 1.0], [1.0, 2.0]], [[1.0, 0.0], [1.0, 3.0]]).numpy(),
        [-1 / math.sqrt(2), -2 / math.sqrt(5)], rtol=1e-6)


def test_shape_mismatch_errors():
    with pytest.raises(ShapeError, match=r"mean_squared_error: y_true and y_pred must have the "
                                         r"same shape; received y_true.shape=\(2,\) and "
                                         r"y_pred.shape=\(2, 3\)"):
        MeanSquaredError()([1.0, 2.0], np.zeros((2, 3)))
    with pytest.raises(ShapeError, match=r"huber: y_true and y_pred must have the same shape; "
                                         r"received y_true.shape=\(2, 2\) and "
                                         r"y_pred.shape=\(2, 3\)"):
        huber(np.zeros((2, 2)), np.zeros((2, 3)))


def test_argument_errors():
    with pytest.raises(ValueError, match="Huber: argument 'delta' must be a number >= 0; "
                                         "received -1.0"):
        Huber(delta=-1.0)
    with pytest.raises(TypeError, match="huber: argument 'delta' must be a number; "
                                        "received '1'"):
        huber([1.0], [1.0], delta="1")
    with pytest.raises(TypeError, match="CosineSimilarity: argument 'axis' must be an int; "
                                        "received 1.0"):
        CosineSimilarity(axis=1.0)
