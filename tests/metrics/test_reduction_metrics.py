"""Sum, Mean and MeanMetricWrapper: weighted running values over several batches."""
import numpy as np
import pytest

from lamina import metrics, ops
from lamina.errors import ShapeError
from lamina.metrics import Mean, MeanMetricWrapper, Sum
from lamina.saving import UnknownObjectError, register_keras_serializable


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_sum_over_batches_with_and_without_weights(backend, dtype):
    m = Sum(dtype=dtype)
    m.update_state([1, 3, 5, 7])                                  # 16
    m.update_state([1, 3, 5, 7], sample_weight=[1, 1, 0, 0])      # + 4
    m.update_state([[1, 2], [3, 4]], sample_weight=[1, 0])        # + (1 + 2) * 1
    result = m.result()
    assert result.dtype == dtype and result.backend is backend
    assert float(result) == 23.0
    m.reset_state()
    assert float(m.result()) == 0.0


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_mean_over_batches_with_and_without_weights(backend, dtype):
    m = Mean(dtype=dtype)
    m.update_state([1, 3, 5, 7])                            # total 16, count 4
    assert float(m.result()) == 4.0
    m.update_state([2.0], sample_weight=[3.0])              # total 22, count 7
    np.testing.assert_allclose(float(m.result()), 22 / 7, rtol=1e-6)
    m.update_state(5.0)                                     # a scalar counts once: 27 / 8
    np.testing.assert_allclose(float(m.result()), 27 / 8, rtol=1e-6)
    assert m.result().dtype == dtype
    m.reset_state()
    assert float(m.result()) == 0.0                         # 0 / 0 -> 0, not nan


def test_mean_reduces_values_to_the_rank_of_the_weights():
    m = Mean()
    m.update_state([[1, 2], [3, 4]], sample_weight=[1, 0])   # per-sample means 1.5, 3.5
    assert float(m.result()) == 1.5
    m = Mean()
    m.update_state([[1, 2], [3, 4]], sample_weight=[[1, 0], [1, 1]])
    np.testing.assert_allclose(float(m.result()), (1 + 3 + 4) / 3, rtol=1e-6)
    m = Mean()
    m.update_state([[1, 2], [3, 4]])                         # no weights: per-sample means
    assert float(m.result()) == 2.5 and float(m.count.numpy()) == 2.0


def test_mean_scalar_weight_weighs_the_batch_as_one_sample():
    m = Mean()
    m.update_state([1, 3], sample_weight=2.0)                # mean 2, weight 2
    m.update_state([10], sample_weight=1.0)
    np.testing.assert_allclose(float(m.result()), (2 * 2 + 10) / 3, rtol=1e-6)


def test_mean_weights_of_shape_batch_1_meet_rank_1_values():
    m = Mean()
    m.update_state([1.0, 2.0, 6.0], sample_weight=[[1.0], [0.0], [2.0]])
    np.testing.assert_allclose(float(m.result()), (1 + 12) / 3, rtol=1e-6)


def test_sample_weight_that_does_not_broadcast_is_a_shape_error():
    with pytest.raises(ShapeError, match=r"mean: argument 'sample_weight' of shape \(3,\) "
                                         r"does not broadcast to the per-sample values of "
                                         r"shape \(2,\)"):
        Mean().update_state([1.0, 2.0], sample_weight=[1.0, 1.0, 1.0])


def _abs_diff(y_true, y_pred, scale=1.0):
    return ops.multiply(scale, ops.mean(ops.abs(ops.subtract(
        ops.convert_to_tensor(y_true), ops.convert_to_tensor(y_pred))), axis=-1))


def test_mean_metric_wrapper_passes_kwargs_and_weights():
    m = MeanMetricWrapper(_abs_diff, name="scaled", scale=10.0)
    m.update_state([[0.0, 1.0], [1.0, 1.0]], [[0.5, 1.0], [1.0, 0.0]])     # 2.5, 5.0
    m.update_state([[2.0, 2.0]], [[2.0, 1.0]], sample_weight=[2.0])        # 5.0 x 2
    np.testing.assert_allclose(float(m.result()), (2.5 + 5 + 10) / 4, rtol=1e-6)
    assert m.name == "scaled"


def test_wrapper_of_a_builtin_function_round_trips_by_name():
    m = MeanMetricWrapper(metrics.mean_absolute_error, name="mae_fn", dtype="float64")
    config = m.get_config()
    # Keras 3.15.1's MeanMetricWrapper writes the function as a function dict
    assert config == {"name": "mae_fn", "dtype": "float64",
                      "fn": {"module": "builtins", "class_name": "function",
                             "config": "mean_absolute_error", "registered_name": "function"}}
    restored = metrics.deserialize(metrics.serialize(m))
    assert isinstance(restored, MeanMetricWrapper)
    assert restored._fn is metrics.mean_absolute_error and restored.dtype == "float64"
    restored.update_state([[1.0, 3.0]], [[2.0, 1.0]])
    assert float(restored.result()) == 1.5


def test_wrapper_of_a_registered_user_function_round_trips():
    @register_keras_serializable(package="MetricTests")
    def halved_error(y_true, y_pred, scale=0.5):
        return _abs_diff(y_true, y_pred, scale)

    m = MeanMetricWrapper(halved_error, scale=0.25)
    config = metrics.serialize(m)
    assert config["config"]["scale"] == 0.25
    restored = metrics.deserialize(config)
    restored.update_state([[4.0]], [[0.0]])
    assert float(restored.result()) == 1.0


def test_wrapper_of_an_unregistered_function_needs_custom_objects():
    def plain(y_true, y_pred):
        return _abs_diff(y_true, y_pred)

    config = metrics.serialize(MeanMetricWrapper(plain, name="plain"))
    with pytest.raises(UnknownObjectError, match=r"unknown metric function 'plain'"):
        metrics.deserialize(config)
    restored = metrics.deserialize(config, custom_objects={"plain": plain})
    assert restored._fn is plain


def test_wrapper_rejects_a_non_callable():
    with pytest.raises(TypeError, match=r"MeanMetricWrapper: argument 'fn' must be a "
                                        r"callable .*received 'mse'"):
        MeanMetricWrapper("mse")


def test_sum_and_mean_configs_round_trip():
    for m in (Sum(name="s", dtype="float64"), Mean(name="m")):
        config = metrics.serialize(m)
        assert config["module"] == "keras.metrics" and config["registered_name"] is None
        restored = metrics.deserialize(config)
        assert type(restored) is type(m) and restored.get_config() == m.get_config()
