"""The number-part ops (lamina/ops/float_parts.py): fabs, trunc, signbit, isposinf/isneginf,
nextafter, nan_to_num, fmod, fmax/fmin, heaviside, divide_no_nan and the complex views, with
numbers from Keras 3.15.1 (JAX, float32) where the edge cases matter."""
import warnings

import numpy as np
import pytest

from lamina import ops
from tests.harness import case, rand, rand_away_from, run_case

_SPECIAL = np.array([-1.5, -0.0, 0.0, 2.5, np.inf, -np.inf, np.nan])
_INTS = np.array([-3, 0, 4], np.int32)
_NAN_A = np.array([[np.nan, 1.0, np.nan, -2.0], [0.5, np.nan, 3.0, 1.0]])
_NAN_B = np.array([2.0, np.nan, np.nan, -1.0])


def _angle(x):
    return np.angle(x)


CASES = [
    case("fabs", ops.fabs, np.fabs, [rand_away_from(3, 4)], second_order=True),
    case("fabs", ops.fabs, lambda x: np.fabs(x).astype(np.float32), [_INTS], grad=False,
         label="int"),
    case("trunc", ops.trunc, np.trunc, [rand(3, 4, low=-3, high=3)], grad=False),
    case("signbit", ops.signbit, np.signbit, [_SPECIAL], grad=False),
    case("isposinf", ops.isposinf, np.isposinf, [_SPECIAL], grad=False),
    case("isneginf", ops.isneginf, np.isneginf, [_SPECIAL], grad=False),
    case("isneginf", ops.isneginf, lambda x: np.zeros(3, bool), [_INTS], grad=False,
         label="int"),
    case("nextafter", ops.nextafter, np.nextafter, [rand(3, 4), rand(4)], grad=False),
    case("nan_to_num", ops.nan_to_num,
         lambda x: np.nan_to_num(x, posinf=1.7976931348623157e308,
                                 neginf=-1.7976931348623157e308),
         [_SPECIAL], grad=False, float32=False),
    case("nan_to_num", lambda x: ops.nan_to_num(x, nan=1.5, posinf=7, neginf=-7.0),
         lambda x: np.nan_to_num(x, nan=1.5, posinf=7, neginf=-7), [_SPECIAL], grad=False,
         label="values"),
    case("nan_to_num", ops.nan_to_num, np.nan_to_num, [rand(3, 4)], label="gradient"),
    case("fmod", ops.fmod, np.fmod, [rand(3, 4, low=-5, high=5), rand(4, low=0.7, high=2)]),
    case("fmod", ops.fmod, np.fmod, [np.array([-7, 7, 5], np.int32),
                                     np.array([3, -3, 2], np.int32)], grad=False,
         label="int"),
    case("fmax", ops.fmax, np.fmax, [_NAN_A, _NAN_B], grad=False),
    case("fmax", ops.fmax, np.fmax, [rand(3, 4), rand(4) + 3.0], label="gradient"),
    case("fmin", ops.fmin, np.fmin, [_NAN_A, _NAN_B], grad=False),
    case("fmin", ops.fmin, np.fmin, [rand(3, 4), rand(4) + 3.0], label="gradient"),
    case("fmin", ops.fmin, np.fmin, [_INTS, np.array([1, 1, 1], np.int32)], grad=False,
         label="int"),
    case("heaviside", ops.heaviside, np.heaviside,
         [np.array([-2.0, 0.0, 3.0, np.nan, 0.0]), rand(5)], grad=False),
    case("heaviside", ops.heaviside, np.heaviside,
         [np.array([-2.0, 0.0, 3.0, 0.0]), rand(4)], grad_argnums=(1,), label="gradient"),
    case("divide_no_nan", ops.divide_no_nan,
         lambda a, b: np.divide(a, np.where(b == 0, 1, b)) * (b != 0),
         [rand(2, 4), np.array([0.0, 0.5, -1.5, 0.0])], grad_argnums=(0,)),
    case("divide_no_nan", ops.divide_no_nan, np.divide, [rand(2, 4), rand(4, low=0.5, high=2)],
         label="nonzero"),
    case("real", ops.real, np.real, [rand(3, 4)]),
    case("imag", ops.imag, np.imag, [rand(3, 4)]),
    case("conj", ops.conj, np.conj, [rand(3, 4)]),
    case("conjugate", ops.conjugate, np.conjugate, [rand(3, 4)]),
    case("angle", ops.angle, _angle, [_SPECIAL], grad=False),
    case("angle", ops.angle, _angle, [rand_away_from(3, 4)], label="gradient"),
    case("isreal", ops.isreal, np.isreal, [rand(3, 4)], grad=False),
]


