"""AUC against hand-computed areas and a numpy reference (ROC and PR, every summation)."""
import math

import numpy as np
import pytest

from lamina import metrics
from lamina.errors import ShapeError
from lamina.metrics import AUC

EPS = 1e-7


def reference_thresholds(num_thresholds=None, inner=None):
    if inner is None:
        inner = [(i + 1) / (num_thresholds - 1) for i in range(num_thresholds - 2)]
    return np.array([-EPS] + sorted(inner) + [1 + EPS])


def reference_counts(batches, thresholds):
    """tp, fp, tn, fn per threshold, summed over (y_true, y_pred, weights) batches."""
    counts = np.zeros((4, len(thresholds)))
    for y_true, y_pred, weights in batches:
        y_pred = np.asarray(y_pred, dtype="float64")
        w = np.ones(y_pred.shape) if weights is None else np.asarray(weights, "float64")
        w = np.broadcast_to(w.reshape(w.shape + (1,) * (y_pred.ndim - w.ndim)), y_pred.shape)
        y_true, y_pred, w = np.ravel(y_true) > 0, y_pred.ravel(), w.ravel()
        above = y_pred[None, :] > thresholds[:, None]
        counts += [(above & y_true) @ w, (above & ~y_true) @ w,
                   (~above & ~y_true) @ w, (~above & y_true) @ w]
    return counts


def _rate(a, b):
    return np.divide(a, a + b, out=np.zeros_like(a), where=(a + b) > 0)


def reference_auc(counts, curve, summation):
    tp, fp, tn, fn = counts
    if curve == "PR" and summation == "interpolation":
        return reference_pr_interpolation(counts)
    recall = _rate(tp, fn)
    x, y = (_rate(fp, tn), recall) if curve == "ROC" else (recall, _rate(tp, fp))
    heights = {"interpolation": (y[:-1] + y[1:]) / 2, "minoring": np.minimum(y[:-1], y[1:]),
               "majoring": np.maximum(y[:-1], y[1:])}[summation]
    return float(np.sum((x[:-1] - x[1:]) * heights))


def reference_pr_interpolation(counts, steps=20000):
    """Integrate precision d(recall) numerically, tp and tp + fp linear in each slice."""
    tp, fp, _, fn = counts
    p = tp + fp
    s = (np.arange(steps) + 0.5) / steps                    # midpoint rule on (0, 1)
    area = 0.0
    for i in range(len(tp) - 1):
        dtp, dp = tp[i] - tp[i + 1], p[i] - p[i + 1]
        if dtp == 0:
            continue
        precision = (tp[i + 1] + s * dtp) / (p[i + 1] + s * dp)
        area += precision.mean() * dtp / (tp[i + 1] + fn[i + 1])
    return area


def test_roc_with_separated_predictions_is_the_exact_auc(backend):
    # positives .83 .67 .33, negatives .12 .41 .05: 8 of 9 pairs ordered correctly
    m = AUC()
    m.update_state([0, 1, 0, 1, 1, 0], [0.12, 0.83, 0.41, 0.67, 0.33, 0.05])
    assert m.result().backend is backend
    assert float(m.result()) == pytest.approx(8 / 9, rel=1e-6)


def test_three_thresholds_by_hand():
    # thresholds -eps, 0.5, 1+eps: tp [2, 1, 0], fp [2, 0, 0], fn [0, 1, 2], tn [0, 2, 2]
    y_true, y_pred = [0, 0, 1, 1], [0, 0.5, 0.3, 0.9]
    roc = AUC(num_thresholds=3)
    roc.update_state(y_true, y_pred)
    assert float(roc.result()) == pytest.approx(0.75)       # (1 + 0.5) / 2 * (1 - 0)
    pr = AUC(num_thresholds=3, curve="PR")
    pr.update_state(y_true, y_pred)
    # slice 1: slope 1/3, intercept 2/3, P 4 -> 1; slice 2: slope 1, P 1 -> 0
    expected = (1 / 3) * (1 + (2 / 3) * math.log(4)) / 2 + 1 * 1 / 2
    assert float(pr.result()) == pytest.approx(expected, rel=1e-6)
    roc.reset_state()
    roc.update_state(y_true, y_pred, sample_weight=[1, 0, 0, 1])
    assert float(roc.result()) == pytest.approx(1.0)


def _batches(seed):
    rng = np.random.default_rng(seed)
    batches = []
    for n, weighted in ((6, False), (9, True), (5, True)):
        y_true = rng.integers(0, 2, size=n)
        y_pred = rng.uniform(0, 1, size=n)
        weights = rng.uniform(0.2, 2.0, size=n) if weighted else None
        batches.append((y_true, y_pred, weights))
    return batches


