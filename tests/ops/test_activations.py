import math

import numpy as np
import pytest

import lamina
from lamina import activations, ops
from lamina.ops.activations import SELU_ALPHA, SELU_SCALE
from tests.harness import case, rand, rand_away_from, run_case

_erf = np.vectorize(math.erf)


def np_sigmoid(x):
    return 1 / (1 + np.exp(-x))


def np_relu(x):
    return np.maximum(x, 0)


def np_elu(x, alpha=1.0):
    return np.where(x > 0, x, alpha * np.expm1(np.minimum(x, 0)))


def np_gelu_tanh(x):
    return 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3)))


def np_gelu_exact(x):
    return 0.5 * x * (1 + _erf(x / np.sqrt(2)))


def np_softplus(x):
    return np.logaddexp(x, 0)


def np_hard_sigmoid(x):
    return np.clip(x + 3, 0, 6) / 6


def np_keras_relu(x, negative_slope, max_value, threshold):
    # keras.activations.relu's documented result
    y = np.where(x > threshold, x, 0.0)
    if max_value is not None:
        y = np.clip(y, 0, max_value)
    return y - negative_slope * np.maximum(threshold - x, 0)


def wide(*shape, kinks=(0.0,)):
    return rand_away_from(*shape, points=kinks, low=-3.0, high=3.0)


CASES = [
    case("relu", ops.relu, np_relu, [wide(3, 4)], second_order=True),
    case("relu", ops.relu, np_relu, [np.arange(-3, 3, dtype=np.int32)], grad=False,
         label="int"),
    case("relu", lambda x: activations.relu(x, negative_slope=0.1, max_value=1.5, threshold=0.2),
         lambda x: np_keras_relu(x, 0.1, 1.5, 0.2), [wide(3, 4, kinks=(0.2, 1.5))],
         second_order=True, label="keras-arguments"),
    case("relu", lambda x: activations.relu(x, max_value=1.0), lambda x: np.clip(x, 0, 1.0),
         [wide(3, 4, kinks=(0.0, 1.0))], label="max-value"),
    case("leaky_relu", lambda x: activations.relu(x, negative_slope=0.3),
         lambda x: np.where(x >= 0, x, 0.3 * x), [wide(6)], label="via-relu"),
    case("relu6", ops.relu6, lambda x: np.clip(x, 0, 6),
         [rand_away_from(3, 4, points=(0.0, 6.0), low=-2.0, high=8.0)], second_order=True),
    case("leaky_relu", ops.leaky_relu, lambda x: np.where(x >= 0, x, 0.2 * x), [wide(3, 4)],
         second_order=True),
    case("leaky_relu", lambda x: ops.leaky_relu(x, negative_slope=0.01),
         lambda x: np.where(x >= 0, x, 0.01 * x), [wide(3, 4)], label="slope-0.01"),
    case("leaky_relu", lambda x: ops.leaky_relu(x, negative_slope=1.5),
         lambda x: np.where(x >= 0, x, 1.5 * x), [wide(3, 4)], second_order=True,
         label="slope-above-1"),
    case("leaky_relu", lambda x: ops.leaky_relu(x, negative_slope=-0.5),
         lambda x: np.where(x >= 0, x, -0.5 * x), [wide(3, 4)], label="negative-slope"),
    case("elu", ops.elu, np_elu, [wide(3, 4)], second_order=True),
    case("elu", lambda x: ops.elu(x, alpha=0.5), lambda x: np_elu(x, 0.5), [wide(3, 4)],
         second_order=True, label="alpha"),
    case("selu", ops.selu, lambda x: SELU_SCALE * np_elu(x, SELU_ALPHA), [wide(3, 4)],
         second_order=True),
    case("gelu", ops.gelu, np_gelu_tanh, [wide(3, 4)], second_order=True),
    case("gelu", lambda x: ops.gelu(x, approximate=False), np_gelu_exact, [wide(3, 4)],
         second_order=True, label="exact"),
    case("softplus", ops.softplus, np_softplus, [wide(3, 4)], second_order=True),
    case("softplus", ops.softplus, np_softplus, [rand(6, low=-80.0, high=80.0)], grad=False,
         label="large"),
    case("softsign", ops.softsign, lambda x: x / (1 + np.abs(x)), [wide(3, 4)],
         second_order=True),
    case("silu", ops.silu, lambda x: x * np_sigmoid(x), [wide(3, 4)], second_order=True),
    case("swish", ops.swish, lambda x: x * np_sigmoid(x), [wide(3, 4)], second_order=True),
    case("hard_sigmoid", ops.hard_sigmoid, np_hard_sigmoid,
         [rand_away_from(3, 4, points=(-3.0, 3.0), low=-4.0, high=4.0)], second_order=True),
    case("hard_silu", ops.hard_silu, lambda x: x * np_hard_sigmoid(x),
         [rand_away_from(3, 4, points=(-3.0, 3.0), low=-4.0, high=4.0)], second_order=True),
    case("hard_swish", ops.hard_swish, lambda x: x * np_hard_sigmoid(x),
         [rand_away_from(3, 4, points=(-3.0, 3.0), low=-4.0, high=4.0)], second_order=True),
    case("exponential", ops.exponential, np.exp, [rand(3, 4)], second_order=True),
    case("linear", ops.linear, lambda x: x, [rand(3, 4)], second_order=True),
    case("log_sigmoid", ops.log_sigmoid, lambda x: -np_softplus(-x), [wide(3, 4)],
         second_order=True),
    case("celu", ops.celu, lambda x: np.where(x > 0, x, np.expm1(x)), [wide(3, 4)],
         second_order=True),
    case("celu", lambda x: ops.celu(x, alpha=2.0),
         lambda x: np.where(x > 0, x, 2.0 * np.expm1(x / 2.0)), [wide(3, 4)],
         second_order=True, label="alpha"),
    case("hard_tanh", ops.hard_tanh, lambda x: np.clip(x, -1, 1),
         [wide(3, 4, kinks=(-1.0, 1.0))], second_order=True),
    case("soft_shrink", ops.soft_shrink,
         lambda x: np.where(x > 0.5, x - 0.5, np.where(x < -0.5, x + 0.5, 0.0)),
         [wide(3, 4, kinks=(-0.5, 0.5))], second_order=True),
    case("soft_shrink", lambda x: ops.soft_shrink(x, threshold=1.0),
         lambda x: np.where(x > 1, x - 1, np.where(x < -1, x + 1, 0.0)),
         [wide(3, 4, kinks=(-1.0, 1.0))], label="threshold"),
    case("hard_shrink", ops.hard_shrink, lambda x: np.where(np.abs(x) > 0.5, x, 0.0),
         [wide(3, 4, kinks=(-0.5, 0.5))], second_order=True),
    case("tanh_shrink", ops.tanh_shrink, lambda x: x - np.tanh(x), [wide(3, 4)],
         second_order=True),
    case("squareplus", ops.squareplus, lambda x: (x + np.sqrt(x * x + 4)) / 2, [wide(3, 4)],
         second_order=True),
    case("squareplus", lambda x: ops.squareplus(x, b=1.0),
         lambda x: (x + np.sqrt(x * x + 1)) / 2, [wide(3, 4)], label="b"),
    case("sparse_plus", ops.sparse_plus,
         lambda x: np.where(x <= -1, 0.0, np.where(x >= 1, x, (x + 1) ** 2 / 4)),
         [wide(3, 4, kinks=(-1.0, 1.0))], second_order=True),
]


