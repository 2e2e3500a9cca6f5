import math

import numpy as np
import pytest

import lamina
from lamina import ops
from lamina.errors import DTypeError, ShapeError
from lamina.graph import SymbolicTensor
from tests.harness import case, rand, rand_away_from, run_case


def apart(x, y, margin=0.1):
    """``x`` (full shape) nudged so no element is within ``margin`` of ``y`` (broadcast):
    keeps max/min/clip cases away from ties, where the gradient is not defined."""
    x = np.array(x, dtype=np.float64)
    y = np.broadcast_to(y, x.shape)
    near = np.abs(x - y) < margin
    x[near] = y[near] + np.where(x[near] >= y[near], margin, -margin) * 1.5
    return x


def positive(*shape):
    return rand(*shape, low=0.5, high=2.0)


_erf = np.vectorize(math.erf)
_INTS = (-1.5, -1.0, -0.5, 0.0, 0.5, 1.0, 1.5)     # floor/ceil/round's jumps in [-2, 2]

_b4 = rand(4)
_max_a = apart(rand(3, 4), _b4)
_lo, _hi = rand(4, low=-0.6, high=-0.3), rand(3, 1, low=0.3, high=0.6)
_clip_x = apart(apart(rand(3, 4), _lo), _hi)
_cond = rand(3, 4) > 0

