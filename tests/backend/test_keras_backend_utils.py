"""keras.backend's helpers: get_uid, standardize_dtype, is_float_dtype/is_int_dtype,
is_keras_tensor, result_type (Keras 3.15.1's own table in
tests/fixtures/keras_result_type.json) and clear_session(free_memory)."""
import json
import os

import numpy as np
import pytest

import lamina
from lamina import backend
from lamina.errors import DTypeError

with open(os.path.join(os.path.dirname(__file__), "..", "fixtures",
                       "keras_result_type.json")) as _f:
    KERAS = json.load(_f)
# Keras (like JAX without x64) turns 64-bit results into 32-bit ones; Lamina keeps them.
TO_32 = {"int64": "int32", "uint64": "uint32", "float64": "float32"}


@pytest.mark.parametrize("pair", sorted(KERAS["pairs"]))
def test_result_type_is_keras_lattice(pair):
    ours = backend.result_type(*pair.split(","))
    assert TO_32.get(ours, ours) == KERAS["pairs"][pair]
    if ours not in TO_32:
        assert ours == KERAS["pairs"][pair]


def test_result_type_weak_python_types():
    weak = KERAS["weak"]
    assert backend.result_type("int32", float) == weak["int32,float"]
    assert backend.result_type("float16", int) == weak["float16,int"]
    assert backend.result_type(int, float) == weak["int,float"]
    assert backend.result_type("uint8", int) == weak["uint8,int"]
    assert backend.result_type("int8", "uint8", "float16") == weak["int8,uint8,float16"]
    assert backend.result_type(int) == weak["int"]
    assert backend.result_type("bool", int) == weak["bool,int"]
    assert backend.result_type() == weak[""]
    with pytest.raises(DTypeError, match=r"result_type: expected dtypes among"):
        backend.result_type("string")


def test_get_uid_counts_per_prefix_and_clear_session_resets():
    backend.clear_session()
    assert [backend.get_uid("dense"), backend.get_uid("dense"), backend.get_uid("conv")] == \
        [1, 2, 1]
    backend.clear_session(free_memory=False)
    assert backend.get_uid("dense") == 1


def test_dtype_names_and_tests():
    assert backend.standardize_dtype(int) == "int32"
    assert backend.standardize_dtype(float) == "float32"
    assert backend.standardize_dtype(np.float64) == "float64"
    assert backend.standardize_dtype(None) == "float32"
    assert backend.is_float_dtype("bfloat16") and backend.is_float_dtype(np.float16)
    assert not backend.is_float_dtype("int8")
    assert backend.is_int_dtype("uint8") and not backend.is_int_dtype("bool")


def test_is_keras_tensor():
    symbol = lamina.Input((3,))
    assert backend.is_keras_tensor(symbol)
    assert backend.is_keras_tensor(lamina.layers.Dense(2)(symbol))
    assert not backend.is_keras_tensor(lamina.ops.ones((2,)))
    assert not backend.is_keras_tensor(np.ones(2))


def test_set_floatx_takes_keras_argument_name():
    try:
        lamina.config.set_floatx(value="float64")
        assert lamina.config.floatx() == "float64"
    finally:
        lamina.config.set_floatx("float32")