@pytest.mark.parametrize("c", CASES, ids=str)
def test_forward_and_gradient(c, backend):
    run_case(c)


def test_relu_is_a_primitive_op_with_a_mask_gradient(backend):
    x = ops.convert_to_tensor([-2.0, -0.5, 0.5, 3.0])
    assert ops.OP_REGISTRY["relu"].differentiable
    with lamina.GradientTape() as tape:
        tape.watch(x)
        y = ops.sum(ops.relu(x))
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), [0.0, 0.0, 1.0, 1.0])


def test_relu_keeps_integer_dtypes_and_others_give_floatx(backend):
    i = ops.convert_to_tensor([-2, 0, 3])
    assert ops.relu(i).dtype == "int32"
    assert ops.relu6(i).dtype == "int32"
    for name in ("elu", "gelu", "softplus", "silu", "leaky_relu", "hard_sigmoid"):
        y = getattr(ops, name)(i)
        assert y.dtype == "float32", name
        expected = getattr(ops, name)(ops.convert_to_tensor([-2.0, 0.0, 3.0]))
        np.testing.assert_allclose(y.numpy(), expected.numpy(), err_msg=name)


@pytest.mark.parametrize("threshold", [-0.5, 0.5])
def test_relu_with_a_threshold_only(threshold, backend):
    # Keras computes this as x * (x > threshold), without the relu primitive
    x = ops.convert_to_tensor(np.array([-1.0, -0.25, 0.25, 1.0]), dtype="float64")
    with lamina.GradientTape() as tape:
        tape.watch(x)
        y = activations.relu(x, threshold=threshold)
        total = ops.sum(y)
    np.testing.assert_array_equal(y.numpy(), np_keras_relu(x.numpy(), 0.0, None, threshold))
    np.testing.assert_array_equal(tape.gradient(total, x).numpy(), x.numpy() > threshold)


