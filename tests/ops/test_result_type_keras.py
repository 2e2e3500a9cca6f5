"""Type promotion equals Keras 3.15.1's (keras.backend.result_type on JAX) for every pair
of Keras's dtypes (complex ones included) and Python's int/float (weak) and complex, in
``backend.result_type`` and in the dtypes of binary ops, eager and symbolic. The table is
tests/fixtures/keras_result_type_grid.json (written by make_result_type_grid.py).

Keras on JAX turns every 64-bit result into its 32-bit kind. Lamina does so where no input
is 64-bit (uint32 with int16 is int32, as in Keras) and computes in 64 bits where an input
is: there the result is Keras's lattice before that last step (its "lattice" column)."""
import json
import os

import numpy as np
import pytest

import lamina
from lamina import backend as lamina_backend
from lamina import ops

with open(os.path.join(os.path.dirname(__file__), "..", "fixtures",
                       "keras_result_type_grid.json")) as _f:
    KERAS = json.load(_f)
TO_32 = {"int64": "int32", "uint64": "uint32", "float64": "float32",
         "complex128": "complex64"}
PYTHON = {"int": int, "float": float, "complex": complex}
SCALARS = {"int": 3, "float": 1.5, "pybool": True, "pycomplex": 0.5 - 2j}


def spelled(name):
    return PYTHON.get(name, name)


def test_fixture_covers_the_full_grid():
    names = ["bool", "uint8", "uint16", "uint32", "uint64", "int8", "int16", "int32",
             "int64", "bfloat16", "float16", "float32", "float64", "complex64", "complex128",
             "int", "float", "complex"]
    assert len(KERAS["result_type"]) == len(names) * (len(names) + 1) // 2
    assert KERAS["keras_version"] == "3.15.1" and KERAS["backend"] == "jax"


def test_result_type_grid_is_keras():
    wrong = []
    for pair, keras in sorted(KERAS["result_type"].items()):
        a, b = pair.split(",")
        # a 64-bit input keeps 64 bits: Keras's lattice before its 64 -> 32 step
        want = KERAS["lattice"][pair] if TO_32.keys() & {a, b} else keras
        for args in ((a, b), (b, a)):
            ours = lamina_backend.result_type(*map(spelled, args))
            if ours != want or TO_32.get(ours, ours) != keras:
                wrong.append(f"{args}: {ours} (Keras {keras})")
    assert not wrong, wrong


def test_mixed_sign_integers_named_in_the_issue():
    assert lamina_backend.result_type("uint32", "int16") == "int32"
    assert lamina_backend.result_type("uint8", "int8") == "int16"
    assert lamina_backend.result_type("uint16", "int8") == "int32"
    assert lamina_backend.result_type("uint32", "int64") == "int64"


def _operands(a, b, symbolic):
    if symbolic:
        x = lamina.Input(shape=(2,), dtype=a)
        y = SCALARS[b] if b in SCALARS else lamina.Input(shape=(2,), dtype=b)
        cond = lamina.Input(shape=(2,), dtype="bool")
    else:
        x = ops.ones((2,), dtype=a)
        y = SCALARS[b] if b in SCALARS else ops.ones((2,), dtype=b)
        cond = ops.convert_to_tensor([True, False])
    return cond, x, y


def _op_dtypes(a, b, symbolic):
    cond, x, y = _operands(a, b, symbolic)
    out = {"add": ops.add(x, y).dtype, "multiply": ops.multiply(x, y).dtype,
           "maximum": ops.maximum(x, y).dtype, "where": ops.where(cond, x, y).dtype}
    if b not in SCALARS:
        out["concatenate"] = ops.concatenate([x, y]).dtype
    return out


@pytest.mark.parametrize("symbolic", [False, True], ids=["eager", "symbolic"])
def test_binary_op_dtypes_are_keras(symbolic):
    wrong = []
    for pair, keras in sorted(KERAS["ops"].items()):
        ours = _op_dtypes(*pair.split(","), symbolic)
        if ours != keras:
            wrong.append(f"{pair}: {ours} (Keras {keras})")
    assert len(KERAS["ops"]) == 165 and not wrong, wrong


def test_mixed_sign_values_are_keras(backend):
    # Keras 3.15.1 on JAX: both operands are cast to the promoted dtype first
    u8 = ops.convert_to_tensor(np.array([200, 255, 3], "uint8"))
    i8 = ops.convert_to_tensor(np.array([-100, 127, -128], "int8"))
    for fn, want in ((ops.add, [100, 382, -125]), (ops.multiply, [-20000, 32385, -384]),
                     (ops.maximum, [200, 255, 3]), (ops.subtract, [300, 128, 131])):
        y = fn(u8, i8)
        assert y.dtype == "int16"
        np.testing.assert_array_equal(ops.convert_to_numpy(y), want)
    u32 = ops.convert_to_tensor(np.array([7, 3000000, 0], "uint32"))
    i16 = ops.convert_to_tensor(np.array([-8, 5, -32768], "int16"))
    for fn, want in ((ops.add, [-1, 3000005, -32768]), (ops.multiply, [-56, 15000000, 0]),
                     (ops.maximum, [7, 3000000, 0]), (ops.minimum, [-8, 5, -32768])):
        y = fn(u32, i16)
        assert y.dtype == "int32"
        np.testing.assert_array_equal(ops.convert_to_numpy(y), want)
    y = ops.concatenate([ops.convert_to_tensor(np.array([255], "uint8")),
                         ops.convert_to_tensor(np.array([-1], "int8"))])
    assert y.dtype == "int16"
    np.testing.assert_array_equal(ops.convert_to_numpy(y), [255, -1])
    y = ops.where(ops.convert_to_tensor([True, False]),
                  ops.convert_to_tensor(np.array([250, 251], "uint8")),
                  ops.convert_to_tensor(np.array([-5, -6], "int8")))
    assert y.dtype == "int16"
    np.testing.assert_array_equal(ops.convert_to_numpy(y), [250, -6])
    y = ops.add(ops.convert_to_tensor([True, False]), 3)   # bool with a weak int: int32
    assert y.dtype == "int32"
    np.testing.assert_array_equal(ops.convert_to_numpy(y), [4, 3])


def test_weak_results_follow_floatx():
    saved = lamina.config.floatx()
    try:
        lamina.config.set_floatx("float16")
        assert lamina_backend.result_type(int, float) == "float16"
        assert lamina_backend.result_type("int8", float) == "float16"
        lamina.config.set_floatx("float64")
        assert lamina_backend.result_type(int, float) == "float64"
        assert lamina_backend.result_type("uint32", "int8") == "int32"
    finally:
        lamina.config.set_floatx(saved)
    assert lamina_backend.result_type(int, float) == "float32"
