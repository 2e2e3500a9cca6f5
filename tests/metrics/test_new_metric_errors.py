"""Argument and shape errors of the metrics added for Keras 3 parity: each names the metric,
the argument, what was expected and what was received."""
import numpy as np
import pytest

from lamina import metrics
from lamina.errors import ShapeError


@pytest.mark.parametrize("kwargs,message", [
    ({"class_aggregation": "median"}, r"R2Score: argument 'class_aggregation' must be one of "
                                      r"\(None, 'uniform_average', 'variance_weighted_average'"
                                      r"\); received 'median'"),
    ({"num_regressors": -1}, r"R2Score: argument 'num_regressors' must be an integer >= 0; "
                             r"received -1"),
])
def test_r2_score_arguments(kwargs, message):
    with pytest.raises(ValueError, match=message):
        metrics.R2Score(**kwargs)


@pytest.mark.parametrize("cls", [metrics.R2Score, metrics.F1Score])
def test_two_dimensional_inputs_are_required(cls):
    with pytest.raises(ShapeError, match=rf"{cls.__name__}: expected 2-D y_true and y_pred "
                       r"of shape \(batch_size, .*received y_true.shape=\(3,\) and "
                       r"y_pred.shape=\(3,\)"):
        cls().update_state([1.0, 0.0, 1.0], [0.5, 0.2, 0.9])


@pytest.mark.parametrize("kwargs,message", [
    ({"average": "samples"}, r"FBetaScore: argument 'average' must be one of \(None, 'micro', "
                             r"'macro', 'weighted'\); received 'samples'"),
    ({"beta": 2}, r"FBetaScore: argument 'beta' must be a Python float > 0; received 2 of "
                  r"type int"),
    ({"beta": -1.0}, r"FBetaScore: argument 'beta' must be a Python float > 0; received -1.0"),
    ({"threshold": 0.0}, r"FBetaScore: argument 'threshold' must be a Python float with "
                         r"0 < threshold <= 1, or None; received 0.0"),
    ({"threshold": 1}, r"FBetaScore: argument 'threshold' must be a Python float"),
])
def test_fbeta_arguments(kwargs, message):
    with pytest.raises(ValueError, match=message):
        metrics.FBetaScore(**kwargs)


@pytest.mark.parametrize("cls,arg", [
    (metrics.PrecisionAtRecall, "recall"), (metrics.RecallAtPrecision, "precision"),
    (metrics.SensitivityAtSpecificity, "specificity"),
    (metrics.SpecificityAtSensitivity, "sensitivity")])
def test_rate_targets_and_threshold_counts(cls, arg):
    with pytest.raises(ValueError, match=rf"{cls.__name__}: argument '{arg}' must be a number "
                       rf"in \[0, 1\]; received {arg}=1.5"):
        cls(1.5)
    with pytest.raises(ValueError, match=rf"{cls.__name__}: argument 'num_thresholds' must be "
                       r"an integer > 0; received num_thresholds=0"):
        cls(0.5, num_thresholds=0)


def test_iou_arguments():
    with pytest.raises(ValueError, match=r"MeanIoU: argument 'num_classes' must be a positive "
                       r"integer; received 0"):
        metrics.MeanIoU(0)
    with pytest.raises(ValueError, match=r"IoU: argument 'target_class_ids' must be a "
                       r"non-empty list of class ids in \[0, 3\); received \[0, 3\]"):
        metrics.IoU(3, [0, 3])


def test_iou_warns_that_float_weights_are_truncated():
    m = metrics.MeanIoU(2)
    with pytest.warns(UserWarning, match=r"sample_weight is float but the metric's dtype is "
                      r"int32, so the weights are truncated to integers"):
        m.update_state([0, 1], [0, 1], sample_weight=np.array([0.5, 1.5]))
    # 0.5 -> 0 and 1.5 -> 1: only class 1 was seen, once.
    np.testing.assert_array_equal(m.total_cm.numpy(), [[0, 0], [0, 1]])
    m64 = metrics.MeanIoU(2, dtype="float32")
    m64.update_state([0, 1], [0, 1], sample_weight=np.array([0.5, 1.5]))
    np.testing.assert_allclose(m64.total_cm.numpy(), [[0.5, 0], [0, 1.5]])


def test_r2_adjusted_with_too_few_samples_warns_and_falls_back():
    plain, adjusted = metrics.R2Score(), metrics.R2Score(num_regressors=3)
    y_true, y_pred = [[1.0], [2.0], [4.0]], [[1.5], [2.0], [3.0]]
    plain.update_state(y_true, y_pred)
    adjusted.update_state(y_true, y_pred)
    with pytest.warns(UserWarning, match=r"num_regressors=3 with 3 label values seen gives "
                      r"more regressors than samples in the adjusted R2 score; returning "
                      r"the plain R2 score"):
        value = adjusted.result()
    np.testing.assert_allclose(value.numpy(), plain.result().numpy())
    two = metrics.R2Score(num_regressors=2)
    two.update_state(y_true, y_pred)
    with pytest.warns(UserWarning, match=r"gives a division by zero"):
        two.result()
