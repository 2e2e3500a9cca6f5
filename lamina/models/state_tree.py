"""``get_state_tree`` / ``set_state_tree``: a model's variables as nested dicts keyed by
their paths (Keras 3's ``Model`` methods)."""
from __future__ import annotations

_GROUPS = ("trainable_variables", "non_trainable_variables", "optimizer_variables",
           "metrics_variables")
_FORMATS = ("backend_tensor", "numpy_array")


class StateTreeMixin:
    """Mixed into ``Model``."""

    def _state_group(self, group: str) -> list:
        if group == "optimizer_variables":
            optimizer = getattr(self, "optimizer", None)
            return list(optimizer.variables) if optimizer is not None else []
        if group == "metrics_variables":
            return list(getattr(self, "metrics_variables", None) or [])
        return list(getattr(self, group))

    def get_state_tree(self, value_format: str = "backend_tensor") -> dict:
        """``{"trainable_variables": {"dense": {"kernel": ...}}, "non_trainable_variables":
        ..., "optimizer_variables": {"adam": {"iteration": ...}}, "metrics_variables":
        ...}``: each variable's value under its path split at ``/``; the values are
        tensors, or numpy arrays with ``value_format="numpy_array"``."""
        if value_format not in _FORMATS:
            raise ValueError(f"{self.name}.get_state_tree: Invalid `value_format` argument. "
                             f"Expected one of {{'numpy_array', 'backend_tensor'}}. "
                             f"Received: value_format={value_format!r}")
        return {group: _nested(self.name, self._state_group(group), value_format)
                for group in _GROUPS}

    def _get_variable_map(self) -> dict:
        """``{variable.path: variable}`` for every variable of the model, its optimizer and
        its metrics (Keras 3's ``Model._get_variable_map``, which exporters read).

        Raises:
            ValueError: If two variables share a path.
        """
        found: dict = {}
        for group in _GROUPS:
            for variable in self._state_group(group):
                other = found.get(variable.path)
                if other is not None and other is not variable:
                    raise ValueError(f"{self.name}._get_variable_map: The model contains "
                                     f"two variables with a duplicate path: "
                                     f"path='{variable.path}' appears at least twice; give "
                                     f"your layers (and other objects) unique names")
                found[variable.path] = variable
        return found

    def set_state_tree(self, state_tree: dict) -> None:
        """Assign the values of a tree shaped as :meth:`get_state_tree`'s to the variables
        of the same paths (paths the model lacks are ignored, as in Keras)."""
        if not isinstance(state_tree, dict):
            raise TypeError(f"{self.name}.set_state_tree: argument 'state_tree' must be a "
                            f"dict; received {type(state_tree).__name__}")
        for group, subtree in state_tree.items():
            if group not in _GROUPS:
                raise ValueError(f"{self.name}.set_state_tree: Unknown variable name: "
                                 f"{group!r}; expected keys among {list(_GROUPS)}")
            values = _flat(subtree)
            for variable in self._state_group(group):
                if variable.path in values:
                    variable.assign(values[variable.path])


def _nested(model_name: str, variables, value_format: str) -> dict:
    flat = {}
    for variable in variables:
        if variable.path in flat:
            raise ValueError(f"{model_name}.get_state_tree: The following variable path is "
                             f"found twice in the model: '{variable.path}'. get_state_tree() "
                             f"needs unique variable paths: give your layers (and other "
                             f"objects) unique names")
        flat[variable.path] = (variable.numpy() if value_format == "numpy_array"
                               else variable.value)
    tree: dict = {}
    for path, value in flat.items():
        *parents, leaf = path.split("/")
        node = tree
        for part in parents:
            node = node.setdefault(part, {})
        node[leaf] = value
    return tree


def _flat(subtree, prefix: str = "") -> dict:
    flat = {}
    for key, value in subtree.items():
        if isinstance(value, dict):
            flat.update(_flat(value, f"{prefix}{key}/"))
        else:
            flat[f"{prefix}{key}"] = value
    return flat
