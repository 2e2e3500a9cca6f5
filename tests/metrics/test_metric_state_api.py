"""Keras 3's Metric state API as Keras's metric_test checks it: the stateless methods,
variables tracked in attributes (also in lists and dicts) and in sub-metrics, and a dtype
policy as ``dtype``."""
import numpy as np
import pytest

import lamina
from lamina import metrics, ops


class SquaredError(metrics.Metric):
    def __init__(self, name="mse", dtype=None):
        super().__init__(name=name, dtype=dtype)
        self.total = self.add_variable((), "zeros", name="total")
        self.count = self.add_variable((), "zeros", name="count")

    def update_state(self, y_true, y_pred, sample_weight=None):
        error = ops.sum((ops.cast(y_true, self.dtype) - ops.cast(y_pred, self.dtype)) ** 2)
        self.total.assign_add(error)
        self.count.assign_add(ops.cast(ops.shape(y_true)[0], self.dtype))

    def result(self):
        return self.total / self.count


def test_stateless_update_state_leaves_the_variables_and_returns_the_new_values():
    rng = np.random.default_rng(0)
    y_true, y_pred = rng.random((20, 3)), rng.random((20, 3))
    metric = SquaredError()
    values = metric.variables
    for start in range(0, 20, 8):
        values = metric.stateless_update_state(values, y_true[start:start + 8],
                                               y_pred[start:start + 8])
    assert float(metric.total.numpy()) == 0.0
    expected = np.sum((y_true - y_pred) ** 2) / 20
    np.testing.assert_allclose(float(metric.stateless_result(values)), expected, rtol=1e-5)
    for variable, value in zip(metric.variables, values):
        variable.assign(value)
    np.testing.assert_allclose(float(metric.result()), expected, rtol=1e-5)
    zeros = metric.stateless_reset_state()
    assert [float(ops.convert_to_numpy(z)) for z in zeros] == [0.0, 0.0]
    assert float(metric.count.numpy()) == 20.0
    with pytest.raises(ValueError, match="metric_variables"):
        metric.stateless_update_state(values[:1], y_true, y_pred)


def test_variables_in_attributes_lists_dicts_and_submetrics_are_tracked():
    metric = SquaredError()
    metric.more = {"a": [lamina.Variable(0.0), lamina.Variable(1.0)]}
    assert len(metric.variables) == 4
    metric = SquaredError()
    metric.subs = {"1": SquaredError("s1"), "2": SquaredError("s2")}
    assert len(metric.variables) == 6
    metric = SquaredError()
    metric.sub = SquaredError("s")
    metric.sub.sub = SquaredError("ss")
    assert len(metric.variables) == 6


def test_a_mixed_policy_gives_its_compute_dtype():
    metric = SquaredError(dtype=lamina.dtype_policies.DTypePolicy("mixed_float16"))
    metric.update_state(np.ones((4, 3)), np.zeros((4, 3)))
    assert metric.result().dtype == "float16"
    assert SquaredError(dtype="mixed_bfloat16").dtype == "bfloat16"
    with pytest.raises(AttributeError):
        metric.dtype = "bfloat16"
