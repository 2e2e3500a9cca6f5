"""Argument and shape errors of the metrics added for Keras 3 parity: each names the metric,
the argument, what was expected and what was received."""
import numpy as np
import pytest

from lamina import metrics
from lamina.errors import ShapeError


@pytest.mark.parametrize("kwargs,message", [
    ({"class_aggregation": "median"}, r"R2Score: Invalid value for argument "
                                      r"`class_aggregation`: it must be one of "
                                      r"\(None, 'uniform_average', 'variance_weighted_average'"
                                      r"\); received 'median'"),
    ({"num_regressors": -1}, r"R2Score: Invalid value for argument `num_regressors`: it must "
                             r"be an integer >= 0; received -1"),
])
def test_r2_score_arguments(kwargs, message):
    with pytest.raises(ValueError, match=message):
        metrics.R2Score(**kwargs)


def test_r2_score_needs_two_dimensional_inputs():
    with pytest.raises(ShapeError, match=r"^R2Score expects 2D inputs with shape "
                       r"\(batch_size, output_dim\)\. Received input shapes: "
                       r"y_pred\.shape=\(3,\) and y_true\.shape=\(3,\)\.$"):
        metrics.R2Score().update_state([1.0, 0.0, 1.0], [0.5, 0.2, 0.9])
    with pytest.raises(ShapeError, match=r"^R2Score expects 2D inputs .*with output_dim "
                       r"fully defined \(not None\)\. Received input shapes: "
                       r"y_pred\.shape=\(None, None\) and y_true\.shape=\(None, 2\)\.$"):
        metrics.R2Score()._build((None, 2), (None, None))


def test_f_scores_need_two_dimensional_inputs_with_known_classes():
    # Keras's texts, with the metric's own name.
    with pytest.raises(ShapeError, match=r"^F1Score expects 2D inputs with shape "
                       r"\(batch_size, output_dim\)\. Received input shapes: "
                       r"y_pred\.shape=\(3,\) and y_true\.shape=\(3,\)\.$"):
        metrics.F1Score().update_state([1.0, 0.0, 1.0], [0.5, 0.2, 0.9])
    with pytest.raises(ShapeError, match=r"^FBetaScore expects 2D inputs with shape "
                       r"\(batch_size, output_dim\), with output_dim fully defined \(not "
                       r"None\)\. Received input shapes: y_pred\.shape=\(2, None\) and "
                       r"y_true\.shape=\(2, 3\)\.$"):
        metrics.FBetaScore()._build((2, 3), (2, None))


@pytest.mark.parametrize("kwargs,message", [
    ({"average": "samples"}, r"FBetaScore: Invalid `average` argument value. Expected one of: "
                             r"\{None, 'micro', 'macro', 'weighted'\}. Received: "
                             r"average=samples$"),
    ({"beta": 2}, r"FBetaScore: Invalid `beta` argument value. It should be a Python float. "
                  r"Received: beta=2 of type int$"),
    ({"beta": "1.0"}, r"FBetaScore: Invalid `beta` argument value. It should be a Python "
                      r"float. Received: beta='1.0' of type str$"),
    ({"beta": -1.0}, r"FBetaScore: Invalid `beta` argument value. It should be > 0. "
                     r"Received: beta=-1.0$"),
    ({"beta": float("nan")}, r"FBetaScore: Invalid `beta` argument value. It should be > 0. "
                             r"Received: beta=nan$"),
    ({"threshold": 0.0}, r"FBetaScore: Invalid `threshold` argument value. It should verify "
                         r"0 < threshold <= 1. Received: threshold=0.0$"),
    ({"threshold": 1}, r"FBetaScore: Invalid `threshold` argument value. It should be a "
                       r"Python float. Received: threshold=1 of type '<class 'int'>'$"),
])
def test_fbeta_arguments(kwargs, message):
    # Keras's texts (its f_score_metrics_test.py matches them), after the metric's name.
    with pytest.raises(ValueError, match=message):
        metrics.FBetaScore(**kwargs)


@pytest.mark.parametrize("cls,arg", [
    (metrics.PrecisionAtRecall, "recall"), (metrics.RecallAtPrecision, "precision"),
    (metrics.SensitivityAtSpecificity, "specificity"),
    (metrics.SpecificityAtSensitivity, "sensitivity")])
def test_rate_targets_and_threshold_counts(cls, arg):
    with pytest.raises(ValueError, match=rf"{cls.__name__}: Argument `{arg}` must be in the "
                       rf"range \[0, 1\] \(a number\); received {arg}=1.5"):
        cls(1.5)
    with pytest.raises(ValueError, match=rf"{cls.__name__}: Argument `num_thresholds` must be "
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
    # Keras's test matches r"weight.*float.*int.*casting".
    with pytest.warns(UserWarning, match=r"sample_weight is float but the metric's dtype is "
                      r"int32: type casting truncates the weights to integers"):
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
