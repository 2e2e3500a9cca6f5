"""Layer configuration: dtype policies and ``get_config`` / ``from_config``."""
from __future__ import annotations

import inspect

from .. import dtype_policies, regularizers
from ..dtype_policies import DTypePolicy, DTypePolicyMap

_PLAIN = (str, int, float, bool, type(None))


def _is_plain(value) -> bool:
    if isinstance(value, (list, tuple)):
        return all(_is_plain(v) for v in value)
    if isinstance(value, dict):
        return all(isinstance(k, str) and _is_plain(v) for k, v in value.items())
    return isinstance(value, _PLAIN)


_KERAS2_POLICIES = ("Policy", "PolicyV1")


def layer_policy(dtype) -> DTypePolicy:
    """A layer's policy from its ``dtype`` argument: None (the global policy), a name, a
    dtype, a DTypePolicy or its config (Keras 2's ``Policy`` configs included)."""
    if isinstance(dtype, dict) and dtype.get("class_name") in _KERAS2_POLICIES:
        dtype = (dtype.get("config") or {}).get("name")
    return dtype_policies.get(dtype)


class LayerConfigMixin:
    """dtype policy attributes and Keras's config protocol, shared by layers and models."""

    def _set_dtype_policy(self, dtype) -> None:
        self.__dict__["_dtype_policy"] = layer_policy(dtype)

    @property
    def dtype_policy(self) -> DTypePolicy:
        """The layer's DTypePolicy (Keras 3); assigning a name or policy replaces it."""
        return self.__dict__["_dtype_policy"]

    @dtype_policy.setter
    def dtype_policy(self, value) -> None:
        current = self.__dict__.get("_dtype_policy")
        policy = layer_policy(value)
        if policy.quantization_mode == "gptq" and self.built and \
                not getattr(self, "_is_quantized", False):
            raise ValueError(f"{self.name}: Implicitly enabling GPTQ quantization by setting "
                             f"`dtype_policy` to '{value}' is not supported: GPTQ needs a "
                             f"calibration dataset and a `GPTQConfig` object. Call "
                             f"`.quantize('gptq', config=...)` on the layer or model instead.")
        if isinstance(current, DTypePolicyMap) and self.path:
            if self.path in current:          # a layer given a map keeps it (Keras)
                del current[self.path]
            current[self.path] = policy
        else:
            self.__dict__["_dtype_policy"] = policy
        mode = self._path_policy().quantization_mode
        if mode is not None and self.built and not getattr(self, "_is_quantized", False):
            self.quantize(mode)          # a quantized policy on a built float layer (Keras)

    def _path_policy(self) -> DTypePolicy:
        """The policy that applies to this layer: its own, or, when it was given a
        DTypePolicyMap, the map's policy for the layer's path (Keras 3)."""
        policy = self.__dict__["_dtype_policy"]
        if isinstance(policy, DTypePolicyMap) and self.path:
            return policy[self.path]
        return policy

    @property
    def compute_dtype(self) -> str:
        """The dtype the layer computes in (its outputs' dtype)."""
        return self._path_policy().compute_dtype

    @property
    def variable_dtype(self) -> str:
        """The dtype the layer creates its weights in."""
        return self._path_policy().variable_dtype

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
                  "dtype": dtype_policies.serialize(self.dtype_policy)}
        if getattr(self, "activity_regularizer", None) is not None:   # Keras's base rule
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
        """A new, unbuilt instance from ``get_config()``'s output. A serialized dtype
        policy reaches ``__init__`` as Keras passes it: a plain policy as its name, a
        quantized policy (or a policy map) as the policy object."""
        dtype = config.get("dtype")
        if isinstance(dtype, dict):
            policy = dtype_policies.deserialize(dtype)
            if not isinstance(policy, DTypePolicyMap) and policy.quantization_mode is None:
                policy = policy.name
            config = {**config, "dtype": policy}
        return cls(**config)
