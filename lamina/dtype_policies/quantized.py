"""``QuantizedDTypePolicy``: the policy of a quantized layer, ``"<mode>_from_<source>"``.

A layer quantized with ``layer.quantize("int8")`` takes ``int8_from_float32`` (its source
policy's name behind the mode): it computes and keeps its float variables (bias, scales) in
the source policy's dtypes, while its kernel is int8. A layer created with such a policy
(a quantized model loaded from a file) builds its int8 variables directly.

Lamina implements the ``int8`` mode; Keras's other modes (int4, float8, GPTQ, AWQ) are
named in the errors so a file that uses them fails clearly.
"""
from __future__ import annotations

from ..registry import register_builtin
from .dtype_policy import DTypePolicy, dtype_policy

QUANTIZATION_MODES = ("int8", "float8", "int4", "gptq", "awq")
"""Keras 3.15.1's quantization modes (the ones its errors list)."""
SUPPORTED_MODES = ("int8",)


def check_known_mode(mode) -> None:
    """Keras's error for a mode it does not know."""
    if mode not in QUANTIZATION_MODES:
        raise ValueError(f"Invalid quantization mode. Expected one of {QUANTIZATION_MODES}. "
                         f"Received: mode={mode}")


def check_mode(mode, compute_dtype=None) -> None:
    """Raise Keras's errors for a mode it does not know, and Lamina's for one it knows
    but Lamina does not implement (a ValueError, so ``Model.quantize`` stops at once
    rather than skipping every layer)."""
    check_known_mode(mode)
    if mode not in SUPPORTED_MODES:
        raise ValueError(f"Quantization mode '{mode}' is not implemented in Lamina; "
                                  f"it implements {SUPPORTED_MODES}")
    if compute_dtype == "float16":
        raise ValueError(f"Quantization mode='{mode}' doesn't work well with "
                         f"compute_dtype='float16'.")


@register_builtin
class QuantizedDTypePolicy(DTypePolicy):
    """``mode`` (``"int8"``) applied to the policy named ``source_name`` (the global
    policy's name when None): name ``f"{mode}_from_{source_name}"``, the source's compute
    and variable dtypes, ``quantization_mode == mode``."""

    _keras_module = "keras.dtype_policies"

    def __init__(self, mode, source_name=None):
        if source_name is None:
            source_name = dtype_policy().name
        self._compute_dtype, self._variable_dtype = self._parse_name(source_name)
        check_mode(mode, self._compute_dtype)
        self._name = f"{mode}_from_{source_name}"
        self._source_name = source_name
        self._quantization_mode = mode

    def __eq__(self, other) -> bool:
        return (type(other) is type(self) and self._name == other._name
                and self._quantization_mode == other._quantization_mode
                and self._source_name == other._source_name)

    __hash__ = DTypePolicy.__hash__

    def get_config(self) -> dict:
        return {"mode": self._quantization_mode, "source_name": self._source_name}


def quantized_policy_from_name(name: str) -> QuantizedDTypePolicy:
    """``"int8_from_float32"`` -> ``QuantizedDTypePolicy("int8", "float32")``."""
    parts = name.split("_from_")
    if len(parts) != 2:
        raise ValueError(f"Cannot convert `policy` into a valid pair (`mode`, `source_name`) "
                         f"to instantiate `QuantizedDTypePolicy`. Received: policy={name}")
    mode, source_name = parts
    return QuantizedDTypePolicy(mode, source_name)
