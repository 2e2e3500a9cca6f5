"""The metric contract: state variables, ``update_state``, ``result``, ``reset_state``."""
from __future__ import annotations

from .. import initializers, ops
from ..core.stateless_scope import StatelessScope
from ..core.variable import Variable
from ..backend import get_backend
from ..dtype_policies.dtype_policy import DTypePolicy
from ..dtypes import standardize
from ..core.naming import to_snake_case, unique_name
from ..registry import register_builtin


@register_builtin
class Metric:
    """Base class of metrics (Keras 3's ``keras.metrics.Metric``).

    A metric is a running statistic over batches. Its state lives in non-trainable
    :class:`~lamina.Variable` objects that are only ever changed in place (``assign``,
    ``assign_add``), so a compiled train step that holds them keeps seeing the current
    value. A subclass:

    * creates its state in ``__init__`` with ``self.add_variable(shape, initializer, ...)``;
    * accumulates a batch in ``update_state(y_true, y_pred, sample_weight=None)``;
    * computes the value from the state in ``result()`` (a new tensor, never a variable);
    * lists its constructor arguments in ``get_config()`` (merged with ``name``/``dtype``).

    ``reset_state()`` sets every variable back to zero; ``metric(y_true, y_pred)`` is
    ``update_state`` followed by ``result``.

    >>> class BinaryTruePositives(Metric):
    ...     def __init__(self, name="binary_true_positives", dtype=None):
    ...         super().__init__(name=name, dtype=dtype)
    ...         self.true_positives = self.add_variable((), "zeros", name="true_positives")
    ...     def update_state(self, y_true, y_pred, sample_weight=None):
    ...         hits = ops.logical_and(ops.cast(y_true, "bool"), ops.cast(y_pred, "bool"))
    ...         self.true_positives.assign_add(ops.sum(ops.cast(hits, self.dtype)))
    ...     def result(self):
    ...         return self.true_positives.value
    >>> m = BinaryTruePositives()
    >>> float(m([0, 1, 1, 1], [1, 0, 1, 1]))
    2.0

    Args:
        dtype: the dtype of the metric's state and result (default: the float type,
            ``keras.config.floatx()``).
        name: the metric's name (default: the class name in snake_case).
    """

    _keras_module = "keras.metrics"

    def __init__(self, dtype=None, name: str | None = None):
        cls = type(self).__name__
        if name is not None and not isinstance(name, str):
            raise TypeError(f"{cls}: argument 'name' must be a string or None; received "
                            f"{name!r}")
        self._metrics: list[Metric] = []
        self._variables: list[Variable] = []
        self.name = name if name is not None else unique_name(to_snake_case(cls))
        # A policy ("mixed_float16" or a DTypePolicy) gives its compute dtype, as in Keras.
        if isinstance(dtype, DTypePolicy):
            dtype = dtype.compute_dtype
        elif isinstance(dtype, str) and dtype.startswith("mixed_"):
            dtype = dtype.removeprefix("mixed_")
        self._dtype = standardize(dtype)           # None -> floatx()
        self._backend = get_backend()              # the state lives where it was created

    @property
    def dtype(self) -> str:
        return self._dtype

    def add_variable(self, shape, initializer, dtype=None, aggregation: str = "sum",
                     name: str | None = None) -> Variable:
        """A non-trainable state variable, tracked in ``self.variables``. ``dtype``
        defaults to the metric's dtype (so a float64 metric accumulates in float64)."""
        self._check_super_called()
        variable = Variable(initializers.get(initializer), shape=tuple(shape),
                            dtype=dtype or self.dtype, trainable=False,
                            aggregation=aggregation, name=name, backend=self._backend)
        variable.path = f"{self.name}/{variable.name}"
        self._variables.append(variable)
        return variable

    def add_weight(self, shape=(), initializer=None, dtype=None, name=None) -> Variable:
        """Keras 2's name for :meth:`add_variable`."""
        return self.add_variable(shape, initializer or "zeros", dtype=dtype, name=name)

    @property
    def variables(self) -> list:
        """This metric's state variables, those held in its attributes (also in lists and
        dicts), then those of the metrics it holds, each once."""
        found, seen = [], set()

        def add(variable):
            if id(variable) not in seen:
                seen.add(id(variable))
                found.append(variable)
        for variable in self._variables:
            add(variable)
        held = [value for attr, value in vars(self).items()
                if not attr.startswith("_") and not isinstance(value, Metric)]
        for variable in _variables_in(held):
            add(variable)
        for metric in self._metrics:
            for variable in metric.variables:
                add(variable)
        return found

    # -- Keras 3's functional (stateless) API ------------------------------------------------
    def _check_values(self, values, argument="metric_variables") -> list:
        values = list(values)
        if len(values) != len(self.variables):
            raise ValueError(f"{type(self).__name__}: argument '{argument}' must hold one value "
                             f"per variable of the metric ({len(self.variables)}); received "
                             f"{len(values)}")
        return values

    def stateless_update_state(self, metric_variables, *args, **kwargs) -> list:
        """The variables' values after ``update_state(*args, **kwargs)`` starting from
        ``metric_variables``; the metric's own variables do not change."""
        mapping = list(zip(self.variables, self._check_values(metric_variables)))
        with StatelessScope(state_mapping=mapping) as scope:
            self.update_state(*args, **kwargs)
        return [scope.get_current_value(v) for v in self.variables]

    def stateless_result(self, metric_variables):
        """``result()`` computed from ``metric_variables`` instead of the variables."""
        mapping = list(zip(self.variables, self._check_values(metric_variables)))
        with StatelessScope(state_mapping=mapping):
            return self.result()

    def stateless_reset_state(self) -> list:
        """The variables' values after ``reset_state()``, leaving the variables as they are."""
        with StatelessScope() as scope:
            self.reset_state()
        return [scope.get_current_value(v) for v in self.variables]

    def reset_state(self) -> None:
        """Set every state variable back to zero (called at the start of each epoch)."""
        for v in self.variables:
            v.assign(ops.zeros(v.shape, dtype=v.dtype))

    def update_state(self, *args, **kwargs) -> None:
        raise NotImplementedError(f"{type(self).__name__}: Metric subclasses must implement "
                                  f"update_state(...)")

    def result(self):
        raise NotImplementedError(f"{type(self).__name__}: Metric subclasses must implement "
                                  f"result()")

    def __call__(self, *args, **kwargs):
        self._check_super_called()
        self.update_state(*args, **kwargs)
        return self.result()

    def get_config(self) -> dict:
        return {"name": self.name, "dtype": self.dtype}

    @classmethod
    def from_config(cls, config: dict) -> "Metric":
        return cls(**config)

    def __setattr__(self, attr, value):
        # Metrics held as attributes, also in lists and dicts, contribute their variables
        # (Keras's tracker).
        if "_metrics" in self.__dict__ and not attr.startswith("_"):
            for metric in _metrics_in(value):
                if not any(metric is m for m in self._metrics):
                    self._metrics.append(metric)
        super().__setattr__(attr, value)

    def _check_super_called(self) -> None:
        if "_variables" not in self.__dict__:
            raise RuntimeError(f"{type(self).__name__}: call super().__init__() in __init__ "
                               f"before creating state variables or using the metric")

    def __repr__(self) -> str:
        return f"<{type(self).__name__} name={self.name}>"


def _walk(value):
    if isinstance(value, (list, tuple)):
        for item in value:
            yield from _walk(item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from _walk(item)
    else:
        yield value


def _variables_in(value) -> list:
    return [v for v in _walk(value) if isinstance(v, Variable)]


def _metrics_in(value) -> list:
    return [m for m in _walk(value) if isinstance(m, Metric)]
