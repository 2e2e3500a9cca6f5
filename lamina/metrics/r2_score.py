"""``R2Score``: the coefficient of determination over every sample seen, per output column,
aggregated as Keras 3 does (uniform or variance-weighted average, or one per column)."""
from __future__ import annotations

import warnings

from .. import ops
from ..graph.trace import active as active_trace
from ..registry import register_builtin
from .metric import Metric
from .metrics_utils import check_two_dimensional, squeeze_or_expand_to_same_rank, to_tensor

_AGGREGATIONS = (None, "uniform_average", "variance_weighted_average")


@register_builtin
class R2Score(Metric):
    """``1 - sum(w (y - p)^2) / sum(w (y - mean_w(y))^2)`` for each column of 2-D inputs
    ``(batch, outputs)``; a constant column (no variance) scores 0.

    ``class_aggregation``: "uniform_average" (the mean over columns, default),
    "variance_weighted_average" (weighted by each column's variance) or None (a vector).
    ``num_regressors=p`` gives the adjusted score ``1 - (1 - r2) (n - 1) / (n - p - 1)``,
    where n counts the label entries seen; when ``p >= n - 1`` the plain score is returned
    with a warning, as in Keras (in a compiled step the fallback happens without one).
    The state variables are created by the first ``update_state`` (their size is the
    number of columns).

    Args:
        class_aggregation: ``"uniform_average"`` (default), ``"variance_weighted_average"``
            or None (one score per output column).
        num_regressors: int >= 0, the number of regressors for the adjusted score
            (default 0: the plain score).
        name: the metric's name (default ``"r2_score"``).
        dtype: the dtype of the metric's state and result (default: the float type,
            ``keras.config.floatx()``).
    """

    def __init__(self, class_aggregation="uniform_average", num_regressors=0,
                 name="r2_score", dtype=None):
        super().__init__(name=name, dtype=dtype)
        self._direction = "up"
        if class_aggregation not in _AGGREGATIONS:
            raise ValueError(f"R2Score: Invalid value for argument `class_aggregation`: it "
                             f"must be one of {_AGGREGATIONS}; received {class_aggregation!r}")
        if isinstance(num_regressors, bool) or not isinstance(num_regressors, int) \
                or num_regressors < 0:
            raise ValueError(f"R2Score: Invalid value for argument `num_regressors`: it must "
                             f"be an integer >= 0; received {num_regressors!r}")
        self.class_aggregation = class_aggregation
        self.num_regressors = num_regressors
        self.num_samples = self.add_variable((), "zeros", name="num_samples")
        self._built = False

    def _build(self, true_shape, pred_shape) -> None:
        check_two_dimensional("R2Score", true_shape, pred_shape)
        columns = (pred_shape[-1],)
        self.squared_sum = self.add_variable(columns, "zeros", name="squared_sum")
        self.sum = self.add_variable(columns, "zeros", name="sum")
        self.total_mse = self.add_variable(columns, "zeros", name="residual")
        self.count = self.add_variable(columns, "zeros", name="count")
        self._built = True

    def update_state(self, y_true, y_pred, sample_weight=None) -> None:
        y_true = to_tensor(y_true, dtype=self.dtype, like=self.num_samples)
        y_pred = to_tensor(y_pred, dtype=self.dtype, like=y_true)
        y_true, y_pred = squeeze_or_expand_to_same_rank(y_true, y_pred)
        if not self._built:
            self._build(y_true.shape, y_pred.shape)
        if sample_weight is None:
            weight = ops.ones_like(y_true)
        else:
            weight = to_tensor(sample_weight, dtype=self.dtype, like=y_true)
            if weight.ndim == 1:
                weight = ops.expand_dims(weight, 1)
            weight = ops.broadcast_to(weight, y_true.shape)
        weighted = ops.multiply(y_true, weight)
        self.sum.assign_add(ops.sum(weighted, axis=0))
        self.squared_sum.assign_add(ops.sum(ops.multiply(y_true, weighted), axis=0))
        residual = ops.multiply(ops.square(ops.subtract(y_true, y_pred)), weight)
        self.total_mse.assign_add(ops.sum(residual, axis=0))
        self.count.assign_add(ops.sum(weight, axis=0))
        self.num_samples.assign_add(ops.sum(ops.ones_like(y_true)))

    def result(self):
        if not self._built:
            return ops.zeros((), dtype=self.dtype)
        mean = ops.divide(self.sum, self.count)
        total = ops.subtract(self.squared_sum, ops.multiply(self.sum, mean))
        raw = ops.subtract(1.0, ops.divide(self.total_mse, total))
        raw = ops.where(ops.isinf(raw), ops.zeros_like(raw), raw)
        if self.class_aggregation == "uniform_average":
            score = ops.mean(raw)
        elif self.class_aggregation == "variance_weighted_average":
            score = ops.divide(ops.sum(ops.multiply(total, raw)), ops.sum(total))
        else:
            score = raw
        if self.num_regressors:
            self._warn_if_too_few_samples()
            n = self.num_samples.value
            p = float(self.num_regressors)
            enough = ops.greater(ops.subtract(n, 1.0), p)
            denominator = ops.where(enough, ops.subtract(ops.subtract(n, p), 1.0),
                                    ops.ones_like(n))
            adjusted = ops.subtract(1.0, ops.divide(
                ops.multiply(ops.subtract(1.0, score), ops.subtract(n, 1.0)), denominator))
            score = ops.where(enough, adjusted, score)
        return score

    def _warn_if_too_few_samples(self) -> None:
        if active_trace() is not None:          # a symbolic count: nothing to compare
            return
        n = float(self.num_samples.numpy())
        if self.num_regressors >= n - 1:
            reason = "more regressors than samples" if self.num_regressors > n - 1 else \
                "a division by zero"
            warnings.warn(f"{self.name}: num_regressors={self.num_regressors} with {n:g} "
                          f"label values seen gives {reason} in the adjusted R2 score; "
                          f"returning the plain R2 score", UserWarning, stacklevel=3)

    def get_config(self) -> dict:
        return {**super().get_config(), "class_aggregation": self.class_aggregation,
                "num_regressors": self.num_regressors}
