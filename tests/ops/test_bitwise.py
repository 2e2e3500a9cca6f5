"""Bitwise and integer ops (lamina/ops/bitwise.py): values against numpy and Keras 3.15.1,
graph == eager, no gradient, and the dtype errors."""
import numpy as np
import pytest

from lamina import ops
from lamina.errors import DTypeError
from tests.harness import case, run_case

_A = np.array([[6, -4, 3, 0], [12, 7, -9, 255]], np.int32)
_B = np.array([4, 2, 1, 5], np.int32)
_SHIFT = np.array([0, 1, 2, 3], np.int32)
_BOOLS = (np.array([True, True, False, False]), np.array([True, False, True, False]))

CASES = [
    case("bitwise_and", ops.bitwise_and, np.bitwise_and, [_A, _B], grad=False),
    case("bitwise_and", ops.bitwise_and, np.bitwise_and, list(_BOOLS), grad=False,
         label="bool"),
    case("bitwise_or", ops.bitwise_or, np.bitwise_or, [_A, _B], grad=False),
    case("bitwise_xor", ops.bitwise_xor, np.bitwise_xor, [_A, _B], grad=False),
    case("bitwise_xor", lambda x: ops.bitwise_xor(x, 5), lambda x: x ^ 5, [_A], grad=False,
         label="scalar"),
    case("bitwise_invert", ops.bitwise_invert, np.invert, [_A], grad=False),
    case("bitwise_not", ops.bitwise_not, np.invert, [_BOOLS[0]], grad=False, label="bool"),
    case("bitwise_left_shift", ops.bitwise_left_shift, np.left_shift, [_A, _SHIFT],
         grad=False),
    case("bitwise_right_shift", ops.bitwise_right_shift, np.right_shift, [_A, _SHIFT],
         grad=False),
    case("left_shift", ops.left_shift, np.left_shift, [_A, _SHIFT], grad=False),
    case("right_shift", ops.right_shift, np.right_shift, [_A, _SHIFT], grad=False),
    case("gcd", ops.gcd, np.gcd, [_A, _B], grad=False),
    case("lcm", ops.lcm, np.lcm, [_A, _B], grad=False),
    case("lcm", ops.lcm, np.lcm, [_A.astype(np.int8), _B.astype(np.int8)], grad=False,
         label="int8"),
]


@pytest.mark.parametrize("c", CASES, ids=str)
def test_forward(c, backend):
    run_case(c)


def test_matches_keras(backend):
    # keras.ops.right_shift([-8, 8], [1, 2]) and bitwise_invert([True, False])
    x = ops.convert_to_tensor(np.array([-8, 8], np.int32))
    y = ops.right_shift(x, ops.convert_to_tensor(np.array([1, 2], np.int32)))
    assert y.dtype == "int32" and y.numpy().tolist() == [-4, 2]
    assert ops.bitwise_invert(ops.convert_to_tensor([True, False])).numpy().tolist() == [
        False, True]
    assert ops.gcd(ops.convert_to_tensor(np.array([6], np.int8)), 4).dtype == "int8"


@pytest.mark.parametrize("name,arg", [("bitwise_and", "x"), ("bitwise_or", "x"),
                                      ("bitwise_xor", "x"), ("left_shift", "x"),
                                      ("right_shift", "x"), ("gcd", "x1"), ("lcm", "x1")])
def test_floats_are_refused(name, arg, backend):
    f = ops.convert_to_tensor(np.array([1.0], np.float32))
    kinds = "an integer or bool" if name.startswith("bitwise") else "an integer"
    with pytest.raises(DTypeError, match=f"{name}: argument '{arg}' must be {kinds} tensor; "
                                         f"received dtype float32"):
        getattr(ops, name)(f, f)


def test_bool_shift_and_float_invert_are_refused(backend):
    b = ops.convert_to_tensor([True])
    with pytest.raises(DTypeError, match="left_shift: argument 'x' must be an integer tensor; "
                                         "received dtype bool"):
        ops.left_shift(b, b)
    with pytest.raises(DTypeError, match="bitwise_invert: argument 'x' must be an integer "
                                         "or bool tensor; received dtype float32"):
        ops.bitwise_invert(ops.convert_to_tensor(np.array([1.0], np.float32)))


def test_no_gradient(backend):
    for name in ("bitwise_and", "bitwise_or", "bitwise_xor", "left_shift", "right_shift",
                 "gcd", "lcm", "bitwise_invert"):
        assert not ops.OP_REGISTRY[name].differentiable