CASES = [
    # binary arithmetic
    case("add", ops.add, np.add, [rand(3, 4), rand(4)], second_order=True),
    case("add", ops.add, np.add, [rand(2, 1, 3), rand(4, 1)], label="both-broadcast"),
    case("add", lambda x: ops.add(x, 2.0), lambda x: x + 2.0, [rand(3)], label="scalar"),
    case("subtract", ops.subtract, np.subtract, [rand(3, 4), rand(3, 1)], second_order=True),
    case("subtract", lambda x: ops.subtract(1.5, x), lambda x: 1.5 - x, [rand(3)],
         label="scalar-first"),
    case("multiply", ops.multiply, np.multiply, [rand(3, 4), rand(4)], second_order=True),
    case("multiply", lambda x: x * 2.0, lambda x: x * 2.0, [rand(2, 3)], label="operator"),
    case("divide", ops.divide, np.divide, [rand(3, 4), rand(4, low=0.5, high=2.0)],
         second_order=True),
    case("divide", ops.divide, np.divide,
         [np.array([1, 3, 5], np.int32), np.array([2, 4, 8], np.int32)], grad=False,
         label="int-gives-float"),
    case("true_divide", ops.true_divide, np.true_divide, [rand(2, 3), positive(3)],
         second_order=True),
    case("power", ops.power, np.power, [positive(3, 4), rand(4, low=-1.5, high=1.5)],
         second_order=True),
    case("power", lambda x: ops.power(x, 3), lambda x: x ** 3, [rand(3, 4)],
         second_order=True, label="int-exponent"),
    case("power", lambda x: x ** 0.5, np.sqrt, [positive(5)], second_order=True,
         label="operator"),
    case("power", lambda b: ops.power(2.0, b), lambda b: 2.0 ** b, [rand(5)],
         second_order=True, label="scalar-base"),
    case("maximum", ops.maximum, np.maximum, [_max_a, _b4], second_order=True),
    case("maximum", lambda x: ops.maximum(x, 0.25), lambda x: np.maximum(x, 0.25),
         [rand_away_from(6, points=(0.25,))], label="scalar"),
    case("minimum", ops.minimum, np.minimum, [_max_a, _b4], second_order=True),
    case("minimum", lambda x: ops.minimum(x, -0.25), lambda x: np.minimum(x, -0.25),
         [rand_away_from(6, points=(-0.25,))], label="scalar"),
    case("floor_divide", ops.floor_divide, np.floor_divide,
         [rand(3, 4, low=-3, high=3), rand(4, low=0.5, high=2.0)], grad=False),
    case("floor_divide", lambda x: x // 3, lambda x: x // 3,
         [np.arange(-6, 6, dtype=np.int32)], grad=False, label="int"),
    case("mod", ops.mod, np.mod, [rand(3, 4, low=-3, high=3), rand(4, low=0.5, high=2.0)],
         grad=False),
    case("mod", lambda x: x % 4, lambda x: x % 4, [np.arange(-6, 6, dtype=np.int32)],
         grad=False, label="int"),
    # where and clip
    case("where", ops.where, np.where, [_cond, rand(3, 4), rand(4)], second_order=True),
    case("where", ops.where, np.where, [rand(4) > 0, rand(3, 1), rand(1, 4)],
         second_order=True, label="all-broadcast"),
    case("where", lambda c, x: ops.where(c, x, 0.0), lambda c, x: np.where(c, x, 0.0),
         [_cond, rand(3, 4)], label="scalar"),
    case("where", lambda c, x: ops.where(c, x, x * 2.0), lambda c, x: np.where(c, x, 2 * x),
         [np.array([0.0, 1.0, -2.0, 0.0]), rand(4)], label="float-condition"),
    case("clip", lambda x: ops.clip(x, -0.5, 0.5), lambda x: np.clip(x, -0.5, 0.5),
         [rand_away_from(3, 4, points=(-0.5, 0.5))], second_order=True),
    case("clip", ops.clip, np.clip, [_clip_x, _lo, _hi], second_order=True,
         label="tensor-bounds"),
    case("clip", ops.clip, np.clip, [rand(3, 4), np.full(4, 0.5), np.full((3, 1), -0.5)],
         label="min-above-max"),
    # unary
    case("negative", ops.negative, np.negative, [rand(3, 4)], second_order=True),
    case("abs", ops.abs, np.abs, [rand_away_from(3, 4)], second_order=True),
    case("absolute", ops.absolute, np.abs, [rand_away_from(3, 4)], second_order=True),
    case("sign", ops.sign, np.sign, [np.array([-2.0, -0.5, 0.0, 0.5, 3.0])], grad=False),
    case("square", ops.square, np.square, [rand(3, 4)], second_order=True),
    case("sqrt", ops.sqrt, np.sqrt, [positive(3, 4)], second_order=True),
    case("rsqrt", ops.rsqrt, lambda x: 1 / np.sqrt(x), [positive(3, 4)], second_order=True),
    case("reciprocal", ops.reciprocal, np.reciprocal,
         [rand_away_from(3, 4, margin=0.3)], second_order=True),
    case("exp", ops.exp, np.exp, [rand(3, 4)], second_order=True),
    case("expm1", ops.expm1, np.expm1, [rand(3, 4)], second_order=True),
    case("expm1", ops.expm1, np.expm1, [rand(5, low=-1e-9, high=1e-9)], grad=False,
         label="tiny"),
    case("log", ops.log, np.log, [positive(3, 4)], second_order=True),
    case("log1p", ops.log1p, np.log1p, [rand(3, 4, low=-0.5, high=2.0)], second_order=True),
    case("log1p", ops.log1p, np.log1p, [rand(5, low=-1e-9, high=1e-9)], grad=False,
         label="tiny"),
    case("log2", ops.log2, np.log2, [positive(3, 4)], second_order=True),
    case("log10", ops.log10, np.log10, [positive(3, 4)], second_order=True),
    case("tanh", ops.tanh, np.tanh, [rand(3, 4, low=-3, high=3)], second_order=True),
    case("sigmoid", ops.sigmoid, lambda x: 1 / (1 + np.exp(-x)),
         [rand(3, 4, low=-6, high=6)], second_order=True),
    case("erf", ops.erf, _erf, [rand(3, 4, low=-3, high=3)], second_order=True),
    case("sin", ops.sin, np.sin, [rand(3, 4, low=-3, high=3)], second_order=True),
    case("cos", ops.cos, np.cos, [rand(3, 4, low=-3, high=3)], second_order=True),
    case("floor", ops.floor, np.floor,
         [rand_away_from(3, 4, points=_INTS, margin=0.05, low=-1.9, high=1.9)], grad=False),
    case("ceil", ops.ceil, np.ceil,
         [rand_away_from(3, 4, points=_INTS, margin=0.05, low=-1.9, high=1.9)], grad=False),
    case("round", ops.round, np.round,
         [rand_away_from(3, 4, points=_INTS, margin=0.05, low=-1.9, high=1.9)], grad=False),
    case("round", lambda x: ops.round(x, 1), lambda x: np.round(x, 1),
         [np.array([0.12, -0.26, 1.04, 2.71])], grad=False, label="decimals"),
]


