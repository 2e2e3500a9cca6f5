"""``FBetaScore`` and ``F1Score``: ``(1 + b^2) P R / (b^2 P + R)`` per class from weighted
counts over every batch seen, averaged as Keras 3 does (None, "micro", "macro", "weighted")."""
from __future__ import annotations

from .. import ops
from ..settings import epsilon
from ..registry import register_builtin
from .metric import Metric
from .metrics_utils import check_two_dimensional, to_tensor

_AVERAGES = (None, "micro", "macro", "weighted")


@register_builtin
class FBetaScore(Metric):
    """The F-beta score of 2-D inputs ``(batch, classes)``.

    A prediction counts as positive when it is above ``threshold``; with ``threshold=None``
    the largest value of each row (if nonzero) is the positive one. ``average``: None (one
    score per class), "micro" (from the counts summed over classes), "macro" (the mean of
    the class scores) or "weighted" (weighted by each class's label total). The state is
    created by the first ``update_state`` (its size is the number of classes).

    Args:
        average: None (one score per class), ``"micro"``, ``"macro"`` or ``"weighted"``.
        beta: float > 0, the weight of recall relative to precision (default 1.0).
        threshold: float in (0, 1] or None; a prediction above it is positive (None: the
            row's largest value).
        name: the metric's name (default ``"fbeta_score"``).
        dtype: the dtype of the metric's state and result (default: the float type,
            ``keras.config.floatx()``).
    """

    def __init__(self, average=None, beta=1.0, threshold=None, name="fbeta_score", dtype=None):
        super().__init__(name=name, dtype=dtype)
        owner = type(self).__name__
        self._direction = "up"
        # Keras's texts (its f_score_metrics_test.py matches them), after the metric's name.
        if average not in _AVERAGES:
            raise ValueError(f"{owner}: Invalid `average` argument value. Expected one of: "
                             f"{{None, 'micro', 'macro', 'weighted'}}. Received: "
                             f"average={average}")
        if not isinstance(beta, float):
            raise ValueError(f"{owner}: Invalid `beta` argument value. It should be a Python "
                             f"float. Received: beta={beta!r} of type {type(beta).__name__}")
        if not beta > 0.0:
            raise ValueError(f"{owner}: Invalid `beta` argument value. It should be > 0. "
                             f"Received: beta={beta}")
        if threshold is not None and not isinstance(threshold, float):
            raise ValueError(f"{owner}: Invalid `threshold` argument value. It should be a "
                             f"Python float. Received: threshold={threshold} of type "
                             f"'{type(threshold)}'")
        if threshold is not None and not 0.0 < threshold <= 1.0:
            raise ValueError(f"{owner}: Invalid `threshold` argument value. It should verify "
                             f"0 < threshold <= 1. Received: threshold={threshold}")
        self.average = average
        self.beta = beta
        self.threshold = threshold
        self.axis = None if average == "micro" else 0
        self._built = False

    def _build(self, true_shape, pred_shape) -> None:
        check_two_dimensional(type(self).__name__, true_shape, pred_shape)
        shape = () if self.average == "micro" else (pred_shape[-1],)
        for name in ("true_positives", "false_positives", "false_negatives",
                     "intermediate_weights"):
            setattr(self, name, self.add_variable(shape, "zeros", name=name))
        self._built = True

    def update_state(self, y_true, y_pred, sample_weight=None) -> None:
        y_true = to_tensor(y_true, dtype=self.dtype, like=self._backend)
        y_pred = to_tensor(y_pred, dtype=self.dtype, like=y_true)
        if not self._built:
            self._build(y_true.shape, y_pred.shape)
        if self.threshold is None:
            top = ops.max(y_pred, axis=-1, keepdims=True)
            positive = ops.logical_and(ops.greater_equal(y_pred, top),
                                       ops.greater(ops.abs(y_pred), 1e-9))
        else:
            positive = ops.greater(y_pred, self.threshold)
        y_pred = ops.cast(positive, self.dtype)
        weight = None if sample_weight is None else ops.expand_dims(
            to_tensor(sample_weight, dtype=self.dtype, like=y_true), 1)

        def weighted_sum(values):
            if weight is not None:
                values = ops.multiply(values, weight)
            return ops.sum(values, axis=self.axis)

        missed, negative = ops.subtract(1.0, y_pred), ops.subtract(1.0, y_true)
        self.true_positives.assign_add(weighted_sum(ops.multiply(y_pred, y_true)))
        self.false_positives.assign_add(weighted_sum(ops.multiply(y_pred, negative)))
        self.false_negatives.assign_add(weighted_sum(ops.multiply(missed, y_true)))
        self.intermediate_weights.assign_add(weighted_sum(y_true))

    def result(self):
        if not self._built:
            return ops.zeros((), dtype=self.dtype)
        eps = epsilon()
        tp = self.true_positives.value
        precision = ops.divide(tp, ops.add(ops.add(tp, self.false_positives), eps))
        recall = ops.divide(tp, ops.add(ops.add(tp, self.false_negatives), eps))
        beta2 = self.beta ** 2
        score = ops.divide(ops.multiply(precision, recall),
                           ops.add(ops.add(ops.multiply(beta2, precision), recall), eps))
        score = ops.multiply(score, 1.0 + beta2)
        if self.average == "weighted":
            totals = self.intermediate_weights.value
            share = ops.divide(totals, ops.add(ops.sum(totals), eps))
            return ops.sum(ops.multiply(score, share))
        if self.average is not None:
            return ops.mean(score)
        return score

    def get_config(self) -> dict:
        return {**super().get_config(), "average": self.average, "beta": self.beta,
                "threshold": self.threshold}


@register_builtin
class F1Score(FBetaScore):
    """:class:`FBetaScore` with ``beta=1``: the harmonic mean of precision and recall.

    Args:
        average: None (one score per class), ``"micro"``, ``"macro"`` or ``"weighted"``.
        threshold: float in (0, 1] or None; a prediction above it is positive (None: the
            row's largest value).
        name: the metric's name (default ``"f1_score"``).
        dtype: the dtype of the metric's state and result (default: the float type,
            ``keras.config.floatx()``).
    """

    def __init__(self, average=None, threshold=None, name="f1_score", dtype=None):
        super().__init__(average=average, beta=1.0, threshold=threshold, name=name,
                         dtype=dtype)

    def get_config(self) -> dict:
        config = super().get_config()
        del config["beta"]
        return config
