"""Accuracy metrics: hand-computed values over several batches, label shapes, errors."""
import numpy as np
import pytest

from lamina import metrics
from lamina.errors import ShapeError
from lamina.metrics import (Accuracy, BinaryAccuracy, CategoricalAccuracy,
                            SparseCategoricalAccuracy, SparseTopKCategoricalAccuracy,
                            TopKCategoricalAccuracy)


def approx(value):
    return pytest.approx(value, rel=1e-6)


def test_accuracy_counts_exact_matches(backend):
    m = Accuracy()
    m.update_state([[1], [2], [3], [4]], [[0], [2], [3], [4]])        # 3 of 4
    assert float(m.result()) == 0.75
    m.update_state([[5]], [[5]], sample_weight=[4.0])                # + 4 of 4
    assert float(m.result()) == approx(7 / 8)
    m.reset_state()
    m.update_state([[1], [2], [3], [4]], [[0], [2], [3], [4]], sample_weight=[1, 1, 0, 0])
    assert float(m.result()) == 0.5


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_binary_accuracy_over_batches(backend, dtype):
    m = BinaryAccuracy(dtype=dtype)
    y_pred = np.array([[0.98], [1.0], [0.0], [0.6]], dtype=dtype)
    m.update_state([[1], [1], [0], [0]], y_pred)                      # hits 1 1 1 0
    assert float(m.result()) == 0.75
    m.update_state([1, 0], [[0.2], [0.4]], sample_weight=[2.0, 1.0])  # (batch,) labels
    assert float(m.result()) == approx((3 + 1) / (4 + 3))
    assert m.result().dtype == dtype


def test_binary_accuracy_threshold():
    y_true, y_pred = [[1], [1], [0], [0]], [[0.98], [0.5], [0.1], [0.2]]
    low, high = BinaryAccuracy(threshold=0.3), BinaryAccuracy(threshold=0.9)
    low.update_state(y_true, y_pred)
    high.update_state(y_true, y_pred)
    assert float(low.result()) == 1.0 and float(high.result()) == 0.75
    assert high.get_config() == {"name": "binary_accuracy", "dtype": "float32",
                                 "threshold": 0.9}


def test_categorical_accuracy_over_batches(backend):
    m = CategoricalAccuracy()
    m.update_state([[0, 0, 1], [0, 1, 0]], [[0.1, 0.9, 0.8], [0.05, 0.95, 0]])   # 0, 1
    assert float(m.result()) == 0.5
    m.update_state([[1, 0, 0]], [[0.5, 0.2, 0.3]], sample_weight=[3.0])          # 1 x 3
    assert float(m.result()) == approx(4 / 5)
    m.reset_state()
    m.update_state([[0, 0, 1], [0, 1, 0]], [[0.1, 0.9, 0.8], [0.05, 0.95, 0]],
                   sample_weight=[0.7, 0.3])
    assert float(m.result()) == approx(0.3)


def test_sparse_categorical_accuracy_takes_both_label_shapes(backend):
    m = SparseCategoricalAccuracy()
    y_pred = [[0.1, 0.6, 0.3], [0.05, 0.95, 0.0]]
    m.update_state([2, 1], y_pred)                                    # (batch,): 0, 1
    assert float(m.result()) == 0.5
    m.update_state([[0], [2]], [[0.6, 0.3, 0.1], [0.2, 0.7, 0.1]],    # (batch, 1): 1, 0
                   sample_weight=[0.5, 2.0])
    assert float(m.result()) == approx(1.5 / 4.5)


def test_sparse_categorical_accuracy_float_labels_and_time_axis():
    m = SparseCategoricalAccuracy(dtype="float64")
    m.update_state(np.array([2.0, 1.0]), np.array([[0.1, 0.2, 0.7], [0.9, 0.05, 0.05]]))
    assert float(m.result()) == 0.5
    m = SparseCategoricalAccuracy()
    y_pred = [[[0.8, 0.1, 0.1], [0.1, 0.1, 0.8]], [[0.1, 0.8, 0.1], [0.8, 0.1, 0.1]]]
    m.update_state([[0, 2], [0, 0]], y_pred)          # sample means 1.0 and 0.5
    assert float(m.result()) == 0.75


def test_accuracy_functions_return_per_sample_values():
    np.testing.assert_array_equal(
        metrics.sparse_categorical_accuracy([[2], [1]], [[0.1, 0.6, 0.3], [0, 1, 0]]).numpy(),
        [0.0, 1.0])
    # binary_accuracy compares element by element in Keras 3.15.1 (its metric averages)
    np.testing.assert_array_equal(
        metrics.binary_accuracy([[1, 0], [0, 0]], [[0.7, 0.2], [0.9, 0.8]]).numpy(),
        [[1.0, 1.0], [0.0, 0.0]])
    np.testing.assert_array_equal(
        metrics.categorical_accuracy([[0, 1], [1, 0]], [[0.3, 0.7], [0.4, 0.6]]).numpy(),
        [1.0, 0.0])


TOP_PRED = [[0.1, 0.5, 0.4], [0.3, 0.3, 0.4], [0.2, 0.5, 0.3]]


