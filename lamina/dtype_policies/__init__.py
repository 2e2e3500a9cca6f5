"""Keras 3's ``keras.dtype_policies``: the policies layers take as ``dtype=``.

The quantized layers' policies: QuantizedDTypePolicy (``int8_from_float32``,
``int4_from_float32``), Int4DTypePolicy (``int4/128_from_float32``),
QuantizedFloat8DTypePolicy (``float8_from_float32``), GPTQDTypePolicy
(``gptq/4/128_from_float32``) and AWQDTypePolicy (``awq/4/128_from_float32``).
"""
from .dtype_policy import (DTypePolicy, FloatDTypePolicy, dtype_policy, reset_dtype_policy,
                           set_dtype_policy)
from .dtype_policy_map import DTypePolicyMap
from .lookup import deserialize, get, serialize
from .quantized import (QUANTIZATION_MODES, AWQDTypePolicy, GPTQDTypePolicy,
                        Int4DTypePolicy, QuantizedDTypePolicy, QuantizedFloat8DTypePolicy)
import sys as _sys

# set_dtype_policy("int8_from_float32"): the module (not the function of the same name).
_sys.modules[f"{__name__}.dtype_policy"]._policy_from_name = get

__all__ = ["DTypePolicy", "FloatDTypePolicy", "DTypePolicyMap", "get", "serialize",
           "deserialize", "QuantizedDTypePolicy", "QuantizedFloat8DTypePolicy", "Int4DTypePolicy",
           "GPTQDTypePolicy", "AWQDTypePolicy"]
