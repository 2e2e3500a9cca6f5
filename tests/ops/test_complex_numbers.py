"""Complex dtypes against Keras 3.15.1 on JAX (tests/fixtures/keras_complex.json, written by
make_complex_references.py): view_as_complex/view_as_real, polar, real/imag/conj/angle/
abs/isreal, complex arithmetic, their dtypes and their gradients (jax.grad's convention),
eager and graph mode alike."""
import json
import os
import warnings

import numpy as np
import pytest

import lamina
from lamina import ops
from lamina.errors import DTypeError, ShapeError
from tests.harness import case, rand, run_case

with open(os.path.join(os.path.dirname(__file__), "..", "fixtures",
                       "keras_complex.json")) as _f:
    KERAS = json.load(_f)


# Harness cases (forward against numpy, gradients against float64 central differences):
# real inputs, complex values inside, real outputs -- where JAX's convention and the true
# gradient agree. ``polar`` keeps float64 (complex128) precision.
C = 0.5 - 2j


def _polar(a, t):
    return a * np.exp(1j * t)


def _pair(z):
    return np.stack([z.real, z.imag], axis=-1)


def _in(*shape):
    return rand(*shape, low=0.5, high=1.5)


CASES = [
    case("make_complex", lambda a, t: ops.view_as_real(ops.polar(a, t)),
         lambda a, t: _pair(_polar(a, t)), [rand(3, 4), rand(3, 4)], second_order=True),
    case("polar", lambda a, t: ops.view_as_real(ops.polar(a, t)),
         lambda a, t: _pair(_polar(a, t)), [rand(2, 3), rand(3)]),
    case("view_as_real", lambda a, t: ops.view_as_real(ops.polar(a, t) * C),
         lambda a, t: _pair(_polar(a, t) * C), [rand(3, 4), rand(3, 4)]),
    case("complex_real", lambda a, t: ops.real(ops.polar(a, t) * C),
         lambda a, t: (_polar(a, t) * C).real, [rand(3, 4), rand(3, 4)]),
    case("complex_imag", lambda a, t: ops.imag(ops.polar(a, t) * C),
         lambda a, t: (_polar(a, t) * C).imag, [rand(3, 4), rand(3, 4)]),
    case("complex_conjugate", lambda a, t: ops.view_as_real(ops.conj(ops.polar(a, t)) * C),
         lambda a, t: _pair(np.conj(_polar(a, t)) * C), [rand(3, 4), rand(3, 4)]),
    case("complex_abs", lambda a, t: ops.abs(ops.polar(a, t) + C),
         lambda a, t: np.abs(_polar(a, t) + C), [rand(3, 4), rand(3, 4)]),
    case("angle", lambda a, t: ops.angle(ops.polar(a, t) * C),
         lambda a, t: np.angle(_polar(a, t) * C), [_in(3, 4), rand(3, 4)], label="complex"),
    case("isreal", lambda a, t: ops.isreal(ops.polar(a, t * ops.cast(t > 0, t.dtype))),
         lambda a, t: t <= 0, [_in(3, 4), rand(3, 4)], grad=False, label="complex"),
    # view_as_complex computes in float32 (Keras's complex64): checked exactly, no gradient
    # by differences here (the fixture test checks it against jax.grad)
    case("view_as_complex", lambda x: ops.view_as_real(ops.view_as_complex(x)),
         lambda x: x.astype(np.float32), [rand(3, 2)], grad=False),
]


@pytest.mark.parametrize("c", CASES, ids=str)
def test_forward_and_gradient(c, backend):
    run_case(c)


def dec(entry):
    value = np.asarray(entry["value"])
    if entry["dtype"].startswith("complex"):
        value = value[0] + 1j * value[1]
    return value.astype(entry["dtype"])


Z, W, X, WEIGHTS, ABS, ANGLE, REALS = (
    dec(KERAS["inputs"][k]) for k in ("z", "w", "x", "weights", "abs", "angle", "reals"))


def forward(z, w, x, abs_, angle, reals):
    return {
        "real": ops.real(z), "imag": ops.imag(z), "conj": ops.conj(z),
        "angle": ops.angle(z), "abs": ops.abs(z), "isreal": ops.isreal(z),
        "view_as_real": ops.view_as_real(z), "view_as_complex": ops.view_as_complex(x),
        "polar": ops.polar(abs_, angle),
        "real_of_reals": ops.real(reals), "imag_of_reals": ops.imag(reals),
        "angle_of_reals": ops.angle(reals), "isreal_of_reals": ops.isreal(reals),
        "view_as_real_of_reals": ops.view_as_real(reals),
        "multiply": ops.multiply(z, w), "divide": ops.divide(z, w),
        "subtract": ops.subtract(z, w), "add_float": ops.add(z, 1.5),
        "multiply_int": ops.multiply(z, 2), "multiply_complex": ops.multiply(z, 2j),
        "float_times_complex": ops.multiply(reals, 0.5 - 2j),
        "negative": ops.negative(z), "sum": ops.sum(z),
        "where": ops.where(ops.convert_to_tensor([True, False, True, False]), z, w),
    }


def _weighted(z):
    return ops.sum(ops.view_as_real(z) * WEIGHTS)


def gradients(z, w, x, abs_, angle):
    with lamina.GradientTape(persistent=True) as tape:
        for t in (z, x, abs_, angle):
            tape.watch(t)
        losses = {
            "view_as_complex": (_weighted(ops.view_as_complex(x) * w), x),
            "abs": (ops.sum(ops.abs(z * w)), z),
            "angle": (ops.sum(ops.angle(z) * ANGLE), z),
            "conj": (_weighted(ops.conj(z) * w), z),
            "real_imag": (ops.sum(ops.real(z) * 2.0 + ops.imag(z * w) * 3.0), z),
            "polar_abs": (_weighted(ops.polar(abs_, angle)), abs_),
            "polar_angle": (_weighted(ops.polar(abs_, angle)), angle),
            "divide": (_weighted(ops.divide(w, z + 1.0)), z),
        }
    return {k: tape.gradient(loss, source) for k, (loss, source) in losses.items()}


