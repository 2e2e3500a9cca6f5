"""TruePositives ... FalseNegatives, Precision and Recall: thresholds, top_k, class_id."""
import numpy as np
import pytest

from lamina import metrics
from lamina.errors import ShapeError
from lamina.metrics import (FalseNegatives, FalsePositives, Precision, Recall, TrueNegatives,
                            TruePositives)

COUNTS = {"tp": TruePositives, "fp": FalsePositives, "tn": TrueNegatives,
          "fn": FalseNegatives}


def feed(metric):
    """Three batches: hand-counted totals are tp 2, fp 3 (1 + weight 2), tn 1, fn 4."""
    metric.update_state([0, 1, 1, 1], [1, 0, 1, 1])                          # fp fn tp tp
    metric.update_state([[0], [1]], [[0.7], [0.2]], sample_weight=[2.0, 3.0])  # fp x2, fn x3
    metric.update_state([0], [0.1])                                         # tn
    return metric


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_counts_precision_and_recall_over_batches(backend, dtype):
    expected = {"tp": 2.0, "fp": 3.0, "tn": 1.0, "fn": 4.0}
    for kind, cls in COUNTS.items():
        result = feed(cls(dtype=dtype)).result()
        assert result.shape == () and result.dtype == dtype and result.backend is backend
        assert float(result) == expected[kind], kind
    assert float(feed(Precision(dtype=dtype)).result()) == pytest.approx(2 / 5)
    assert float(feed(Recall(dtype=dtype)).result()) == pytest.approx(2 / 6)


def test_reset_and_empty_state_give_zero():
    m = feed(Precision())
    m.reset_state()
    assert float(m.result()) == 0.0                       # 0 / 0 -> 0
    np.testing.assert_array_equal(m.true_positives.numpy(), [0.0])


Y_TRUE = [0, 1, 1, 1, 0]
Y_PRED = [0.1, 0.9, 0.3, 0.6, 0.85]


def test_threshold_lists_give_one_value_per_threshold(backend):
    thresholds = [0.15, 0.5, 0.8]
    counts = {kind: cls(thresholds=thresholds) for kind, cls in COUNTS.items()}
    for m in counts.values():
        m.update_state(Y_TRUE, Y_PRED)
    np.testing.assert_array_equal(counts["tp"].result().numpy(), [3, 2, 1])
    np.testing.assert_array_equal(counts["fp"].result().numpy(), [1, 1, 1])
    np.testing.assert_array_equal(counts["tn"].result().numpy(), [1, 1, 1])
    np.testing.assert_array_equal(counts["fn"].result().numpy(), [0, 1, 2])
    p, r = Precision(thresholds=thresholds), Recall(thresholds=thresholds)
    p.update_state(Y_TRUE, Y_PRED)
    r.update_state(Y_TRUE, Y_PRED)
    np.testing.assert_allclose(p.result().numpy(), [3 / 4, 2 / 3, 1 / 2], rtol=1e-6)
    np.testing.assert_allclose(r.result().numpy(), [1, 2 / 3, 1 / 3], rtol=1e-6)


def test_evenly_spaced_thresholds_count_like_the_others():
    # [0, 0.5, 1] takes the bucketed path; a prediction equal to a threshold is negative.
    p, r = Precision(thresholds=[0.0, 0.5, 1.0]), Recall(thresholds=[0.0, 0.5, 1.0])
    for m in (p, r):
        m.update_state([0, 0, 1, 1], [0.0, 0.5, 0.3, 0.9])
    np.testing.assert_allclose(p.result().numpy(), [2 / 3, 1, 0], rtol=1e-6)
    np.testing.assert_allclose(r.result().numpy(), [1, 0.5, 0], rtol=1e-6)


MULTI_TRUE = [[0, 1, 1, 0], [1, 0, 0, 1]]
MULTI_PRED = [[0.1, 0.4, 0.3, 0.2], [0.5, 0.1, 0.45, 0.2]]


def test_top_k_scores_only_the_k_largest_predictions(backend):
    # top 2: row 0 -> classes 1, 2 (both labelled); row 1 -> classes 0 (labelled), 2 (not)
    p, r = Precision(top_k=2), Recall(top_k=2)
    for m in (p, r):
        m.update_state(MULTI_TRUE, MULTI_PRED)
    assert float(p.result()) == 0.75 and float(r.result()) == 0.75
    weighted = Precision(top_k=2)
    weighted.update_state(MULTI_TRUE, MULTI_PRED, sample_weight=[1.0, 3.0])
    assert float(weighted.result()) == pytest.approx(5 / 8)


def test_top_k_ties_go_to_the_lower_index():
    m = Precision(top_k=2)
    m.update_state([0, 0, 1, 1], [1, 1, 1, 1])        # keeps indices 0 and 1
    assert float(m.result()) == 0.0
    m = Precision(top_k=4)
    m.update_state([0, 0, 1, 1], [1, 1, 1, 1])
    assert float(m.result()) == 0.5


