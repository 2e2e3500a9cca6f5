"""Trigonometric and hyperbolic ops (lamina/ops/trig.py) and the exponent/special-function
ops (lamina/ops/exponents.py): forward, numeric gradients, graph == eager, Keras's dtype
rules and numbers computed by Keras 3.15.1 (JAX backend, float32)."""
import math

import numpy as np
import pytest
import scipy.special

from lamina import ops
from lamina.errors import DTypeError
from tests.harness import case, rand, rand_away_from, run_case


def unit(*shape):
    return rand(*shape, low=-0.9, high=0.9)


def above_one(*shape):
    return rand(*shape, low=1.2, high=3.0)


_erfc = np.vectorize(math.erfc)

CASES = [
    case("tan", ops.tan, np.tan, [unit(3, 4)], second_order=True),
    case("arcsin", ops.arcsin, np.arcsin, [unit(3, 4)], second_order=True),
    case("arccos", ops.arccos, np.arccos, [unit(3, 4)], second_order=True),
    case("arctan", ops.arctan, np.arctan, [rand(3, 4, low=-3, high=3)], second_order=True),
    case("arctan2", ops.arctan2, np.arctan2, [rand(3, 4), rand(4, low=0.3, high=1.0)],
         second_order=True),
    case("arctan2", ops.arctan2, lambda a, b: np.arctan2(a, b).astype(np.float32),
         [np.array([1, -2, 0], np.int32), np.array([-1, -1, 3], np.int32)], grad=False,
         label="int"),
    case("sinh", ops.sinh, np.sinh, [rand(3, 4, low=-2, high=2)], second_order=True),
    case("cosh", ops.cosh, np.cosh, [rand(3, 4, low=-2, high=2)], second_order=True),
    case("arcsinh", ops.arcsinh, np.arcsinh, [rand(3, 4, low=-3, high=3)], second_order=True),
    case("arccosh", ops.arccosh, np.arccosh, [above_one(3, 4)], second_order=True),
    case("arctanh", ops.arctanh, np.arctanh, [unit(3, 4)], second_order=True),
    case("deg2rad", ops.deg2rad, np.deg2rad, [rand(5, low=-360, high=360)]),
    case("rad2deg", ops.rad2deg, np.rad2deg, [rand(5, low=-4, high=4)]),
    case("sinc", ops.sinc, np.sinc, [rand_away_from(3, 4, points=(0.0,), low=-2, high=2)],
         second_order=True),
    case("sinc", ops.sinc, np.sinc, [np.array([0.0, 1.0, -0.5])], grad=False,
         label="at-zero"),
    case("hypot", ops.hypot, np.hypot, [rand(3, 4, low=0.2, high=2), rand(4, low=-2, high=-0.2)],
         second_order=True),
    # exponents and special functions
    case("cbrt", ops.cbrt, np.cbrt, [rand_away_from(3, 4, points=(0.0,), margin=0.2)],
         second_order=True),
    case("exp2", ops.exp2, np.exp2, [rand(3, 4, low=-3, high=3)], second_order=True),
    case("logaddexp", ops.logaddexp, np.logaddexp, [rand(3, 4, low=-5, high=5), rand(4)],
         second_order=True),
    case("logaddexp", lambda x: ops.logaddexp(x, 700.0), lambda x: np.logaddexp(x, 700.0),
         [rand(4, low=690, high=710)], grad=False, label="large"),
    case("logaddexp2", ops.logaddexp2, np.logaddexp2, [rand(3, 4, low=-5, high=5), rand(4)],
         second_order=True),
    case("ldexp", ops.ldexp, lambda a, e: np.ldexp(a, e),
         [rand(3, 4), np.array([3, -1, 0, 5], np.int32)]),
    case("ldexp", lambda x: ops.ldexp(x, 3), lambda x: x * 8.0, [rand(4)], label="int"),
    case("erfc", ops.erfc, _erfc, [rand(3, 4, low=-3, high=5)], second_order=True),
    case("erfc", ops.erfc, _erfc, [np.array([6.0, 10.0, 20.0, 26.0])], grad=False,
         float32=False, label="tail"),
    case("erfinv", ops.erfinv, scipy.special.erfinv, [rand(3, 4, low=-0.95, high=0.95)],
         second_order=True),
    case("i0", ops.i0, np.i0, [rand(3, 4, low=-4, high=4)], second_order=True),
    case("i0", ops.i0, np.i0, [np.array([0.0, 30.0, -120.0])], grad=False, float32=False,
         label="large"),
    case("i1", lambda x: ops.exponents.I1(x), scipy.special.i1,
         [rand_away_from(3, 4, low=-4, high=4)], second_order=True),
]


@pytest.mark.parametrize("c", CASES, ids=str)
def test_forward_and_gradient(c, backend):
    run_case(c)


