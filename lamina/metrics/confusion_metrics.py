"""Threshold metrics: TruePositives ... FalseNegatives, Precision and Recall.

Each keeps one count per threshold; with a single threshold the result is a scalar, with
a list of thresholds a vector (one value per threshold, in the order given).
"""
from __future__ import annotations

from ..registry import register_builtin
from .confusion_utils import (NEG_INF, as_given, evenly_distributed, parse_thresholds,
                              ratio, update_confusion_matrix)
from .metric import Metric
from .metrics_utils import check_positive_int


def _one_or_all(values, count: int):
    return values[0] if count == 1 else values


class _ConfusionMatrixConditionCount(Metric):
    """The weighted count of one confusion-matrix cell at each threshold (default 0.5)."""

    _kind = ""

    def __init__(self, thresholds=None, name: str | None = None, dtype=None):
        super().__init__(name=name, dtype=dtype)
        self.init_thresholds = as_given(thresholds)        # kept for the config
        self.thresholds = parse_thresholds(type(self).__name__, thresholds, 0.5)
        self._thresholds_distributed_evenly = evenly_distributed(self.thresholds)
        self.accumulator = self.add_variable((len(self.thresholds),), "zeros",
                                             name="accumulator")

    def update_state(self, y_true, y_pred, sample_weight=None) -> None:
        update_confusion_matrix(self.name, {self._kind: self.accumulator}, y_true, y_pred,
                                self.thresholds, evenly=self._thresholds_distributed_evenly,
                                sample_weight=sample_weight)

    def result(self):
        return _one_or_all(self.accumulator.value, len(self.thresholds))

    def get_config(self) -> dict:
        return {**super().get_config(), "thresholds": self.init_thresholds}


@register_builtin
class TruePositives(_ConfusionMatrixConditionCount):
    """The weighted number of positive labels predicted above the threshold.

    Args:
        thresholds: a float in [0, 1] or a list of them; a prediction above it counts
            as positive (default 0.5); a list gives one result per threshold.
        name: the metric's name (default ``None: an automatic name``).
        dtype: the dtype of the metric's state and result (default: the float type,
            ``keras.config.floatx()``).
    """
    _kind = "tp"


@register_builtin
class FalsePositives(_ConfusionMatrixConditionCount):
    """The weighted number of negative labels predicted above the threshold.

    Args:
        thresholds: a float in [0, 1] or a list of them; a prediction above it counts
            as positive (default 0.5); a list gives one result per threshold.
        name: the metric's name (default ``None: an automatic name``).
        dtype: the dtype of the metric's state and result (default: the float type,
            ``keras.config.floatx()``).
    """
    _kind = "fp"


@register_builtin
class TrueNegatives(_ConfusionMatrixConditionCount):
    """The weighted number of negative labels predicted at or below the threshold.

    Args:
        thresholds: a float in [0, 1] or a list of them; a prediction above it counts
            as positive (default 0.5); a list gives one result per threshold.
        name: the metric's name (default ``None: an automatic name``).
        dtype: the dtype of the metric's state and result (default: the float type,
            ``keras.config.floatx()``).
    """
    _kind = "tn"


@register_builtin
class FalseNegatives(_ConfusionMatrixConditionCount):
    """The weighted number of positive labels predicted at or below the threshold.

    Args:
        thresholds: a float in [0, 1] or a list of them; a prediction above it counts
            as positive (default 0.5); a list gives one result per threshold.
        name: the metric's name (default ``None: an automatic name``).
        dtype: the dtype of the metric's state and result (default: the float type,
            ``keras.config.floatx()``).
    """
    _kind = "fn"


class _PrecisionRecall(Metric):
    """``tp / (tp + other)`` at each threshold, where ``other`` is fp (Precision) or fn
    (Recall).

    ``top_k``: only the k largest predictions of each row can count as positive (the
    default threshold then becomes "any value", so exactly the top k are positive).
    ``class_id``: only that column of ``y_true``/``y_pred`` (shape ``(batch, classes)``)
    is scored.
    """

    _other = ""

    def __init__(self, thresholds=None, top_k=None, class_id=None, name=None, dtype=None):
        super().__init__(name=name, dtype=dtype)
        owner = type(self).__name__
        self._direction = "up"
        self.init_thresholds = as_given(thresholds)        # kept for the config
        self.top_k = None if top_k is None else check_positive_int(owner, "top_k", top_k)
        if class_id is not None and (isinstance(class_id, bool) or
                                     not isinstance(class_id, int) or class_id < 0):
            raise ValueError(f"{owner}: argument 'class_id' must be a non-negative integer "
                             f"or None; received {class_id!r}")
        self.class_id = class_id
        default = 0.5 if top_k is None else NEG_INF
        self.thresholds = parse_thresholds(owner, thresholds, default)
        self._thresholds_distributed_evenly = evenly_distributed(self.thresholds)
        shape = (len(self.thresholds),)
        self.true_positives = self.add_variable(shape, "zeros", name="true_positives")
        other = "false_positives" if self._other == "fp" else "false_negatives"
        setattr(self, other, self.add_variable(shape, "zeros", name=other))
        self._other_counts = getattr(self, other)

    def update_state(self, y_true, y_pred, sample_weight=None) -> None:
        update_confusion_matrix(
            self.name, {"tp": self.true_positives, self._other: self._other_counts},
            y_true, y_pred, self.thresholds, evenly=self._thresholds_distributed_evenly,
            top_k=self.top_k, class_id=self.class_id, sample_weight=sample_weight)

    def result(self):
        values = ratio(self.true_positives, self._other_counts)
        return _one_or_all(values, len(self.thresholds))

    def get_config(self) -> dict:
        return {**super().get_config(), "thresholds": self.init_thresholds,
                "top_k": self.top_k, "class_id": self.class_id}


@register_builtin
class Precision(_PrecisionRecall):
    """Of the predictions above the threshold, the weighted fraction whose label is
    positive: ``tp / (tp + fp)`` (0 when nothing was predicted positive).

    Args:
        thresholds: a float in [0, 1] or a list of them; a prediction above it counts
            as positive (default 0.5); a list gives one result per threshold.
        top_k: int or None; only the ``top_k`` largest predictions of each row may count
            as positive.
        class_id: int or None; compute the metric for this class (a column of 2-D
            inputs) only.
        name: the metric's name (default ``None: an automatic name``).
        dtype: the dtype of the metric's state and result (default: the float type,
            ``keras.config.floatx()``).

    Example:

    >>> import lamina as keras
    >>> m = keras.metrics.Precision()
    >>> m.update_state([0, 1, 1, 1], [1, 0, 1, 1])
    >>> round(float(m.result()), 4)
    0.6667
    """
    _other = "fp"


@register_builtin
class Recall(_PrecisionRecall):
    """Of the positive labels, the weighted fraction predicted above the threshold:
    ``tp / (tp + fn)`` (0 when there were no positive labels).

    Args:
        thresholds: a float in [0, 1] or a list of them; a prediction above it counts
            as positive (default 0.5); a list gives one result per threshold.
        top_k: int or None; only the ``top_k`` largest predictions of each row may count
            as positive.
        class_id: int or None; compute the metric for this class (a column of 2-D
            inputs) only.
        name: the metric's name (default ``None: an automatic name``).
        dtype: the dtype of the metric's state and result (default: the float type,
            ``keras.config.floatx()``).

    Example:

    >>> import lamina as keras
    >>> m = keras.metrics.Recall()
    >>> m.update_state([0, 1, 1, 1], [1, 0, 1, 1])
    >>> round(float(m.result()), 4)
    0.6667
    """
    _other = "fn"
