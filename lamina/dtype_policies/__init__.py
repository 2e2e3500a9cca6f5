"""Keras 3's ``keras.dtype_policies``: the policies layers take as ``dtype=``.

The quantized policies (QuantizedDTypePolicy, Int4/GPTQ/AWQ/float8) come with quantization
(a later issue).
"""
from .dtype_policy import (DTypePolicy, FloatDTypePolicy, dtype_policy, reset_dtype_policy,
                           set_dtype_policy)
from .dtype_policy_map import DTypePolicyMap
from .lookup import deserialize, get, serialize

__all__ = ["DTypePolicy", "FloatDTypePolicy", "DTypePolicyMap", "get", "serialize",
           "deserialize"]