_KERAS_X = np.array([-0.9, -0.25, 0.0, 0.5, 0.95], np.float32)
# keras.ops.<name>(_KERAS_X), Keras 3.15.1 with JAX, float32
KERAS = {
    "erfinv": [-1.163087010383606, -0.22531206905841827, 0.0, 0.4769362807273865,
               1.3859037160873413],
    "erfc": [1.7969081401824951, 1.2763264179229736, 1.0, 0.4795001745223999,
             0.17910927534103394],
    "i0": [1.2129850387573242, 1.0156861543655396, 1.0000001192092896, 1.063483476638794,
           1.2386752367019653],
    "sinc": [0.1092924177646637, 0.9003162980079651, 1.0, 0.6366197466850281,
             0.0524154007434845],
    "cbrt": [-0.965489387512207, -0.6299605369567871, 0.0, 0.7937005162239075,
             0.9830475449562073],
    "exp2": [0.5358867049217224, 0.8408964276313782, 1.0, 1.4142135381698608,
             1.9318726062774658],
    "arctanh": [-1.4722193479537964, -0.2554128170013428, 0.0, 0.5493061542510986,
                1.8317806720733643],
}


@pytest.mark.parametrize("name", sorted(KERAS))
def test_matches_keras(name, backend):
    y = getattr(ops, name)(ops.convert_to_tensor(_KERAS_X))
    assert y.dtype == "float32"
    np.testing.assert_allclose(y.numpy(), KERAS[name], rtol=2e-6, atol=2e-7)


def test_logaddexp_infinities_match_keras(backend):
    a = ops.convert_to_tensor(np.array([1.0, -np.inf, np.inf, 100.0], np.float32))
    b = ops.convert_to_tensor(np.array([2.0, -np.inf, np.inf, -100.0], np.float32))
    np.testing.assert_allclose(ops.logaddexp(a, b).numpy(),
                               [2.3132617473602295, -np.inf, np.inf, 100.0], rtol=1e-6)


def test_logaddexp_gradient_splits_a_tie(backend):
    import lamina
    a = ops.convert_to_tensor(np.array([0.5, -2.0]))
    b = ops.convert_to_tensor(np.array([0.5, 1.0]))
    with lamina.GradientTape() as tape:
        tape.watch(a)
        tape.watch(b)
        y = ops.sum(ops.logaddexp(a, b))
    ga, gb = tape.gradient(y, [a, b])
    np.testing.assert_allclose(ga.numpy(), [0.5, 1 / (1 + np.exp(3.0))])
    np.testing.assert_allclose(gb.numpy(), [0.5, 1 / (1 + np.exp(-3.0))])


def test_special_edges(backend):
    y = ops.erfinv(ops.convert_to_tensor(np.array([-1.0, 1.0, 1.5])))
    assert np.isneginf(y.numpy()[0]) and np.isposinf(y.numpy()[1]) and np.isnan(y.numpy()[2])
    assert ops.erfc(ops.convert_to_tensor(np.array([30.0]))).numpy()[0] == 0.0


NAMES = ["tan", "arcsin", "arccos", "arctan", "sinh", "cosh", "arcsinh", "arccosh", "arctanh",
         "deg2rad", "rad2deg", "sinc", "cbrt", "exp2", "erfc", "erfinv", "i0"]


@pytest.mark.parametrize("name", NAMES)
def test_integers_give_floatx_and_float16_stays(name, backend):
    values = {"arccosh": [1, 2], "arctanh": [0, 0]}.get(name, [0, 1])     # in the domain
    x = ops.convert_to_tensor(np.array(values, np.int32))
    assert getattr(ops, name)(x).dtype == "float32"
    bools = [values[0] != 0, values[1] != 0]
    assert getattr(ops, name)(ops.convert_to_tensor(bools)).dtype == "float32"
    half = ops.convert_to_tensor(np.array([1.5 if name == "arccosh" else 0.5], np.float16))
    assert getattr(ops, name)(half).dtype == "float16"


@pytest.mark.parametrize("name", ["arctan2", "hypot", "logaddexp", "logaddexp2"])
def test_binary_integers_give_floatx(name, backend):
    x = ops.convert_to_tensor(np.array([1, 2], np.int32))
    assert getattr(ops, name)(x, x).dtype == "float32"
    assert getattr(ops, name)(x, 2).dtype == "float32"


def test_ldexp_needs_an_integer_exponent(backend):
    x = ops.convert_to_tensor(np.array([1.5], np.float32))
    with pytest.raises(DTypeError, match=r"ldexp: argument 'x2' \(the exponent\) must be an "
                                         r"integer tensor or int; received float32"):
        ops.ldexp(x, x)
    with pytest.raises(DTypeError, match="ldexp: argument 'x2'.*received float"):
        ops.ldexp(x, 2.0)
    y = ops.ldexp(ops.convert_to_tensor(np.array([1.5, -2.0], np.float32)),
                  ops.convert_to_tensor(np.array([3, -1], np.int32)))
    assert y.dtype == "float32"
    np.testing.assert_array_equal(y.numpy(), [12.0, -1.0])       # Keras's numbers
    host = ops.ldexp(ops.convert_to_tensor(np.array([1.5], np.float32)), np.array([2], np.int32))
    assert host.numpy().tolist() == [6.0]
    with pytest.raises(DTypeError, match="ldexp: argument 'x2'.*received float64"):
        ops.ldexp(x, np.array([2.0]))
