"""``keras.dtype_policies.get``: a policy from a name, a config dict or a policy."""
from __future__ import annotations

from ..dtypes import standardize
from ..registry import deserialize_keras_object, serialize_keras_object
from .dtype_policy import DTypePolicy, dtype_policy
from .quantized import QUANTIZATION_MODES, quantized_policy_from_name


def get(identifier) -> DTypePolicy:
    """Return a dtype policy from an identifier.

    Args:
        identifier: ``None`` (the global policy); a ``DTypePolicy`` (returned as is); a
            config dict (deserialized); a string or a dtype (``DTypePolicy(name)``); or a
            quantized name such as ``"int8_from_float32"`` (its quantized policy).

    Returns:
        The ``DTypePolicy``.

    Raises:
        ValueError: If ``identifier`` cannot be read as a policy.

    Example:

    >>> get("int8_from_float32")
    <QuantizedDTypePolicy "int8_from_float32">
    """
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
    """Return the config of a dtype policy, as Keras 3 writes it.

    Args:
        dtype_policy: A ``DTypePolicy``.

    Returns:
        A dict ``{"module", "class_name", "config", "registered_name"}``.

    Example:

    >>> serialize(DTypePolicy("float16"))["config"]
    {'name': 'float16'}
    """
    return serialize_keras_object(dtype_policy)


def deserialize(config, custom_objects=None) -> DTypePolicy:
    """Rebuild a dtype policy from its config.

    Args:
        config: A dict made by :func:`serialize` (or read from a Keras file).
        custom_objects: An optional dict of name -> class for user-defined policies.

    Returns:
        The ``DTypePolicy``.

    Example:

    >>> deserialize(serialize(DTypePolicy("float16")))
    <DTypePolicy "float16">
    """
    return deserialize_keras_object(config, custom_objects,
                                    kind="dtype policy")
