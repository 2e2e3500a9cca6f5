"""resolve_accuracy: Keras 3's choice of accuracy for the string "accuracy" in compile."""
import pytest

from lamina.errors import ShapeError
from lamina.metrics import (BinaryAccuracy, CategoricalAccuracy, SparseCategoricalAccuracy,
                            resolve_accuracy)

CASES = [
    # (y_true shape, y_pred shape, loss, expected)           Keras 3 rule, step by step
    ((None, 1), (None, 1), None, BinaryAccuracy),            # 1. output last dim 1
    ((None,), (None, 1), "binary_crossentropy", BinaryAccuracy),
    ((32,), (32, 10), None, SparseCategoricalAccuracy),      # 2. labels of lower rank
    ((None, 1), (None, 10), None, SparseCategoricalAccuracy),   # 2. labels' last dim 1
    ((None, 10), (None, 10), None, CategoricalAccuracy),     # 3. otherwise
    ((None, 5, 3), (None, 5, 3), None, CategoricalAccuracy),
    ((None, 5), (None, 5, 3), None, SparseCategoricalAccuracy),
    # Keras 3 ignores the loss when the shapes decide: multi-label outputs with binary
    # crossentropy still get CategoricalAccuracy, as there.
    ((None, 4), (None, 4), "binary_crossentropy", CategoricalAccuracy),
    # The loss decides only when the shapes cannot.
    (None, (None, 10), "sparse_categorical_crossentropy", SparseCategoricalAccuracy),
    ((None, None), (None, None), "binary_crossentropy", BinaryAccuracy),
    (None, (None, 10), None, CategoricalAccuracy),
]


@pytest.mark.parametrize("true_shape, pred_shape, loss, expected", CASES)
def test_keras_rule(true_shape, pred_shape, loss, expected):
    metric = resolve_accuracy(true_shape, pred_shape, loss)
    assert type(metric) is expected and metric.name == "accuracy"


def test_loss_may_be_a_function_or_an_object():
    def sparse_categorical_crossentropy(y_true, y_pred):
        return y_pred

    class BinaryCrossentropy:
        def get_config(self):
            return {}

    assert isinstance(resolve_accuracy(None, (None, 3), sparse_categorical_crossentropy),
                      SparseCategoricalAccuracy)
    assert isinstance(resolve_accuracy(None, None, BinaryCrossentropy()), BinaryAccuracy)


def test_the_metric_keeps_the_name_the_user_wrote():
    assert resolve_accuracy((8,), (8, 3), name="acc").name == "acc"


def test_resolved_metric_measures_the_data():
    metric = resolve_accuracy((4,), (4, 3))
    metric.update_state([0, 2, 1, 1], [[0.8, 0.1, 0.1], [0.2, 0.2, 0.6], [0.3, 0.4, 0.3],
                                       [0.9, 0.05, 0.05]])
    assert float(metric.result()) == 0.75


def test_bad_shapes_are_rejected():
    with pytest.raises(ShapeError, match=r"resolve_accuracy: argument 'y_pred_shape' must "
                                         r"have rank >= 1"):
        resolve_accuracy((3,), ())
    with pytest.raises(TypeError, match=r"resolve_accuracy: argument 'y_true_shape' must be "
                                        r"a shape .*received 'abc'"):
        resolve_accuracy("abc", (3, 1))
