"""MeanSquaredError, MeanAbsoluteError, MAPE, MSLE, RootMeanSquaredError, wrapped losses."""
import math

import numpy as np
import pytest

from lamina import metrics, ops
from lamina.metrics import (MeanAbsoluteError, MeanAbsolutePercentageError, MeanMetricWrapper,
                            MeanSquaredError, MeanSquaredLogarithmicError,
                            RootMeanSquaredError)

Y_TRUE, Y_PRED = [[0, 1], [0, 0]], [[1, 1], [0, 0]]      # per-sample errors 0.5-ish and 0


def approx(value, rel=1e-6):
    return pytest.approx(value, rel=rel)


def test_mean_squared_error_over_batches(backend):
    m = MeanSquaredError()
    m.update_state(Y_TRUE, Y_PRED)                                   # 0.5, 0
    assert float(m.result()) == 0.25
    m.update_state([[1, 2]], [[3, 2]], sample_weight=[2.0])          # 2.0 x 2
    assert float(m.result()) == approx((0.5 + 4) / 4)
    assert m.result().backend is backend


def test_mean_absolute_error_over_batches(backend):
    m = MeanAbsoluteError()
    m.update_state(Y_TRUE, Y_PRED)                                   # 0.5, 0
    m.update_state([[1, 2]], [[3, 2]], sample_weight=[2.0])          # 1.0 x 2
    assert float(m.result()) == approx((0.5 + 2) / 4)
    m.reset_state()
    m.update_state(Y_TRUE, Y_PRED, sample_weight=[1, 0])
    assert float(m.result()) == 0.5


def test_mean_absolute_percentage_error(backend):
    m = MeanAbsolutePercentageError()
    m.update_state([[2, 4]], [[1, 5]])                  # 100 * (1/2 + 1/4) / 2 = 37.5
    m.update_state([[-10]], [[-5]], sample_weight=[3.0])     # 50 x 3
    assert float(m.result()) == approx((37.5 + 150) / 4)
    zero = MeanAbsolutePercentageError()
    zero.update_state(Y_TRUE, Y_PRED)                   # y_true 0 divides by epsilon
    assert float(zero.result()) == approx(2.5e8)


def test_mean_squared_logarithmic_error(backend):
    m = MeanSquaredLogarithmicError()
    m.update_state([[0, 1]], [[1, 1]])                  # (log 2 - log(1 + eps))^2 / 2
    m.update_state([[3]], [[1]])                        # (log 2 - log 4)^2
    first = (math.log(2) - math.log(1 + 1e-7)) ** 2 / 2
    assert float(m.result()) == approx((first + math.log(2) ** 2) / 2)


def test_root_mean_squared_error_is_the_root_of_the_running_mean(backend):
    m = RootMeanSquaredError()
    m.update_state(Y_TRUE, Y_PRED, sample_weight=[1, 0])      # mean 0.5 -> 0.7071
    assert float(m.result()) == approx(math.sqrt(0.5))
    m.update_state([[2, 2]], [[0, 2]])                        # per-sample mean 2
    assert float(m.result()) == approx(math.sqrt((0.5 + 2) / 2))
    m.reset_state()
    m.update_state(Y_TRUE, Y_PRED)
    assert float(m.result()) == 0.5


def test_labels_of_shape_batch_meet_predictions_of_shape_batch_1():
    m = MeanSquaredError()
    m.update_state([1, 2], [[1], [4]])                        # per-sample 0 and 4
    assert float(m.result()) == 2.0
    r = RootMeanSquaredError()
    r.update_state([1, 2], [[1], [4]])
    assert float(r.result()) == approx(math.sqrt(2))


def test_float64_keeps_full_precision():
    y_true = np.array([[0.1, 0.7]], dtype="float64")
    y_pred = np.array([[0.3, 0.4]], dtype="float64")
    for cls, expected in ((MeanSquaredError, (0.04 + 0.09) / 2),
                          (MeanAbsoluteError, (0.2 + 0.3) / 2),
                          (RootMeanSquaredError, math.sqrt((0.04 + 0.09) / 2))):
        m = cls(dtype="float64")
        m.update_state(y_true, y_pred)
        assert m.result().dtype == "float64"
        assert float(m.result()) == pytest.approx(expected, rel=1e-12)


def test_integer_inputs_are_measured_as_floats():
    m = MeanAbsoluteError()
    m.update_state(np.array([[1, 2]]), np.array([[2, 4]]))
    assert float(m.result()) == 1.5


def test_any_loss_function_becomes_a_metric_with_mean_metric_wrapper():
    def hinge(y_true, y_pred):
        y_true = ops.convert_to_tensor(y_true, dtype="float32")
        return ops.mean(ops.maximum(1.0 - y_true * ops.convert_to_tensor(y_pred), 0.0),
                        axis=-1)

    m = MeanMetricWrapper(hinge, name="hinge")
    m.update_state([[1, -1]], [[0.5, 0.5]])                   # (0.5 + 1.5) / 2 = 1
    m.update_state([[1, 1]], [[2.0, -1.0]], sample_weight=[3.0])   # (0 + 2) / 2 = 1
    assert float(m.result()) == 1.0
    wrapped = MeanMetricWrapper(metrics.mean_squared_error)
    wrapped.update_state(Y_TRUE, Y_PRED)
    assert float(wrapped.result()) == 0.25


@pytest.mark.parametrize("cls", [MeanSquaredError, MeanAbsoluteError,
                                 MeanAbsolutePercentageError, MeanSquaredLogarithmicError,
                                 RootMeanSquaredError])
def test_configs_are_name_and_dtype_and_round_trip(cls):
    m = cls(name="err", dtype="float64")
    assert m.get_config() == {"name": "err", "dtype": "float64"}
    restored = metrics.deserialize(metrics.serialize(m))
    assert type(restored) is cls and restored.get_config() == m.get_config()
    assert cls().name == {MeanSquaredError: "mean_squared_error",
                          MeanAbsoluteError: "mean_absolute_error",
                          MeanAbsolutePercentageError: "mean_absolute_percentage_error",
                          MeanSquaredLogarithmicError: "mean_squared_logarithmic_error",
                          RootMeanSquaredError: "root_mean_squared_error"}[cls]
