"""One rate at the best threshold where another rate meets a constraint: SensitivityAt-
Specificity, SpecificityAtSensitivity, PrecisionAtRecall and RecallAtPrecision (Keras 3).

Each keeps tp/fp/tn/fn counts at ``num_thresholds`` thresholds evenly spread over [0, 1]
(just 0.5 when ``num_thresholds=1``); the result is the largest value of the dependent rate
over the thresholds where the constrained rate is >= the target (0 if none)."""
from __future__ import annotations

import numbers

from .. import ops
from ..registry import register_builtin
from .confusion_utils import ratio, update_confusion_matrix
from .metric import Metric


class _RateAtRate(Metric):
    _target = ""             # the constructor argument naming the constraint's target

    def __init__(self, value, num_thresholds=200, class_id=None, name=None, dtype=None):
        super().__init__(name=name, dtype=dtype)
        owner, target = type(self).__name__, self._target
        self._direction = "up"
        if isinstance(value, bool) or not isinstance(value, numbers.Real) \
                or not 0 <= value <= 1:
            raise ValueError(f"{owner}: Argument `{target}` must be in the range [0, 1] (a "
                             f"number); received {target}={value!r}")
        if isinstance(num_thresholds, bool) or not isinstance(num_thresholds, int) \
                or num_thresholds <= 0:
            raise ValueError(f"{owner}: Argument `num_thresholds` must be an integer > 0; "
                             f"received num_thresholds={num_thresholds!r}")
        setattr(self, target, value)
        self.value = value
        self.num_thresholds = num_thresholds
        self.class_id = class_id
        if num_thresholds == 1:
            self.thresholds, self._thresholds_distributed_evenly = [0.5], False
        else:
            inner = [(i + 1) / (num_thresholds - 1) for i in range(num_thresholds - 2)]
            self.thresholds = [0.0] + inner + [1.0]
            self._thresholds_distributed_evenly = True
        shape = (len(self.thresholds),)
        self.true_positives = self.add_variable(shape, "zeros", name="true_positives")
        self.false_positives = self.add_variable(shape, "zeros", name="false_positives")
        self.true_negatives = self.add_variable(shape, "zeros", name="true_negatives")
        self.false_negatives = self.add_variable(shape, "zeros", name="false_negatives")

    def update_state(self, y_true, y_pred, sample_weight=None) -> None:
        update_confusion_matrix(
            self.name, {"tp": self.true_positives, "fp": self.false_positives,
                        "tn": self.true_negatives, "fn": self.false_negatives},
            y_true, y_pred, self.thresholds, evenly=self._thresholds_distributed_evenly,
            class_id=self.class_id, sample_weight=sample_weight)

    def _rates(self) -> dict:
        tp, fp = self.true_positives, self.false_positives
        tn, fn = self.true_negatives, self.false_negatives
        return {"sensitivity": ratio(tp, fn), "recall": ratio(tp, fn),
                "specificity": ratio(tn, fp), "precision": ratio(tp, fp)}

    def _best(self, constrained: str, dependent: str):
        rates = self._rates()
        feasible = ops.greater_equal(rates[constrained], self.value)
        best = ops.where(feasible, rates[dependent], ops.zeros_like(rates[dependent]))
        return ops.maximum(ops.max(best), 0.0)

    def get_config(self) -> dict:
        return {**super().get_config(), "class_id": self.class_id,
                "num_thresholds": self.num_thresholds, self._target: self.value}


@register_builtin
class SensitivityAtSpecificity(_RateAtRate):
    """The best sensitivity (recall) where the specificity is >= ``specificity``.

    Args:
        specificity: float in [0, 1], the specificity to reach.
        num_thresholds: int > 1, the number of thresholds used to search (default 200).
        class_id: int or None; compute the metric for this class (a column of 2-D
            inputs) only.
        name: the metric's name (default ``None: an automatic name``).
        dtype: the dtype of the metric's state and result (default: the float type,
            ``keras.config.floatx()``).
    """
    _target = "specificity"

    def __init__(self, specificity, num_thresholds=200, class_id=None, name=None, dtype=None):
        super().__init__(specificity, num_thresholds, class_id, name, dtype)

    def result(self):
        return self._best("specificity", "sensitivity")


@register_builtin
class SpecificityAtSensitivity(_RateAtRate):
    """The best specificity where the sensitivity is >= ``sensitivity``.

    Args:
        sensitivity: float in [0, 1], the sensitivity to reach.
        num_thresholds: int > 1, the number of thresholds used to search (default 200).
        class_id: int or None; compute the metric for this class (a column of 2-D
            inputs) only.
        name: the metric's name (default ``None: an automatic name``).
        dtype: the dtype of the metric's state and result (default: the float type,
            ``keras.config.floatx()``).
    """
    _target = "sensitivity"

    def __init__(self, sensitivity, num_thresholds=200, class_id=None, name=None, dtype=None):
        super().__init__(sensitivity, num_thresholds, class_id, name, dtype)

    def result(self):
        return self._best("sensitivity", "specificity")


@register_builtin
class PrecisionAtRecall(_RateAtRate):
    """The best precision where the recall is >= ``recall``.

    Args:
        recall: float in [0, 1], the recall to reach.
        num_thresholds: int > 1, the number of thresholds used to search (default 200).
        class_id: int or None; compute the metric for this class (a column of 2-D
            inputs) only.
        name: the metric's name (default ``None: an automatic name``).
        dtype: the dtype of the metric's state and result (default: the float type,
            ``keras.config.floatx()``).
    """
    _target = "recall"

    def __init__(self, recall, num_thresholds=200, class_id=None, name=None, dtype=None):
        super().__init__(recall, num_thresholds, class_id, name, dtype)

    def result(self):
        return self._best("recall", "precision")


@register_builtin
class RecallAtPrecision(_RateAtRate):
    """The best recall where the precision is >= ``precision``.

    Args:
        precision: float in [0, 1], the precision to reach.
        num_thresholds: int > 1, the number of thresholds used to search (default 200).
        class_id: int or None; compute the metric for this class (a column of 2-D
            inputs) only.
        name: the metric's name (default ``None: an automatic name``).
        dtype: the dtype of the metric's state and result (default: the float type,
            ``keras.config.floatx()``).
    """
    _target = "precision"

    def __init__(self, precision, num_thresholds=200, class_id=None, name=None, dtype=None):
        super().__init__(precision, num_thresholds, class_id, name, dtype)

    def result(self):
        return self._best("precision", "recall")