@pytest.mark.parametrize("c", CASES, ids=str)
def test_forward_and_gradient(c, backend):
    run_case(c)


# --------------------------------------------------------------------------- dtypes
def test_python_scalars_are_weakly_typed(backend):
    x32 = ops.convert_to_tensor([1.0, 2.0], dtype="float32")
    assert (x32 * 2.0).dtype == "float32"
    assert (2 * x32).dtype == "float32"
    assert ops.power(x32, 2).dtype == "float32"
    assert (x32 ** 2).dtype == "float32"
    np.testing.assert_allclose(ops.power(x32, 2).numpy(), [1.0, 4.0])
    i32 = ops.convert_to_tensor([1, 2, 3])
    assert (i32 * 2).dtype == "int32"
    assert (i32 ** 2).dtype == "int32"
    y = i32 * 2.5
    assert y.dtype == "float32"
    np.testing.assert_allclose(y.numpy(), [2.5, 5.0, 7.5])
    assert (ops.convert_to_tensor([1.0], dtype="float16") + 1.0).dtype == "float16"


def test_mixed_tensor_dtypes_promote(backend):
    a = ops.convert_to_tensor([1, 2], dtype="int32")
    b = ops.convert_to_tensor([0.5, 0.25], dtype="float32")
    y = ops.add(a, b)
    assert y.dtype == "float32"
    np.testing.assert_allclose(y.numpy(), [1.5, 2.25])
    assert ops.maximum(a, ops.convert_to_tensor([0.5, 3.0], dtype="float64")).dtype == "float64"


FLOAT_RESULTS = ["exp", "expm1", "log", "log1p", "log2", "log10", "sqrt", "rsqrt",
                 "reciprocal", "tanh", "sigmoid", "erf", "sin", "cos", "floor", "ceil"]


@pytest.mark.parametrize("name", FLOAT_RESULTS)
def test_unary_float_functions_turn_integers_into_floatx(name, backend):
    values = np.array([1, 2, 3], dtype=np.int32)
    y = getattr(ops, name)(ops.convert_to_tensor(values))
    assert y.dtype == "float32"
    expected = getattr(ops, name)(ops.convert_to_tensor(values.astype(np.float32)))
    np.testing.assert_allclose(y.numpy(), expected.numpy())


@pytest.mark.parametrize("name", ["negative", "abs", "absolute", "sign", "square", "round"])
def test_integer_preserving_unary_functions_keep_int(name, backend):
    values = np.array([-3, 0, 2], dtype=np.int32)
    y = getattr(ops, name)(ops.convert_to_tensor(values))
    assert y.dtype == "int32"
    reference = {"absolute": np.abs, "round": np.round}.get(name, getattr(np, name, None))
    np.testing.assert_array_equal(y.numpy(), reference(values))


def test_bool_input_to_exp_gives_floatx(backend):
    y = ops.exp(ops.convert_to_tensor([True, False]))
    assert y.dtype == "float32"
    np.testing.assert_allclose(y.numpy(), [math.e, 1.0], rtol=1e-6)


@pytest.mark.parametrize("name", ["exp", "sigmoid", "tanh", "erf", "sqrt", "log1p", "sin"])
def test_float16_forward(name, backend):
    x = np.linspace(0.1, 2.0, 7, dtype=np.float16)
    y = getattr(ops, name)(ops.convert_to_tensor(x))
    assert y.dtype == "float16"
    reference = getattr(ops, name)(ops.convert_to_tensor(x.astype(np.float64))).numpy()
    np.testing.assert_allclose(y.numpy().astype(np.float64), reference, rtol=2e-3)


def test_float16_binary_ops(backend):
    a = np.array([0.5, -1.25, 3.0], np.float16)
    b = np.array([1.5, -2.0, 0.75], np.float16)
    ta, tb = ops.convert_to_tensor(a), ops.convert_to_tensor(b)
    for fn, ref in ((ops.maximum, np.maximum), (ops.multiply, np.multiply),
                    (ops.divide, np.divide), (ops.add, np.add)):
        y = fn(ta, tb)
        assert y.dtype == "float16"
        np.testing.assert_allclose(y.numpy(), ref(a, b), rtol=1e-3)


