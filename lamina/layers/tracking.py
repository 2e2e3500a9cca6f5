"""Keras 3's Layer helpers for what a layer holds: its sublayers flattened
(``_flatten_layers``), the metrics assigned as its attributes (``metrics``,
``metrics_variables``) and forgetting a weight (``_untrack_variable``)."""
from __future__ import annotations

from ..core import structure


class LayerTrackingMixin:
    """Mixed into :class:`~lamina.layers.Layer`; relies on its ``_sublayers()`` and weight
    lists."""

    def _flatten_layers(self, include_self: bool = True, recursive: bool = True) -> list:
        """This layer (with ``include_self``) and its sublayers, each once (Keras 3's helper
        and order: the direct sublayers in order, each followed by its own sublayers in
        reverse order); ``recursive=False`` stops at the direct sublayers."""
        result, seen = [self] if include_self else [], set()
        pending = list(self._sublayers())
        while pending:
            layer = pending.pop(0)
            if id(layer) in seen:
                continue
            seen.add(id(layer))
            result.append(layer)
            if recursive:
                pending[:0] = reversed(layer._sublayers())
        return result

    def _untrack_variable(self, variable) -> None:
        """Forget ``variable`` as a weight of this layer (Keras 3's hook, e.g. before
        replacing it with one of another dtype); returns None, so
        ``self.w = self._untrack_variable(self.w)`` clears the attribute too."""
        for store in (self._trainable_variables, self._non_trainable_variables):
            store[:] = [v for v in store if v is not variable]
        structure.changed()                 # compiled steps hold the old weight list

    # ---------------------------------------------------------------- metrics
    @property
    def metrics(self) -> list:
        """The metrics assigned as attributes of this layer, then its sublayers' (Keras 3)."""
        result = [v for v in self.__dict__.values() if _is_metric(v)]
        for layer in self._sublayers():
            result.extend(m for m in layer.metrics if all(m is not r for r in result))
        return result

    @property
    def metrics_variables(self) -> list:
        """The variables of :attr:`metrics`, in that order (Keras 3)."""
        return [variable for metric in self.metrics for variable in metric.variables]


def _is_metric(value) -> bool:
    """A lamina.metrics.Metric (metrics sit above layers, so by its methods)."""
    return not isinstance(value, type) and not hasattr(value, "_sublayers") and all(
        callable(getattr(type(value), name, None))
        for name in ("update_state", "result", "reset_state"))
