"""The Metric base class: state variables, reset, __call__, naming, tracking, errors."""
import numpy as np
import pytest

import lamina
from lamina import Tensor, Variable, ops
from lamina.errors import DTypeError
from lamina.metrics import Mean, Metric


class BinaryTruePositives(Metric):
    def __init__(self, name="binary_true_positives", dtype=None):
        super().__init__(name=name, dtype=dtype)
        self.true_positives = self.add_variable((), "zeros", name="true_positives")

    def update_state(self, y_true, y_pred, sample_weight=None):
        hits = ops.logical_and(ops.cast(ops.convert_to_tensor(y_true), "bool"),
                               ops.cast(ops.convert_to_tensor(y_pred), "bool"))
        self.true_positives.assign_add(ops.sum(ops.cast(hits, self.dtype)))

    def result(self):
        return self.true_positives.value


def test_subclass_accumulates_calls_and_resets(backend):
    m = BinaryTruePositives()
    assert float(m([0, 1, 1, 1], [1, 0, 1, 1])) == 2.0       # __call__ = update + result
    m.update_state([1, 1], [1, 1])
    assert float(m.result()) == 4.0
    m.reset_state()
    assert float(m.result()) == 0.0
    assert m.true_positives.backend is backend


def test_state_variables_are_non_trainable_and_named_under_the_metric():
    m = Mean(name="loss_mean", dtype="float64")
    assert [v.name for v in m.variables] == ["total", "count"]
    assert all(isinstance(v, Variable) and not v.trainable for v in m.variables)
    assert [v.path for v in m.variables] == ["loss_mean/total", "loss_mean/count"]
    assert all(v.dtype == "float64" and v.shape == () for v in m.variables)


def test_variables_are_updated_in_place():
    m = Mean()
    total = m.total
    buffer = total.data
    m.update_state([2.0, 4.0])
    assert m.total is total and total.data is buffer        # same Variable, same buffer
    assert float(total.numpy()) == 6.0


def test_result_is_a_new_tensor_not_the_state():
    m = BinaryTruePositives()
    m.update_state([1], [1])
    first = m.result()
    m.update_state([1], [1])
    assert isinstance(first, Tensor) and not isinstance(first, Variable)
    assert float(first) == 1.0 and float(m.result()) == 2.0


def test_metrics_held_as_attributes_contribute_their_variables():
    class Pair(Metric):
        def __init__(self):
            super().__init__(name="pair")
            self.a, self.b = Mean(name="a"), Mean(name="b")
            self.extra = self.add_variable((2,), "ones", name="extra")

    pair = Pair()
    assert [v.path for v in pair.variables] == ["pair/extra", "a/total", "a/count",
                                                "b/total", "b/count"]
    pair.a.update_state([3.0])
    pair.reset_state()
    np.testing.assert_array_equal(pair.extra.numpy(), [0.0, 0.0])
    assert float(pair.a.total.numpy()) == 0.0


def test_default_names_are_snake_case_and_unique():
    lamina.backend.clear_session()
    assert BinaryTruePositives(name=None).name == "binary_true_positives"
    assert BinaryTruePositives(name=None).name == "binary_true_positives_1"
    assert repr(Mean()) == "<Mean name=mean>"


def test_dtype_defaults_to_floatx_and_is_standardized():
    assert Mean().dtype == "float32"
    assert Mean(dtype="double").dtype == "float64"
    assert Mean().get_config() == {"name": "mean", "dtype": "float32"}


def test_base_class_methods_must_be_implemented():
    m = Metric(name="bare")
    with pytest.raises(NotImplementedError, match=r"Metric: .*update_state"):
        m.update_state([1.0])
    with pytest.raises(NotImplementedError, match=r"Metric: .*result\(\)"):
        m.result()


def test_forgetting_super_init_is_explained():
    class Broken(Metric):
        def __init__(self):
            self.v = self.add_variable((), "zeros")

    with pytest.raises(RuntimeError, match=r"Broken: call super\(\).__init__\(\)"):
        Broken()


def test_bad_name_and_dtype_are_rejected():
    with pytest.raises(TypeError, match=r"Mean: argument 'name' must be a string or None; "
                                        r"received 3"):
        Mean(name=3)
    with pytest.raises(DTypeError, match=r"unknown dtype 'float13'"):
        Mean(dtype="float13")


def test_add_variable_takes_a_tensor_as_its_initial_value():
    # Keras's iou_metrics_test.py::test_big_chunk starts MeanIoU's matrix this way.
    start = np.array([[18729664, 18728760], [18727297, 18726105]])
    m = lamina.metrics.MeanIoU(num_classes=2)
    m.total_cm = m.add_variable(name="total_confusion_matrix", shape=(2, 2),
                                initializer=ops.convert_to_tensor(start), dtype="int32")
    assert m.total_cm.dtype == "int32"
    m.update_state([0, 1, 1, 0], [0, 1, 0, 0])
    np.testing.assert_array_equal(m.total_cm.numpy(), start + [[2, 0], [1, 1]])