def _tensors(*arrays):
    return [ops.convert_to_tensor(a) for a in arrays]


def _check(ours, keras_entries, name):
    for key, got in ours.items():
        entry = keras_entries[key]
        assert got.dtype == entry["dtype"], f"{name} {key}: {got.dtype}"
        np.testing.assert_allclose(ops.convert_to_numpy(got), dec(entry), rtol=2e-6,
                                   atol=1e-6, equal_nan=True, err_msg=f"{name} {key}")


def test_forward_values_and_dtypes_are_kerass(backend):
    ours = forward(*_tensors(Z, W, X, ABS, ANGLE, REALS))
    ours["polar_ints"] = ops.polar(ops.convert_to_tensor([2, 1]), ops.convert_to_tensor([0, 1]))
    assert ours.keys() == KERAS["forward"].keys()
    _check(ours, KERAS["forward"], "forward")


def test_gradients_follow_jax_convention(backend):
    # jax.grad of Keras's ops: 0/0 at z = 0 makes angle's gradient NaN there in both
    ours = gradients(*_tensors(Z, W, X, ABS, ANGLE))
    assert ours.keys() == KERAS["gradients"].keys()
    _check(ours, KERAS["gradients"], "gradient")


def test_graph_mode_equals_eager():
    args = _tensors(Z, W, X, ABS, ANGLE, REALS)
    for fn, inputs in ((forward, args), (gradients, args[:5])):
        eager, graph = fn(*inputs), lamina.jit(fn)(*inputs)
        assert eager.keys() == graph.keys()
        for key in eager:
            e, g = ops.convert_to_numpy(eager[key]), ops.convert_to_numpy(graph[key])
            assert e.dtype == g.dtype, key
            np.testing.assert_array_equal(g, e, err_msg=key)


def test_symbolic_shapes_and_dtypes():
    # Keras 3.15.1: view_as_complex of (None, 2) float32 is (None,) complex64; view_as_real
    # of (None,) complex64 is (None, 2) float32
    assert (ops.view_as_complex(lamina.Input(batch_shape=(None, 2))).shape,
            ops.view_as_complex(lamina.Input(batch_shape=(None, 2))).dtype) == ((None,),
                                                                                "complex64")
    z = lamina.Input(batch_shape=(None,), dtype="complex64")
    assert (ops.view_as_real(z).shape, ops.view_as_real(z).dtype) == ((None, 2), "float32")
    assert ops.abs(z).dtype == "float32" and ops.conj(z).dtype == "complex64"
    assert ops.polar(lamina.Input((3,)), lamina.Input((3,))).dtype == "complex64"


def test_promotion_and_64_bit_parts():
    f32 = ops.ones((2,), dtype="float32")
    assert ops.add(f32, 1j).dtype == "complex64"                 # Keras: complex64
    assert ops.convert_to_tensor([1 + 2j, 3]).dtype == "complex64"
    z128 = ops.convert_to_tensor(np.array([1 + 2j], np.complex128))
    assert z128.dtype == "complex128"             # 64-bit data stays 64-bit in Lamina
    assert ops.real(z128).dtype == "float64" and ops.abs(z128).dtype == "float64"
    assert ops.polar(np.array([1.0]), np.array([0.5])).dtype == "complex128"
    # Keras casts view_as_complex's result to complex64 for every input dtype
    assert ops.view_as_complex(np.array([[1.0, 2.0]])).dtype == "complex64"
    np.testing.assert_allclose(ops.convert_to_numpy(ops.polar(np.array([2.0]),
                                                              np.array([0.5]))),
                               [2 * np.exp(0.5j)], rtol=1e-15)


def test_cast_to_real_keeps_the_real_part_with_a_warning():
    z = ops.convert_to_tensor(Z)
    with pytest.warns(UserWarning, match=r"cast: casting complex64 to float32 discards the "
                                         r"imaginary part"):
        y = ops.cast(z, "float32")
    np.testing.assert_array_equal(ops.convert_to_numpy(y), Z.real)
    with warnings.catch_warnings():
        warnings.simplefilter("error")               # real -> complex casts are silent
        assert ops.cast(ops.convert_to_tensor(REALS), "complex64").dtype == "complex64"


def test_bad_input_is_refused():
    with pytest.raises(ShapeError, match=r"view_as_complex: Last dimension of input must be "
                                         r"size 2 .*received shape \(3,\)"):
        ops.view_as_complex(np.array([1.0, 2.0, 3.0]))
    z = ops.convert_to_tensor(Z)
    with pytest.raises(DTypeError, match=r"view_as_complex: argument 'x' must be a real "
                                         r"tensor; received dtype complex64"):
        ops.view_as_complex(ops.view_as_real(z) * 1j)
    with pytest.raises(DTypeError, match=r"polar: .*complex tensors are not supported"):
        ops.polar(z, ANGLE)
    for fn, name in ((ops.exp, "exp"), (ops.sqrt, "sqrt"), (ops.tan, "tan")):
        with pytest.raises(DTypeError, match=rf"{name}: .* must be a real tensor .*complex64"):
            fn(z)
    with pytest.raises(DTypeError, match=r"arctan2: arguments must be real tensors"):
        ops.arctan2(z, z)
