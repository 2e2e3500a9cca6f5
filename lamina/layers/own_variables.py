"""Keras 3's per-layer saving hooks, ``save_own_variables`` / ``load_own_variables``, and
the error type of misused layers."""
from __future__ import annotations

from ..errors import LaminaError, describe_shape


class LayerError(LaminaError, ValueError):
    """A layer was misused (bad argument values, incompatible inputs)."""


class OwnVariablesMixin:
    """The default hooks ``model.save`` / ``save_weights`` and the loaders call per layer."""

    def save_own_variables(self, store) -> None:
        """Write this layer's own state into ``store``, a dict-like object (Keras 3's hook:
        ``model.save`` and ``save_weights`` call it once per layer). The default writes the
        layer's own weights (not its sublayers', which save themselves) as ``store["0"]``,
        ``store["1"]``, ... in Keras's order. Override it together with
        :meth:`load_own_variables` to store other arrays (any string keys) or transform
        them."""
        for i, variable in enumerate(_own_saved_variables(self)):
            store[str(i)] = variable

    def load_own_variables(self, store) -> None:
        """Read back what :meth:`save_own_variables` wrote (``load_model`` and
        ``load_weights`` call it once per layer); the default checks that ``store`` holds
        one array of the right shape per own weight, then assigns them."""
        variables = _own_saved_variables(self)
        keys = list(store.keys())
        if len(keys) != len(variables):
            if not variables and not self.built:
                raise LayerError(
                    f"Layer '{self.name}' was never built and thus it doesn't have any "
                    f"variables. However the weights file lists {len(keys)} variables for "
                    f"this layer; build it (call it on data, or give it build_from_config) "
                    f"before loading")
            raise LayerError(
                f"Layer '{self.name}' expected {len(variables)} variables, but received "
                f"{len(keys)} variables during loading. Expected: "
                f"{[v.name for v in variables]}; received keys {sorted(keys)}")
        values = []
        for i, variable in enumerate(variables):
            if str(i) not in store:
                raise LayerError(f"Layer '{self.name}': the stored variables should be named "
                                 f"'0' to '{len(variables) - 1}'; received keys {sorted(keys)}")
            value = store[str(i)]
            shape = tuple(getattr(value, "shape", ()))
            if shape != tuple(variable.shape):
                raise LayerError(f"Layer '{self.name}': variable {i} '{variable.name}' has "
                                 f"shape {describe_shape(variable.shape)}; the stored value "
                                 f"has shape {describe_shape(shape)}")
            values.append(value)
        for variable, value in zip(variables, values):
            variable.assign(value)


def _own_saved_variables(layer) -> list:
    """A layer's own weights in Keras's saved order (a quantized layer's differs)."""
    saved = layer._saved_variables()
    if saved is not None:
        return saved
    return list(layer._trainable_variables) + list(layer._non_trainable_variables)