def test_top_k_categorical_accuracy(backend):
    one_hot = [[0, 0, 1], [0, 1, 0], [1, 0, 0]]
    m = TopKCategoricalAccuracy(k=2)
    m.update_state(one_hot, TOP_PRED)                # ranks 2, 2 (tie counts in), 3
    assert float(m.result()) == approx(2 / 3)
    m.update_state([[0, 1, 0]], [[0.1, 0.2, 0.7]], sample_weight=[2.0])   # rank 2: hit
    assert float(m.result()) == approx(4 / 5)
    m1 = TopKCategoricalAccuracy(k=1)
    m1.update_state(one_hot, TOP_PRED)
    assert float(m1.result()) == 0.0
    m5 = TopKCategoricalAccuracy()                   # default k=5 >= 3 classes: all hit
    m5.update_state(one_hot, TOP_PRED)
    assert float(m5.result()) == 1.0 and m5.k == 5


def test_top_k_ties_with_the_kth_score_count_as_hits():
    m = TopKCategoricalAccuracy(k=1)
    m.update_state([[0, 1, 0]], [[0.4, 0.4, 0.2]])
    assert float(m.result()) == 1.0


def test_sparse_top_k_categorical_accuracy(backend):
    m = SparseTopKCategoricalAccuracy(k=2)
    m.update_state([2, 1, 0], TOP_PRED)
    assert float(m.result()) == approx(2 / 3)
    m.update_state([[1]], [[0.1, 0.2, 0.7]], sample_weight=[2.0])
    assert float(m.result()) == approx(4 / 5)


def test_sparse_top_k_from_sorted_ids():
    m = SparseTopKCategoricalAccuracy(k=2, from_sorted_ids=True)
    m.update_state([0, 3], [[1, 0, 3], [1, 2, 3]])   # 0 in [1, 0]; 3 not in [1, 2]
    assert float(m.result()) == 0.5
    assert m.get_config()["from_sorted_ids"] is True
    assert "from_sorted_ids" not in SparseTopKCategoricalAccuracy().get_config()


@pytest.mark.parametrize("metric", [
    Accuracy(name="a", dtype="float64"), BinaryAccuracy(threshold=0.25),
    CategoricalAccuracy(), SparseCategoricalAccuracy(name="sca"),
    TopKCategoricalAccuracy(k=3), SparseTopKCategoricalAccuracy(k=2, from_sorted_ids=True)],
    ids=lambda m: type(m).__name__)
def test_configs_round_trip(metric):
    config = metrics.serialize(metric)
    assert config["class_name"] == type(metric).__name__ and "fn" not in config["config"]
    restored = metrics.deserialize(config)
    assert type(restored) is type(metric) and restored.get_config() == metric.get_config()


def test_invalid_arguments_are_rejected():
    with pytest.raises(ValueError, match=r"BinaryAccuracy: argument 'threshold' must be in "
                                         r"the open interval \(0, 1\); received "
                                         r"threshold=1.5"):
        BinaryAccuracy(threshold=1.5)
    with pytest.raises(ValueError, match=r"TopKCategoricalAccuracy: argument 'k' must be a "
                                         r"positive integer; received 0"):
        TopKCategoricalAccuracy(k=0)
    with pytest.raises(ValueError, match=r"SparseTopKCategoricalAccuracy: argument 'k'"):
        SparseTopKCategoricalAccuracy(k=2.5)


def test_mismatched_shapes_are_shape_errors():
    with pytest.raises(ShapeError, match=r"sparse_categorical_accuracy: expected integer "
                                         r"labels .*received y_true of shape \(3,\) and "
                                         r"y_pred of shape \(2, 3\)"):
        SparseCategoricalAccuracy().update_state([0, 1, 2], [[0.1, 0.2, 0.7]] * 2)
    with pytest.raises(ShapeError, match=r"categorical_accuracy: expected one-hot y_true "
                                         r"of the shape of y_pred; received y_true of shape "
                                         r"\(2, 3\) and y_pred of shape \(3, 3\)"):
        CategoricalAccuracy().update_state([[0, 0, 1]] * 2, [[0.1, 0.2, 0.7]] * 3)
    with pytest.raises(ShapeError, match=r"top_k_categorical_accuracy: expected one-hot"):
        TopKCategoricalAccuracy().update_state([[0, 1]], [[0.1, 0.2, 0.7]])
    with pytest.raises(ShapeError, match=r"sparse_top_k_categorical_accuracy: expected "
                                         r"integer labels y_true of shape \(2,\)"):
        SparseTopKCategoricalAccuracy().update_state([0, 1, 2], [[0.1, 0.2, 0.7]] * 2)
    with pytest.raises(ShapeError, match=r"with from_sorted_ids=True, y_pred must hold at "
                                         r"least k=5 ids"):
        SparseTopKCategoricalAccuracy(from_sorted_ids=True).update_state([1], [[1, 2, 3]])


def test_sparse_labels_broadcast_against_predicted_classes_as_in_keras():
    # Keras 3.15.1: labels (2, 1) against predictions (1, 2, 3) compare as (2, 2) hits
    # (accuracy_metrics_test.py::test_reshape_matches); these give 1.0 and 0.5 there.
    same = np.array([[[0.9, 0.1, 0.0], [0.8, 0.15, 0.05]]], "float32")
    m = SparseCategoricalAccuracy()
    m.update_state(np.array([[0], [0]]), same)
    assert float(m.result()) == 1.0
    mixed = np.array([[[0.9, 0.1, 0.0], [0.1, 0.15, 0.75]]], "float32")
    m = SparseCategoricalAccuracy()
    m.update_state(np.array([[0], [2]]), mixed)
    assert float(m.result()) == 0.5
    hits = metrics.sparse_categorical_accuracy(np.array([[0], [2]]), mixed)
    np.testing.assert_array_equal(hits.numpy(), [[1.0, 0.0], [0.0, 1.0]])