def test_top_k_with_thresholds():
    m = Recall(top_k=2, thresholds=[0.35, 0.42])
    m.update_state(MULTI_TRUE, MULTI_PRED)          # kept and labelled: .4, .3, .5
    np.testing.assert_allclose(m.result().numpy(), [2 / 4, 1 / 4])


CLASS_TRUE = [[0, 0, 1], [0, 1, 0], [0, 0, 1]]
CLASS_PRED = [[0.1, 0.2, 0.7], [0.2, 0.2, 0.6], [0.5, 0.4, 0.1]]


def test_class_id_scores_one_column(backend):
    p, r = Precision(class_id=2), Recall(class_id=2)
    for m in (p, r):
        m.update_state(CLASS_TRUE, CLASS_PRED)     # column 2: .7 (1), .6 (0), .1 (1)
    assert float(p.result()) == 0.5 and float(r.result()) == 0.5
    both = Precision(top_k=1, class_id=2)          # row 2's top class is 0
    both.update_state(CLASS_TRUE, CLASS_PRED)
    assert float(both.result()) == 0.5


@pytest.mark.parametrize("metric", [
    TruePositives(), FalseNegatives(thresholds=[0.2, 0.7], name="fn2", dtype="float64"),
    Precision(thresholds=0.3, top_k=2, class_id=1), Recall(thresholds=[0.1, 0.9])],
    ids=lambda m: type(m).__name__)
def test_configs_round_trip(metric):
    restored = metrics.deserialize(metrics.serialize(metric))
    assert type(restored) is type(metric) and restored.get_config() == metric.get_config()
    assert restored.thresholds == metric.thresholds


def test_config_keeps_the_thresholds_as_given():
    config = Precision(name="p", thresholds=0.3).get_config()
    assert config == {"name": "p", "dtype": "float32", "thresholds": 0.3, "top_k": None,
                      "class_id": None}
    from_array = Recall(thresholds=np.array([0.2, 0.8])).get_config()["thresholds"]
    assert from_array == [0.2, 0.8] and type(from_array) is list      # JSON-friendly


def test_invalid_arguments_are_rejected():
    # Keras's phrase (the values out of range) leads, then the whole argument.
    with pytest.raises(ValueError, match=r"Precision: Threshold values must be in \[0, 1\]. "
                                         r"Received: \[1.5\] \(argument 'thresholds' must be "
                                         r"a float or a non-empty list of floats in \[0, 1\]; "
                                         r"received thresholds=\[0.5, 1.5\]\)"):
        Precision(thresholds=[0.5, 1.5])
    with pytest.raises(ValueError, match=r"TruePositives: Threshold values must be in "
                                         r"\[0, 1\]. Received: \[-1, 2\] .*"
                                         r"thresholds=\[-1, 0.5, 2\]"):
        TruePositives(thresholds=[-1, 0.5, 2])
    with pytest.raises(ValueError, match=r"TruePositives: .*argument 'thresholds'"):
        TruePositives(thresholds="high")
    with pytest.raises(ValueError, match=r"Recall: Threshold values must be in \[0, 1\]. "
                                         r"Received: \[\] .*received thresholds=\[\]"):
        Recall(thresholds=[])
    with pytest.raises(ValueError, match=r"Recall: argument 'top_k' must be a positive "
                                         r"integer; received 0"):
        Recall(top_k=0)
    with pytest.raises(ValueError, match=r"Precision: argument 'class_id' must be a "
                                         r"non-negative integer or None; received -1"):
        Precision(class_id=-1)


def test_bad_inputs_are_reported_with_the_metric_name():
    # Keras's phrase, then the class the shape must have room for.
    with pytest.raises(ValueError, match=r"recall: When class_id is provided, y_pred must be "
                                         r"a 2D array with shape \(num_samples, num_classes\), "
                                         r"found shape: \(3, 3\) \(class_id=3 needs "
                                         r"num_classes > 3\)"):
        Recall(class_id=3, name="recall").update_state(CLASS_TRUE, CLASS_PRED)
    with pytest.raises(ValueError, match=r"found shape: \(2,\) \(class_id=0 needs"):
        Precision(class_id=0).update_state([1, 0], [0.3, 0.8])
    with pytest.raises(ShapeError, match=r"y_true and y_pred must have the same shape .*"
                                         r"received \(3,\) and \(2,\)"):
        Precision().update_state([1, 0, 1], [0.3, 0.8])
    with pytest.raises(ShapeError, match=r"argument 'sample_weight' of shape \(3,\) does "
                                         r"not broadcast to y_pred's shape \(2,\)"):
        Precision().update_state([1, 0], [0.3, 0.8], sample_weight=[1.0, 2.0, 3.0])