@pytest.mark.parametrize("curve", ["ROC", "PR"])
@pytest.mark.parametrize("summation", ["interpolation", "minoring", "majoring"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_matches_the_numpy_reference_over_weighted_batches(backend, curve, summation, dtype):
    batches = _batches(7)
    m = AUC(num_thresholds=7, curve=curve, summation_method=summation, dtype=dtype)
    for y_true, y_pred, weights in batches:
        m.update_state(y_true, y_pred.astype(dtype), sample_weight=weights)
    expected = reference_auc(reference_counts(batches, reference_thresholds(7)), curve,
                             summation)
    assert m.result().dtype == dtype
    assert float(m.result()) == pytest.approx(expected, rel=1e-5)


@pytest.mark.parametrize("curve", ["ROC", "PR"])
def test_explicit_thresholds(curve):
    batches = _batches(11)
    m = AUC(thresholds=[0.8, 0.3, 0.6], curve=curve)          # sorted, end points added
    assert m.num_thresholds == 5
    assert m.thresholds == pytest.approx([-EPS, 0.3, 0.6, 0.8, 1 + EPS])
    for y_true, y_pred, weights in batches:
        m.update_state(y_true, y_pred, sample_weight=weights)
    expected = reference_auc(reference_counts(batches, reference_thresholds(
        inner=[0.3, 0.6, 0.8])), curve, "interpolation")
    assert float(m.result()) == pytest.approx(expected, rel=1e-5)


def test_multi_label_averages_the_label_areas():
    rng = np.random.default_rng(3)
    y_true = rng.integers(0, 2, size=(12, 2))
    y_pred = rng.uniform(size=(12, 2))
    areas = [reference_auc(reference_counts([(y_true[:, j], y_pred[:, j], None)],
                                            reference_thresholds(11)), "ROC", "interpolation")
             for j in range(2)]
    m = AUC(num_thresholds=11, multi_label=True)
    assert m.variables == []                               # built on the first batch
    m.update_state(y_true[:5], y_pred[:5])
    m.update_state(y_true[5:], y_pred[5:])
    assert m.true_positives.shape == (11, 2)
    assert float(m.result()) == pytest.approx(np.mean(areas), rel=1e-5)
    weighted = AUC(num_thresholds=11, multi_label=True, num_labels=2, label_weights=[1, 3])
    weighted.update_state(y_true, y_pred)
    assert float(weighted.result()) == pytest.approx((areas[0] + 3 * areas[1]) / 4, rel=1e-5)


def test_label_weights_weigh_columns_of_flattened_data():
    y_true, y_pred = np.array([[1, 0], [0, 1]]), np.array([[0.9, 0.2], [0.4, 0.3]])
    m = AUC(num_thresholds=11, label_weights=[1.0, 2.0])
    m.update_state(y_true, y_pred)
    counts = reference_counts([(y_true, y_pred, [[1.0, 2.0]])], reference_thresholds(11))
    assert float(m.result()) == pytest.approx(
        reference_auc(counts, "ROC", "interpolation"), rel=1e-6)


def test_from_logits_applies_a_sigmoid():
    probs = np.array([0.12, 0.83, 0.41, 0.67, 0.33, 0.05])
    logits = np.log(probs / (1 - probs))
    m = AUC(from_logits=True)
    m.update_state([0, 1, 0, 1, 1, 0], logits)
    assert float(m.result()) == pytest.approx(8 / 9, rel=1e-6)


@pytest.mark.parametrize("metric", [
    AUC(name="a"), AUC(num_thresholds=50, curve="PR", summation_method="minoring"),
    AUC(thresholds=[0.2, 0.7], multi_label=True, num_labels=3, label_weights=[1, 2, 3]),
    AUC(from_logits=True, dtype="float64")], ids=str)
def test_configs_round_trip(metric):
    config = metrics.serialize(metric)
    assert config["class_name"] == "AUC" and config["module"] == "keras.metrics"
    restored = metrics.deserialize(config)
    assert restored.get_config() == metric.get_config()
    assert restored.thresholds == metric.thresholds


def test_config_is_keras_shaped():
    config = AUC(name="auc_cfg").get_config()
    assert config == {"name": "auc_cfg", "dtype": "float32", "num_thresholds": 200,
                      "curve": "ROC", "summation_method": "interpolation",
                      "multi_label": False, "num_labels": None, "label_weights": None,
                      "from_logits": False}
    assert AUC(thresholds=[0.5]).get_config()["thresholds"] == [0.5]
    assert AUC(curve="pr", summation_method="Majoring").get_config()["curve"] == "PR"


def test_invalid_arguments_are_rejected():
    # Keras's phrases lead (its confusion_metrics_test.py matches them).
    with pytest.raises(ValueError, match=r"AUC: Argument `num_thresholds` must be an integer "
                                         r"> 1; received num_thresholds=1"):
        AUC(num_thresholds=1)
    with pytest.raises(ValueError, match=r"AUC: Invalid AUC curve value: \"PRG\". Argument "
                                         r"'curve' must be one of 'ROC', 'PR' or 'PRGAIN'"):
        AUC(curve="PRG")
    with pytest.raises(ValueError, match=r"AUC: Invalid AUC summation method value: "
                                         r"\"trapezoid\". Argument 'summation_method' must be "
                                         r"one of 'interpolation', 'majoring' or 'minoring'"):
        AUC(summation_method="trapezoid")
    with pytest.raises(ValueError, match=r"'num_labels' is used only with multi_label=True"):
        AUC(num_labels=3)
    with pytest.raises(ValueError, match=r"AUC: Threshold values must be in \[0, 1\]. "
                                         r"Received: \[2.0\]"):
        AUC(thresholds=[0.5, 2.0])
    with pytest.raises(ValueError, match=r"with multi_label=True y_pred must have rank 2 "
                                         r"\(batch, labels\); received shape \(2, 2, 2\)"):
        AUC(multi_label=True).update_state(np.ones((2, 2, 2)), np.ones((2, 2, 2)) / 2)
    with pytest.raises(ShapeError, match=r"argument 'label_weights' of shape \(3,\) does not "
                                         r"broadcast to y_pred's shape \(2, 2\)"):
        AUC(label_weights=[1, 2, 3]).update_state([[1, 0], [0, 1]], [[0.2, 0.1], [0.3, 0.6]])


# Keras 3.15.1's AUC(curve="PRGAIN") on these labels and scores, unweighted and weighted,
# by (summation_method, num_thresholds).
PRGAIN_PRED = np.array([0.1, 0.4, 0.35, 0.8, 0.65, 0.2, 0.9, 0.55], "float32")
PRGAIN_TRUE = np.array([0, 0, 1, 1, 1, 0, 1, 0], "float32")
PRGAIN_WEIGHTS = np.array([1, 2, 3, 4, 0.5, 1.5, 2.5, 1], "float32")
KERAS_PRGAIN = {
    ("interpolation", 3): (0.6666666269302368, 0.48051944375038147),
    ("interpolation", 10): (0.8611111044883728, 0.6862877011299133),
    ("interpolation", 200): (0.805555522441864, 0.48389267921447754),
    ("majoring", 3): (0.8888888359069824, 0.7976049780845642),
    ("majoring", 200): (0.8333333134651184, 0.5749704837799072),
    ("minoring", 3): (0.4444443881511688, 0.16343392431735992),
    ("minoring", 10): (0.8333333134651184, 0.5749704837799072),
    ("minoring", 200): (0.7777777314186096, 0.3928149342536926),
}


@pytest.mark.parametrize("summation, num_thresholds", sorted(KERAS_PRGAIN))
def test_prgain_matches_keras(summation, num_thresholds):
    unweighted, weighted = KERAS_PRGAIN[summation, num_thresholds]
    m = AUC(num_thresholds=num_thresholds, curve="PRGAIN", summation_method=summation)
    m.update_state(PRGAIN_TRUE, PRGAIN_PRED)
    np.testing.assert_allclose(float(m.result()), unweighted, rtol=1e-5)
    m = AUC(num_thresholds=num_thresholds, curve="prgain", summation_method=summation)
    m.update_state(PRGAIN_TRUE, PRGAIN_PRED, sample_weight=PRGAIN_WEIGHTS)
    np.testing.assert_allclose(float(m.result()), weighted, rtol=1e-5)
    assert m.get_config()["curve"] == "PRGAIN"


def test_prgain_multi_label_matches_keras():
    y_true = np.array([[0, 1], [1, 0], [1, 1], [0, 0], [1, 0]], "float32")
    y_pred = np.array([[0.2, 0.7], [0.6, 0.3], [0.9, 0.4], [0.3, 0.1], [0.45, 0.8]], "float32")
    m = AUC(num_thresholds=5, curve="PRGAIN", multi_label=True, label_weights=[0.3, 0.7])
    m.update_state(y_true, y_pred)
    np.testing.assert_allclose(float(m.result()), 0.5548610687255859, rtol=1e-5)
