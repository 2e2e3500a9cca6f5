"""``DTypePolicyMap``: dtype policies by layer path (Keras 3's ``keras.dtype_policies``)."""
from __future__ import annotations

import re
from collections.abc import MutableMapping

from ..registry import deserialize_keras_object, register_builtin, serialize_keras_object
from .dtype_policy import DTypePolicy
from .lookup import get


@register_builtin
class DTypePolicyMap(DTypePolicy, MutableMapping):
    """A dtype policy per layer path, for models whose layers differ.

    Keys are layer paths (``"encoder/dense"``) or regular expressions that must match a
    whole path (``"encoder/.*"``); a path no key matches gets ``default_policy``. Used as a
    policy, the map behaves as its default policy.

    Args:
        default_policy: The policy of the paths no key matches: a ``DTypePolicy`` or a
            name (not a ``DTypePolicyMap``); ``None`` (default) takes the global policy.
        policy_map: An optional dict of path or regex -> policy (or policy name).

    Raises:
        ValueError: If ``default_policy`` is a ``DTypePolicyMap``.
        TypeError: If ``policy_map`` is not a dict.

    Example:

    >>> policies = DTypePolicyMap()
    >>> policies["encoder/dense"] = "bfloat16"
    >>> policies["encoder/dense"].name, policies["decoder/dense"].name
    ('bfloat16', 'float32')
    """

    _keras_module = "keras.dtype_policies"

    def __init__(self, default_policy=None, policy_map=None):
        if isinstance(default_policy, DTypePolicyMap):
            raise ValueError("DTypePolicyMap: argument 'default_policy' cannot be a "
                             "DTypePolicyMap")
        if policy_map is not None and not isinstance(policy_map, dict):
            raise TypeError(f"DTypePolicyMap: argument 'policy_map' must be a dict; received "
                            f"{policy_map!r} (of type {type(policy_map).__name__})")
        self._default_policy_arg = default_policy
        self._default_policy = get(default_policy)
        self._policy_map = {}
        for key, policy in (policy_map or {}).items():
            self[key] = policy
        self._quantization_mode = None

    @property
    def name(self) -> str:
        return f"map_{self.default_policy.name}"

    @property
    def default_policy(self) -> DTypePolicy:
        return get(self._default_policy)

    @property
    def compute_dtype(self) -> str:
        return self.default_policy.compute_dtype

    @property
    def variable_dtype(self) -> str:
        return self.default_policy.variable_dtype

    @property
    def quantization_mode(self):
        return self.default_policy.quantization_mode

    def __getitem__(self, key: str) -> DTypePolicy:
        """The policy of path ``key``: an exact key first, else the one pattern that
        fully matches it, else the default policy."""
        if key in self._policy_map:
            return self._policy_map[key]
        matches = [pattern for pattern in self._policy_map if re.fullmatch(pattern, key)]
        if len(matches) > 1:
            raise ValueError(f"DTypePolicyMap: path {key!r} matches several keys {matches}; "
                             f"each path may match at most one key")
        return self._policy_map[matches[0]] if matches else self.default_policy

    def __setitem__(self, key: str, policy) -> None:
        if key in self._policy_map:
            raise ValueError(f"DTypePolicyMap: key {key!r} is already set (to "
                             f"{self._policy_map[key]!r}); keys cannot be reassigned")
        try:
            policy = get(policy)
        except (TypeError, ValueError):
            raise ValueError(f"DTypePolicyMap: the value for key {key!r} must be a dtype "
                             f"policy or its name; received {policy!r}") from None
        self._policy_map[key] = policy

    def __delitem__(self, key: str):
        return self._policy_map.pop(key)

    def __contains__(self, key) -> bool:
        return key in self._policy_map

    def __len__(self) -> int:
        return len(self._policy_map)

    def __iter__(self):
        return iter(self._policy_map)

    __eq__ = object.__eq__
    __hash__ = object.__hash__

    def get_config(self) -> dict:
        return {"default_policy": self._default_policy_arg,
                "policy_map": serialize_keras_object(self._policy_map)}

    @classmethod
    def from_config(cls, config: dict, custom_objects=None):
        config = dict(config)
        config["policy_map"] = {key: deserialize_keras_object(value, custom_objects)
                                for key, value in (config.get("policy_map") or {}).items()}
        return cls(**config)

    def __repr__(self) -> str:
        mapping = [(key, policy.name) for key, policy in self._policy_map.items()]
        return (f"<DTypePolicyMap default_policy={self._default_policy.name} "
                f"mapping={mapping}>")
