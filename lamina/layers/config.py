"""Layer configuration: dtype policies and ``get_config`` / ``from_config``."""
from __future__ import annotations

import inspect

from ..dtypes import floatx, standardize

_PLAIN = (str, int, float, bool, type(None))


def _is_plain(value) -> bool:
    if isinstance(value, (list, tuple)):
        return all(_is_plain(v) for v in value)
    if isinstance(value, dict):
        return all(isinstance(k, str) and _is_plain(v) for k, v in value.items())
    return isinstance(value, _PLAIN)


def policy_name(dtype) -> str:
    """A dtype policy's name from a dtype, a policy name or Keras's DTypePolicy config."""
    if dtype is None:
        return floatx()
    if isinstance(dtype, dict):              # {"class_name": "DTypePolicy", "config": {...}}
        return policy_name(dtype.get("config", {}).get("name"))
    name = getattr(dtype, "name", dtype)
    if isinstance(name, str) and name.startswith("mixed_"):
        if name != "mixed_float16":
            raise ValueError(f"dtype policy {name!r} is not supported; use 'mixed_float16', "
                             f"'float16', 'float32' or 'float64'")
        return name
    return standardize(name)


class LayerConfigMixin:
    """dtype policy attributes and Keras's config protocol, shared by layers and models."""

    def _set_dtype_policy(self, dtype) -> None:
        name = policy_name(dtype)
        self.dtype_policy = name
        if name == "mixed_float16":
            self.variable_dtype, self.compute_dtype = "float32", "float16"
        else:
            self.variable_dtype = self.compute_dtype = name

    @property
    def dtype(self) -> str:
        """The dtype of the layer's weights (Keras 3's ``layer.dtype``)."""
        return self.variable_dtype

    def get_config(self) -> dict:
        """The constructor arguments, merged with name, trainable and dtype.

        Subclasses extend it; a subclass whose constructor takes only plain values
        (numbers, strings, lists) gets them recorded automatically, as in Keras 3.
        """
        config = {"name": self.name, "trainable": self.trainable,
                  "dtype": {"module": "keras", "class_name": "DTypePolicy",
                            "config": {"name": self.dtype_policy}, "registered_name": None}}
        if getattr(self, "activity_regularizer", None) is not None:   # Keras's base rule
            from .. import regularizers
            config["activity_regularizer"] = regularizers.serialize(self.activity_regularizer)
        if type(self).get_config is not LayerConfigMixin.get_config:
            return config
        extra = self._auto_config()
        if extra is None:
            raise NotImplementedError(
                f"{type(self).__name__}.get_config: the layer's constructor takes arguments "
                f"that are not plain values; override get_config() (and from_config()) to "
                f"describe them")
        return {**config, **extra}

    def _auto_config(self) -> dict | None:
        init = type(self).__init__
        if init is LayerConfigMixin.__init__ or getattr(init, "__module__", "").startswith(
                "lamina."):
            return {}
        args, kwargs = self.__dict__.get("_init_arguments", ((), {}))
        try:
            bound = inspect.signature(init).bind(self, *args, **kwargs)
        except TypeError:
            return None
        values = {k: v for k, v in bound.arguments.items() if k != "self"}
        for param in inspect.signature(init).parameters.values():
            if param.kind == param.VAR_KEYWORD and param.name in values:
                values.update(values.pop(param.name))
            elif param.kind == param.VAR_POSITIONAL and param.name in values:
                if values.pop(param.name):
                    return None
        values = {k: v for k, v in values.items() if k not in ("name", "trainable", "dtype")}
        return values if _is_plain(values) else None

    @classmethod
    def from_config(cls, config: dict):
        """A new, unbuilt instance from ``get_config()``'s output."""
        return cls(**config)
