"""Accuracy metrics: the weighted mean of a per-sample accuracy function.

Which one the string ``"accuracy"`` in ``compile`` means is decided from the shapes by
:func:`lamina.metrics.resolve_accuracy`.
"""
from __future__ import annotations

from ..registry import register_builtin
from .accuracy_functions import (accuracy, binary_accuracy, categorical_accuracy,
                                 sparse_categorical_accuracy,
                                 sparse_top_k_categorical_accuracy, top_k_categorical_accuracy)
from .metrics_utils import check_positive_int
from .reduction_metrics import MeanMetricWrapper


class _AccuracyMetric(MeanMetricWrapper):
    """A fixed-function wrapper: its config holds only its own arguments, not ``fn``."""

    def __init__(self, fn, name, dtype, **fn_kwargs):
        super().__init__(fn=fn, name=name, dtype=dtype, **fn_kwargs)
        self._direction = "up"            # maximized (callbacks' mode="auto")

    def get_config(self) -> dict:
        return {"name": self.name, "dtype": self.dtype, **self._fn_kwargs}

    @classmethod
    def from_config(cls, config: dict, custom_objects: dict | None = None):
        return cls(**config)


@register_builtin
class Accuracy(_AccuracyMetric):
    """How often predictions equal labels exactly: ``[[1], [2], [3], [4]]`` against
    ``[[0], [2], [3], [4]]`` gives 0.75.

    Args:
        name: the metric's name (default ``"accuracy"``).
        dtype: the dtype of the metric's state and result (default: the float type,
            ``keras.config.floatx()``).


    Example:

    >>> import lamina as keras
    >>> m = keras.metrics.Accuracy()
    >>> m.update_state([[1], [2], [3], [4]], [[0], [2], [3], [4]])
    >>> float(m.result())
    0.75
    """

    def __init__(self, name: str = "accuracy", dtype=None):
        super().__init__(accuracy, name, dtype)


@register_builtin
class BinaryAccuracy(_AccuracyMetric):
    """How often ``y_pred > threshold`` matches the 0/1 label.

    Args:
        name: the metric's name (default ``"binary_accuracy"``).
        dtype: the dtype of the metric's state and result (default: the float type,
            ``keras.config.floatx()``).
        threshold: float; a prediction above it counts as 1 (default 0.5).


    Example:

    >>> import lamina as keras
    >>> m = keras.metrics.BinaryAccuracy()
    >>> m.update_state([[1], [1], [0], [0]], [[0.98], [1], [0], [0.6]])
    >>> float(m.result())
    0.75
    """

    def __init__(self, name: str = "binary_accuracy", dtype=None, threshold: float = 0.5):
        if threshold is not None and not 0 < threshold < 1:
            raise ValueError(f"BinaryAccuracy: argument 'threshold' must be in the open "
                             f"interval (0, 1); received threshold={threshold!r}")
        super().__init__(binary_accuracy, name, dtype, threshold=threshold)
        self.threshold = threshold


@register_builtin
class CategoricalAccuracy(_AccuracyMetric):
    """How often the argmax of ``y_pred`` is the argmax of the one-hot ``y_true``.

    Args:
        name: the metric's name (default ``"categorical_accuracy"``).
        dtype: the dtype of the metric's state and result (default: the float type,
            ``keras.config.floatx()``).
    """

    def __init__(self, name: str = "categorical_accuracy", dtype=None):
        super().__init__(categorical_accuracy, name, dtype)


@register_builtin
class SparseCategoricalAccuracy(_AccuracyMetric):
    """How often the argmax of ``y_pred`` is the integer label (shape ``(batch,)`` or
    ``(batch, 1)``).

    Args:
        name: the metric's name (default ``"sparse_categorical_accuracy"``).
        dtype: the dtype of the metric's state and result (default: the float type,
            ``keras.config.floatx()``).
    """

    def __init__(self, name: str = "sparse_categorical_accuracy", dtype=None):
        super().__init__(sparse_categorical_accuracy, name, dtype)


@register_builtin
class TopKCategoricalAccuracy(_AccuracyMetric):
    """How often the one-hot label's class is among the ``k`` largest scores.

    Args:
        k: int, how many of the top scores count (default 5).
        name: the metric's name (default ``"top_k_categorical_accuracy"``).
        dtype: the dtype of the metric's state and result (default: the float type,
            ``keras.config.floatx()``).
    """

    def __init__(self, k: int = 5, name: str = "top_k_categorical_accuracy", dtype=None):
        super().__init__(top_k_categorical_accuracy, name, dtype,
                         k=check_positive_int("TopKCategoricalAccuracy", "k", k))
        self.k = k


@register_builtin
class SparseTopKCategoricalAccuracy(_AccuracyMetric):
    """How often the integer label is among the ``k`` largest scores (or, with
    ``from_sorted_ids=True``, among the first ``k`` of the sorted ids in ``y_pred``).

    Args:
        k: int, how many of the top scores count (default 5).
        name: the metric's name (default ``"sparse_top_k_categorical_accuracy"``).
        dtype: the dtype of the metric's state and result (default: the float type,
            ``keras.config.floatx()``).
        from_sorted_ids: bool; ``y_pred`` holds the top category ids, best first, instead
            of scores (default False).
    """

    def __init__(self, k: int = 5, name: str = "sparse_top_k_categorical_accuracy",
                 dtype=None, from_sorted_ids: bool = False):
        super().__init__(sparse_top_k_categorical_accuracy, name, dtype,
                         k=check_positive_int("SparseTopKCategoricalAccuracy", "k", k))
        self.k = k
        self.from_sorted_ids = bool(from_sorted_ids)
        if self.from_sorted_ids:          # Keras writes the flag only when it is set
            self._fn_kwargs["from_sorted_ids"] = True
