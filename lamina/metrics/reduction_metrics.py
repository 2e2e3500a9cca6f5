"""Running sums and means, and ``MeanMetricWrapper``: any ``fn(y_true, y_pred)`` as a metric."""
from __future__ import annotations

from typing import Callable

from .. import ops
from ..registry import (deserialize_keras_object, get_registered_object, register_builtin,
                        serialize_keras_object, unknown_object)
from .metric import Metric
from ..ops.reduction import num_rows
from .metrics_utils import divide_no_nan, reduce_to_samplewise_values


@register_builtin
class Sum(Metric):
    """The (weighted) sum of the values seen: ``[1, 3, 5, 7]`` gives 16, and with
    ``sample_weight=[1, 1, 0, 0]`` gives 4. State: ``total``.

    Args:
        name: the metric's name (default ``"sum"``).
        dtype: the dtype of the metric's state and result (default: the float type,
            ``keras.config.floatx()``).

    Example:

    >>> import lamina as keras
    >>> m = keras.metrics.Sum()
    >>> m.update_state([1, 3, 5, 7])
    >>> float(m.result())
    16.0
    """

    def __init__(self, name: str = "sum", dtype=None):
        super().__init__(name=name, dtype=dtype)
        self.total = self.add_variable((), "zeros", dtype=self.dtype, name="total")

    def update_state(self, values, sample_weight=None) -> None:
        values, _ = reduce_to_samplewise_values(self.name, values, sample_weight, ops.sum,
                                                self.dtype)
        self.total.assign_add(ops.sum(values))

    def result(self):
        return self.total.value


@register_builtin
class Mean(Metric):
    """The (weighted) mean of the values seen: ``sum(w * v) / sum(w)`` over all batches.

    ``[1, 3, 5, 7]`` gives 4; with ``sample_weight=[1, 1, 0, 0]``, 2. Values of rank > 1
    are averaged per sample first; a weight of rank 0 weighs the whole batch as one sample
    (as in Keras). State: ``total`` and ``count``.

    Args:
        name: the metric's name (default ``"mean"``).
        dtype: the dtype of the metric's state and result (default: the float type,
            ``keras.config.floatx()``).

    Example:

    >>> import lamina as keras
    >>> m = keras.metrics.Mean()
    >>> m.update_state([1, 3, 5, 7], sample_weight=[1, 1, 0, 0])
    >>> float(m.result())
    2.0
    """

    def __init__(self, name: str = "mean", dtype=None):
        super().__init__(name=name, dtype=dtype)
        self.total = self.add_variable((), "zeros", dtype=self.dtype, name="total")
        self.count = self.add_variable((), "zeros", dtype=self.dtype, name="count")

    def update_state(self, values, sample_weight=None) -> None:
        values, sample_weight = reduce_to_samplewise_values(
            self.name, values, sample_weight, ops.mean, self.dtype)
        self.total.assign_add(ops.sum(values))
        if sample_weight is not None:
            self.count.assign_add(ops.sum(sample_weight))
        else:
            self.count.assign_add(num_rows(values))

    def result(self):
        return divide_no_nan(self.total, self.count)


@register_builtin
class MeanMetricWrapper(Mean):
    """The weighted mean of ``fn(y_true, y_pred, **kwargs)``, a per-sample function such
    as a loss (``MeanMetricWrapper(fn=lamina.metrics.mean_squared_error)``).

    ``fn`` is stored in the config by its registered name, so a config round-trips when
    ``fn`` is a Lamina function, was registered with
    ``lamina.saving.register_keras_serializable``, or is passed in ``custom_objects``.

    Args:
        fn: a function ``fn(y_true, y_pred, **kwargs)`` giving one value per sample.
        name: the metric's name (default ``None: an automatic name``).
        dtype: the dtype of the metric's state and result (default: the float type,
            ``keras.config.floatx()``).
        **kwargs: keyword arguments passed on to ``fn``.
    """

    def __init__(self, fn: Callable, name: str | None = None, dtype=None, **kwargs):
        if not callable(fn):
            raise TypeError(f"{type(self).__name__}: argument 'fn' must be a callable "
                            f"fn(y_true, y_pred, **kwargs); received {fn!r}")
        super().__init__(name=name, dtype=dtype)
        self._fn = fn
        self._fn_kwargs = kwargs

    def update_state(self, y_true, y_pred, sample_weight=None) -> None:
        values = self._fn(y_true, y_pred, **self._fn_kwargs)
        super().update_state(values, sample_weight=sample_weight)

    def get_config(self) -> dict:
        config = {**super().get_config(), "fn": serialize_keras_object(self._fn)}
        config.update(serialize_keras_object(self._fn_kwargs))
        return config

    @classmethod
    def from_config(cls, config: dict, custom_objects: dict | None = None) -> "Metric":
        config = dict(config)
        if "fn" in config:
            config["fn"] = deserialize_fn(config["fn"], custom_objects)
        return cls(**config)


def deserialize_fn(fn, custom_objects: dict | None = None) -> Callable:
    """A wrapped function from its config: a Lamina metric function's name, a name
    registered by the user or in ``custom_objects``, or a Keras function config dict."""
    from . import METRIC_FUNCTIONS     # the table is built after every metric module loads
    if callable(fn):
        return fn
    # Lamina's functions win over same-named entries: deserialize() passes the class table
    # (where "mean_squared_error" is the metric class) in custom_objects.
    table = {**(custom_objects or {}), **METRIC_FUNCTIONS}
    if isinstance(fn, dict):
        return deserialize_keras_object(fn, custom_objects=table, kind="metric function")
    if isinstance(fn, str):
        found = table.get(fn) or get_registered_object(fn)
        if found is None:
            raise unknown_object(fn, "metric function")
        return found
    raise TypeError(f"MeanMetricWrapper.from_config: 'fn' must be a function name or a "
                    f"function config dict; received {fn!r}")