# --------------------------------------------------------------------------- semantics
def test_erf_op_is_accurate_to_float64_round_off(backend):
    x = np.linspace(-6.5, 6.5, 2001)
    y = ops.erf(ops.convert_to_tensor(x)).numpy()
    np.testing.assert_allclose(y, _erf(x), rtol=1e-14, atol=0)


def test_sigmoid_and_tanh_do_not_overflow(backend):
    x = ops.convert_to_tensor([-1000.0, -80.0, 0.0, 80.0, 1000.0], dtype="float32")
    with np.errstate(all="raise"):
        s = ops.sigmoid(x).numpy()
        t = ops.tanh(x).numpy()
    np.testing.assert_allclose(s, [0.0, 0.0, 0.5, 1.0, 1.0], atol=1e-30)
    np.testing.assert_allclose(t, [-1.0, -1.0, 0.0, 1.0, 1.0])


def test_maximum_and_minimum_send_the_gradient_to_the_chosen_input(backend):
    a = ops.convert_to_tensor([1.0, 5.0, -2.0])
    b = ops.convert_to_tensor([3.0, 4.0, -1.0])
    with lamina.GradientTape(persistent=True) as tape:
        tape.watch([a, b])
        hi = ops.sum(ops.maximum(a, b))
        lo = ops.sum(ops.minimum(a, b))
    np.testing.assert_array_equal(tape.gradient(hi, a).numpy(), [0.0, 1.0, 0.0])
    np.testing.assert_array_equal(tape.gradient(hi, b).numpy(), [1.0, 0.0, 1.0])
    np.testing.assert_array_equal(tape.gradient(lo, a).numpy(), [1.0, 0.0, 1.0])
    np.testing.assert_array_equal(tape.gradient(lo, b).numpy(), [0.0, 1.0, 0.0])


@pytest.mark.parametrize("fn", [ops.floor, ops.ceil, ops.round, ops.sign,
                                lambda x: ops.floor_divide(x, 2.0), lambda x: ops.mod(x, 2.0)],
                         ids=["floor", "ceil", "round", "sign", "floor_divide", "mod"])
def test_non_differentiable_ops_give_no_gradient(fn, backend):
    x = ops.convert_to_tensor([0.3, 1.7, -2.2])
    with lamina.GradientTape() as tape:
        tape.watch(x)
        y = ops.sum(fn(x))
    assert tape.gradient(y, x) is None