@pytest.mark.parametrize("c", CASES, ids=str)
def test_forward_and_gradient(c, backend):
    run_case(c)


def _f32(values):
    return ops.convert_to_tensor(np.array(values, np.float32))


def test_matches_keras(backend):
    # every list below is what keras.ops gave for the same float32 input
    h = ops.heaviside(_f32([-2.0, 0.0, 3.0, np.nan]), _f32([0.5] * 4)).numpy()
    np.testing.assert_array_equal(h, [0.0, 0.5, 1.0, np.nan])
    d = ops.divide_no_nan(_f32([1.0, 2.0, 3.0]), _f32([0.0, 4.0, -1.0])).numpy()
    np.testing.assert_array_equal(d, [0.0, 0.5, -3.0])
    n = ops.nan_to_num(_f32([np.nan, np.inf, -np.inf, 1.0])).numpy()
    np.testing.assert_array_equal(n, [0.0, 3.4028234663852886e38, -3.4028234663852886e38, 1.0])
    m = ops.fmax(_f32([np.nan, 1.0, np.nan]), _f32([2.0, np.nan, np.nan])).numpy()
    np.testing.assert_array_equal(m, [2.0, 1.0, np.nan])
    with warnings.catch_warnings():          # numpy warns on the integer division by 0
        warnings.simplefilter("ignore", RuntimeWarning)
        r = ops.fmod(ops.convert_to_tensor(np.array([-7, 7, 5], np.int32)),
                     ops.convert_to_tensor(np.array([3, -3, 0], np.int32)))
    assert r.dtype == "int32" and r.numpy().tolist() == [-1, 1, 0]
    s = ops.signbit(_f32([-0.0, 0.0, -1.0, np.nan])).numpy().tolist()
    assert s == [True, False, True, False]
    assert ops.nextafter(_f32([1.0]), _f32([2.0])).numpy().tolist() == [1.0000001192092896]
    a = ops.angle(_f32([-0.9, -0.25, 0.0, 0.5])).numpy()
    np.testing.assert_allclose(a, [3.1415927410125732, 3.1415927410125732, 0.0, 0.0])


def test_dtypes_follow_keras(backend):
    i = ops.convert_to_tensor(_INTS)
    b = ops.convert_to_tensor([True, False])
    assert ops.fabs(i).dtype == "float32" and ops.angle(i).dtype == "float32"
    assert ops.trunc(i).dtype == "int32" and ops.trunc(b).dtype == "bool"
    assert ops.real(i).dtype == "int32" and ops.imag(i).dtype == "int32"
    assert ops.conj(b).dtype == "bool" and ops.nan_to_num(i).dtype == "int32"
    assert ops.isreal(i).dtype == "bool" and ops.signbit(b).numpy().tolist() == [False] * 2
    assert ops.heaviside(i, 1).dtype == "float32" and ops.divide_no_nan(i, i).dtype == "float32"
    assert ops.nextafter(i, i).dtype == "float32"
    assert ops.trunc(i).numpy().tolist() == [-3, 0, 4]
    assert ops.signbit(i).numpy().tolist() == [True, False, False]


def test_nan_to_num_refuses_a_non_number(backend):
    with pytest.raises(TypeError, match="nan_to_num: argument 'posinf' must be a number or "
                                        "None; received 'big'"):
        ops.nan_to_num(_f32([1.0]), posinf="big")
