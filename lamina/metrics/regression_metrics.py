"""Regression metrics: the weighted mean of a per-sample error, and its square root.

The per-sample functions are Keras's loss functions (``keras.metrics.mean_squared_error``
is ``keras.losses.mean_squared_error``): each averages over the last axis. Any other loss
function ``fn(y_true, y_pred)`` becomes a metric with ``MeanMetricWrapper(fn)``.
"""
from __future__ import annotations

from .. import ops
from ..losses.regression import (mean_absolute_error, mean_absolute_percentage_error,
                                 mean_squared_error, mean_squared_logarithmic_error)
from ..registry import register_builtin
from .metrics_utils import as_pair, float_tensor, squeeze_or_expand_to_same_rank
from .reduction_metrics import Mean, MeanMetricWrapper


class _ErrorMetric(MeanMetricWrapper):
    """A fixed-function wrapper, minimized; its config is just ``name`` and ``dtype``."""

    def __init__(self, fn, name, dtype):
        super().__init__(fn=fn, name=name, dtype=dtype)
        self._direction = "down"

    def get_config(self) -> dict:
        return {"name": self.name, "dtype": self.dtype}

    @classmethod
    def from_config(cls, config: dict, custom_objects: dict | None = None):
        return cls(**config)


@register_builtin
class MeanSquaredError(_ErrorMetric):
    """The weighted mean of ``mean_squared_error``.

    Args:
        name: the metric's name (default ``"mean_squared_error"``).
        dtype: the dtype of the metric's state and result (default: the float type,
            ``keras.config.floatx()``).
    """

    def __init__(self, name: str = "mean_squared_error", dtype=None):
        super().__init__(mean_squared_error, name, dtype)


@register_builtin
class MeanAbsoluteError(_ErrorMetric):
    """The weighted mean of ``mean_absolute_error``.

    Args:
        name: the metric's name (default ``"mean_absolute_error"``).
        dtype: the dtype of the metric's state and result (default: the float type,
            ``keras.config.floatx()``).
    """

    def __init__(self, name: str = "mean_absolute_error", dtype=None):
        super().__init__(mean_absolute_error, name, dtype)


@register_builtin
class MeanAbsolutePercentageError(_ErrorMetric):
    """The weighted mean of ``mean_absolute_percentage_error`` (in percent).

    Args:
        name: the metric's name (default ``"mean_absolute_percentage_error"``).
        dtype: the dtype of the metric's state and result (default: the float type,
            ``keras.config.floatx()``).
    """

    def __init__(self, name: str = "mean_absolute_percentage_error", dtype=None):
        super().__init__(mean_absolute_percentage_error, name, dtype)


@register_builtin
class MeanSquaredLogarithmicError(_ErrorMetric):
    """The weighted mean of ``mean_squared_logarithmic_error``.

    Args:
        name: the metric's name (default ``"mean_squared_logarithmic_error"``).
        dtype: the dtype of the metric's state and result (default: the float type,
            ``keras.config.floatx()``).
    """

    def __init__(self, name: str = "mean_squared_logarithmic_error", dtype=None):
        super().__init__(mean_squared_logarithmic_error, name, dtype)


@register_builtin
class RootMeanSquaredError(Mean):
    """``sqrt`` of the weighted mean squared error over every element seen (not the mean
    of per-batch roots).

    Args:
        name: the metric's name (default ``"root_mean_squared_error"``).
        dtype: the dtype of the metric's state and result (default: the float type,
            ``keras.config.floatx()``).
    """

    def __init__(self, name: str = "root_mean_squared_error", dtype=None):
        super().__init__(name=name, dtype=dtype)
        self._direction = "down"

    def update_state(self, y_true, y_pred, sample_weight=None) -> None:
        y_true, y_pred = as_pair(y_true, ops.cast(float_tensor(y_pred, like=y_true),
                                                   self.dtype))
        y_true, y_pred = squeeze_or_expand_to_same_rank(y_true, y_pred)
        super().update_state(ops.square(ops.subtract(y_pred, y_true)),
                             sample_weight=sample_weight)

    def result(self):
        return ops.sqrt(super().result())
