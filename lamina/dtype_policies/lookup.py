"""``keras.dtype_policies.get``: a policy from a name, a config dict or a policy."""
from __future__ import annotations

from ..dtypes import standardize
from ..registry import deserialize_keras_object, serialize_keras_object
from .dtype_policy import DTypePolicy, dtype_policy
from .quantized import QUANTIZATION_MODES, quantized_policy_from_name


def get(identifier) -> DTypePolicy:
    """None: the global policy; a DTypePolicy: itself; a dict: its deserialization; a
    string or a dtype: ``DTypePolicy(name)``; a quantized name (``"int8_from_float32"``):
    its QuantizedDTypePolicy."""
    if identifier is None:
        return dtype_policy()
    if isinstance(identifier, DTypePolicy):
        return identifier
    if isinstance(identifier, dict):
        return deserialize(identifier)
    if isinstance(identifier, str):
        if identifier.startswith(QUANTIZATION_MODES):
            return quantized_policy_from_name(identifier)
        return DTypePolicy(identifier)
    try:
        return DTypePolicy(standardize(identifier))
    except Exception:
        raise ValueError(f"dtype_policies.get: cannot interpret {identifier!r} as a dtype "
                         f"policy; expected a string, a dtype or a DTypePolicy") from None


def serialize(dtype_policy) -> dict:
    """Keras 3's ``{"module", "class_name", "config", "registered_name"}`` of a policy."""
    return serialize_keras_object(dtype_policy)


def deserialize(config, custom_objects=None) -> DTypePolicy:
    """The policy a :func:`serialize` config (or a Keras file's) describes."""
    return deserialize_keras_object(config, custom_objects,
                                    kind="dtype policy")