def test_floor_divide_and_mod_operators_follow_numpy(backend):
    x = ops.convert_to_tensor([-7.0, -2.5, 3.0, 7.5])
    np.testing.assert_array_equal((x // 2.0).numpy(), np.array([-7.0, -2.5, 3.0, 7.5]) // 2.0)
    np.testing.assert_array_equal((x % 2.0).numpy(), np.array([-7.0, -2.5, 3.0, 7.5]) % 2.0)
    i = ops.convert_to_tensor([-7, 7])
    np.testing.assert_array_equal((i // 2).numpy(), [-4, 3])
    np.testing.assert_array_equal((i % 3).numpy(), [2, 1])
    assert (i // 2).dtype == "int32"


def test_power_gradient_with_respect_to_the_exponent(backend):
    base = ops.convert_to_tensor([2.0, 3.0], dtype="float64")
    exponent = ops.convert_to_tensor([3.0, 0.5], dtype="float64")
    with lamina.GradientTape() as tape:
        tape.watch(exponent)
        y = ops.sum(ops.power(base, exponent))
    expected = np.array([8.0 * math.log(2.0), math.sqrt(3.0) * math.log(3.0)])
    np.testing.assert_allclose(tape.gradient(y, exponent).numpy(), expected, rtol=1e-12)


def test_power_of_a_scalar_base_by_a_tensor_uses_the_tensor_backend(backend):
    y = 2.0 ** ops.convert_to_tensor([1.0, 3.0])
    assert y.backend is backend
    np.testing.assert_allclose(y.numpy(), [2.0, 8.0])


def test_where_casts_a_numeric_condition_to_bool(backend):
    y = ops.where(ops.convert_to_tensor([0.0, 2.0, -0.5]), 1, 0)
    assert y.dtype == "int32"
    np.testing.assert_array_equal(y.numpy(), [0, 1, 1])
    z = ops.where(ops.convert_to_tensor([1, 0]), 1.5, -1.5)
    assert z.dtype == "float32"
    np.testing.assert_array_equal(z.numpy(), [1.5, -1.5])


def test_where_gradient_is_masked_and_unbroadcast(backend):
    cond = ops.convert_to_tensor([[True, False, True], [False, False, True]])
    x1 = ops.convert_to_tensor([1.0, 2.0, 3.0], dtype="float64")
    x2 = ops.convert_to_tensor([[4.0], [5.0]], dtype="float64")
    with lamina.GradientTape() as tape:
        tape.watch([x1, x2])
        y = ops.sum(ops.where(cond, x1, x2))
    g1, g2 = tape.gradient(y, [x1, x2])
    np.testing.assert_array_equal(g1.numpy(), [1.0, 0.0, 2.0])
    np.testing.assert_array_equal(g2.numpy(), [[1.0], [2.0]])


def test_clip_with_min_above_max_gives_max_everywhere(backend):
    x = ops.convert_to_tensor([-2.0, 0.0, 2.0], dtype="float64")
    lo = ops.convert_to_tensor(1.0, dtype="float64")
    hi = ops.convert_to_tensor(-1.0, dtype="float64")
    with lamina.GradientTape() as tape:
        tape.watch([x, lo, hi])
        y = ops.sum(ops.clip(x, lo, hi))
    np.testing.assert_array_equal(ops.clip(x, lo, hi).numpy(), [-1.0, -1.0, -1.0])
    gx, glo, ghi = tape.gradient(y, [x, lo, hi])
    np.testing.assert_array_equal(gx.numpy(), [0.0, 0.0, 0.0])
    assert float(glo) == 0.0 and float(ghi) == 3.0


def test_clip_with_an_open_side(backend):
    x = ops.convert_to_tensor([-2.0, 0.0, 2.0])
    np.testing.assert_array_equal(ops.clip(x, None, 1.0).numpy(), [-2.0, 0.0, 1.0])
    np.testing.assert_array_equal(ops.clip(x, -1.0, None).numpy(), [-1.0, 0.0, 2.0])
    with pytest.raises(TypeError, match="clip: arguments 'x_min' and 'x_max' cannot both be None"):
        ops.clip(x, None, None)


def test_clip_keeps_the_dtype_of_x(backend):
    i = ops.convert_to_tensor([-5, 0, 5])
    y = ops.clip(i, -2, 2)
    assert y.dtype == "int32"
    np.testing.assert_array_equal(y.numpy(), [-2, 0, 2])
    assert ops.clip(ops.convert_to_tensor([1.0], dtype="float16"), 0, 0.5).dtype == "float16"
    # wider bounds apply in the promoted dtype, then the result comes back to x's dtype
    z = ops.clip(i, 0.5, 2.5)
    assert z.dtype == "int32"
    np.testing.assert_array_equal(z.numpy(), np.clip([-5, 0, 5], 0.5, 2.5).astype(np.int32))
    f32 = ops.convert_to_tensor([0.25, 3.0], dtype="float32")
    bound = ops.convert_to_tensor(1.0, dtype="float64")
    assert ops.clip(f32, 0, bound).dtype == "float32"
    b = ops.clip(ops.convert_to_tensor([True, False]), 0, 1)
    assert b.dtype == "int32"
    np.testing.assert_array_equal(b.numpy(), [1, 0])


def test_round_with_decimals(backend):
    x = np.array([1.234, -5.678, 0.125, 1234.5])
    np.testing.assert_allclose(ops.round(ops.convert_to_tensor(x), 2).numpy(), np.round(x, 2))
    np.testing.assert_allclose(ops.round(ops.convert_to_tensor(x), -1).numpy(),
                               np.round(x, -1))
    i = ops.convert_to_tensor([14, 15, 26, -35])
    assert ops.round(i, 1) is i
    y = ops.round(i, -1)
    assert y.dtype == "int32"
    np.testing.assert_array_equal(y.numpy(), np.round(np.array([14, 15, 26, -35]), -1))
    with pytest.raises(TypeError, match="round: argument 'decimals' must be an int; "
                                        "received 1.5"):
        ops.round(i, 1.5)


@pytest.mark.parametrize("name, inputs", [
    ("where", [np.array([True, False, True]), np.arange(3.0), -np.arange(3.0)]),
    ("clip", [np.array([-2.0, 0.5, 2.0]), np.array(-1.0), np.array(1.0)]),
    ("maximum", [np.array([-2.0, 0.5, 2.0]), np.array([0.0, 0.0, 3.0])]),
    ("erf", [np.array([-2.0, 0.5, 2.0])]),
    ("sigmoid", [np.array([-2.0, 0.5, 2.0])]),
    ("relu", [np.array([-2.0, 0.5, 2.0])]),
], ids=lambda v: v if isinstance(v, str) else "")
def test_forward_writes_into_a_given_out_buffer(name, inputs, backend):
    # the graph executor hands ops planned buffers through `out`
    op = ops.OP_REGISTRY[name]
    arrays = [backend.asarray(a) for a in inputs]
    expected = backend.to_host(op.forward(backend, *arrays))
    out = backend.empty(expected.shape, expected.dtype.name)
    result = op.forward(backend, *arrays, out=out)
    assert result is out
    np.testing.assert_array_equal(backend.to_host(out), expected)


def test_symbolic_inputs_give_specs():
    x = SymbolicTensor((None, 4), "float32")
    assert ops.exp(x).shape == (None, 4)
    assert ops.power(x, 2).dtype == "float32"
    assert ops.where(SymbolicTensor((None, 1), "bool"), x, 0.0).shape == (None, 4)
    assert ops.clip(x, 0, 1).shape == (None, 4)
    assert ops.sqrt(SymbolicTensor((3,), "int32")).dtype == "float32"


# --------------------------------------------------------------------------- errors
def test_add_of_unbroadcastable_shapes_names_op_and_shapes(backend):
    with pytest.raises(ShapeError, match=r"add: cannot broadcast 'x1' and 'x2' together; "
                                         r"received shapes \(3, 4\), \(5,\)"):
        ops.add(ops.ones((3, 4)), ops.ones((5,)))


def test_where_of_unbroadcastable_shapes_names_all_arguments(backend):
    with pytest.raises(ShapeError, match=r"where: cannot broadcast 'condition' and 'x1' and "
                                         r"'x2' together; received shapes \(2,\), \(3,\), "
                                         r"\(3,\)"):
        ops.where(ops.convert_to_tensor([True, False]), ops.ones((3,)), ops.zeros((3,)))


def test_where_requires_both_values(backend):
    with pytest.raises(TypeError, match="where: arguments 'x1' and 'x2' are both required"):
        ops.where(ops.convert_to_tensor([True]))


def test_binary_op_called_directly_rejects_mixed_dtypes(backend):
    add = ops.OP_REGISTRY["add"]
    with pytest.raises(DTypeError, match="add: arguments 'x1' and 'x2' must have one dtype .*"
                                         "received float32 and float64"):
        add(ops.ones((2,), "float32"), ops.ones((2,), "float64"))


def test_float_op_called_directly_rejects_integers(backend):
    with pytest.raises(DTypeError, match="exp: argument 'x' must be a floating-point tensor; "
                                         "received dtype int32"):
        ops.OP_REGISTRY["exp"](ops.convert_to_tensor([1, 2]))


def test_where_op_called_directly_checks_dtypes(backend):
    where = ops.OP_REGISTRY["where"]
    x = ops.ones((2,))
    with pytest.raises(DTypeError, match="where: argument 'condition' must be a bool tensor .*"
                                         "received dtype float32"):
        where(x, x, x)
    cond = ops.convert_to_tensor([True, False])
    with pytest.raises(DTypeError, match="where: arguments 'x1' and 'x2' must have one dtype"):
        where(cond, x, ops.ones((2,), "float64"))


def test_clip_op_called_directly_checks_dtypes(backend):
    clip = ops.OP_REGISTRY["clip"]
    x = ops.ones((2,))
    with pytest.raises(DTypeError, match="clip: arguments 'x', 'x_min' and 'x_max' must have "
                                         "one dtype .*received float32, float64 and float32"):
        clip(x, ops.zeros((), "float64"), x)


def test_clip_of_unbroadcastable_bounds(backend):
    with pytest.raises(ShapeError, match=r"clip: cannot broadcast 'x' and 'x_min' and 'x_max' "
                                         r"together; received shapes \(3,\), \(2,\), \(\)"):
        ops.clip(ops.ones((3,)), ops.zeros((2,)), 1.0)