def test_gelu_defaults_to_the_tanh_approximation(backend):
    x = np.linspace(-3, 3, 13)
    y = ops.gelu(ops.convert_to_tensor(x)).numpy()
    np.testing.assert_allclose(y, np_gelu_tanh(x), rtol=1e-6)
    assert np.max(np.abs(np_gelu_tanh(x) - np_gelu_exact(x))) > 1e-5   # the two differ


def test_softplus_and_log_sigmoid_are_stable_in_float32(backend):
    x = ops.convert_to_tensor([-1000.0, -100.0, 0.0, 100.0, 1000.0], dtype="float32")
    with np.errstate(over="raise", invalid="raise"):
        sp = ops.softplus(x).numpy()
        ls = ops.log_sigmoid(x).numpy()
    np.testing.assert_allclose(sp, [0.0, 3.7200760e-44, math.log(2), 100.0, 1000.0],
                               rtol=1e-6, atol=1e-40)
    np.testing.assert_allclose(ls, [-1000.0, -100.0, -math.log(2), -3.7200760e-44, 0.0],
                               rtol=1e-6, atol=1e-40)


def test_elu_does_not_overflow_for_large_inputs(backend):
    x = ops.convert_to_tensor([1000.0, -1000.0], dtype="float32")
    with np.errstate(over="raise", invalid="raise"):
        np.testing.assert_allclose(ops.elu(x).numpy(), [1000.0, -1.0])
        np.testing.assert_allclose(ops.selu(x).numpy(),
                                   [SELU_SCALE * 1000.0, -SELU_SCALE * SELU_ALPHA], rtol=1e-6)


def test_selu_uses_keras_constants():
    assert SELU_ALPHA == 1.67326324 and SELU_SCALE == 1.05070098


@pytest.mark.parametrize("name", ["relu", "gelu", "silu", "softplus", "elu", "hard_silu"])
def test_float16_forward(name, backend):
    x = np.linspace(-3, 3, 11).astype(np.float16)
    y = getattr(ops, name)(ops.convert_to_tensor(x))
    assert y.dtype == "float16"
    reference = getattr(ops, name)(ops.convert_to_tensor(x.astype(np.float64))).numpy()
    np.testing.assert_allclose(y.numpy().astype(np.float64), reference, rtol=3e-3, atol=2e-3)


def test_aliases_are_the_same_functions():
    assert ops.swish is ops.silu
    assert ops.hard_swish is ops.hard_silu


def test_leaky_relu_rejects_a_slope_that_is_not_a_number(backend):
    x = ops.ones((2,))
    with pytest.raises(TypeError, match="leaky_relu: argument 'negative_slope' must be a "
                                        "number; received '0.1' of type str"):
        ops.leaky_relu(x, negative_slope="0.1")
    with pytest.raises(TypeError, match="leaky_relu: argument 'negative_slope' must be a "
                                        "number; received True of type bool"):
        ops.leaky_relu(x, negative_slope=True)
    np.testing.assert_allclose(ops.leaky_relu(-x, np.float32(0.5)).numpy(), [-0.5, -0.5])


@pytest.mark.parametrize("call, message", [
    (lambda x: activations.relu(x, negative_slope=None), "relu: argument 'negative_slope'"),
    (lambda x: activations.relu(x, max_value="6"), "relu: argument 'max_value'"),
    (lambda x: activations.relu(x, threshold=[0.5]), "relu: argument 'threshold'"),
    (lambda x: ops.elu(x, alpha="1"), "elu: argument 'alpha'"),
    (lambda x: ops.celu(x, alpha=None), "celu: argument 'alpha'"),
    (lambda x: ops.soft_shrink(x, threshold="a"), "soft_shrink: argument 'threshold'"),
    (lambda x: ops.hard_shrink(x, threshold=None), "hard_shrink: argument 'threshold'"),
    (lambda x: ops.squareplus(x, b="4"), "squareplus: argument 'b'"),
], ids=["relu-slope", "relu-max", "relu-threshold", "elu", "celu", "soft_shrink",
        "hard_shrink", "squareplus"])
def test_scalar_arguments_must_be_numbers(call, message, backend):
    with pytest.raises(TypeError, match=message + " must be a number"):
        call(ops.ones((2,)))
