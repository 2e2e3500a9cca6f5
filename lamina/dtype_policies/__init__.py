"""Keras 3's ``keras.dtype_policies``: the policies layers take as ``dtype=``.

QuantizedDTypePolicy is the int8 layers' policy (``int8_from_float32``); Keras's int4,
float8, GPTQ and AWQ policies are not implemented (tests/api/api_walk.py says why).
"""
from .dtype_policy import (DTypePolicy, FloatDTypePolicy, dtype_policy, reset_dtype_policy,
                           set_dtype_policy)
from .dtype_policy_map import DTypePolicyMap
from .lookup import deserialize, get, serialize
from .quantized import QUANTIZATION_MODES, QuantizedDTypePolicy
import sys as _sys

# set_dtype_policy("int8_from_float32"): the module (not the function of the same name).
_sys.modules[f"{__name__}.dtype_policy"]._policy_from_name = get

__all__ = ["DTypePolicy", "FloatDTypePolicy", "DTypePolicyMap", "get", "serialize",
           "deserialize", "QuantizedDTypePolicy"]
