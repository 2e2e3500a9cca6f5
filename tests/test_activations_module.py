"""lamina.activations: every Keras 3 activation name against numpy, gradients of the new
compositions, and get / serialize / deserialize."""
import math

import numpy as np
import pytest

from lamina import activations, ops
from lamina.errors import ShapeError
from lamina.ops.activations import SELU_ALPHA, SELU_SCALE
from lamina.saving import UnknownObjectError, register_keras_serializable
from tests.harness import case, check_forward, check_gradient, rand, rand_away_from

_erf = np.vectorize(math.erf)


def sigmoid(x):
    return 1 / (1 + np.exp(-x))


def softplus(x):
    return np.log1p(np.exp(x))


def softmax(x, axis=-1):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def hard_sigmoid(x):
    return np.clip(x / 6 + 0.5, 0, 1)


def np_sparsemax(x, axis=-1):
    """The sort-based definition (Martins & Astudillo, 2016, Algorithm 1)."""
    z = np.moveaxis(x, axis, -1)
    ordered = -np.sort(-z, axis=-1)
    cumsum = np.cumsum(ordered, axis=-1)
    rank = np.arange(1, z.shape[-1] + 1)
    k = (1 + rank * ordered > cumsum).sum(axis=-1, keepdims=True)
    tau = (np.take_along_axis(cumsum, k - 1, axis=-1) - 1) / k
    return np.moveaxis(np.maximum(z - tau, 0), -1, axis)


def np_glu(x, axis=-1):
    a, b = np.split(x, 2, axis=axis)
    return a * sigmoid(b)


WIDE = dict(low=-8.0, high=8.0)
REFERENCES = {
    "relu": (lambda x: np.maximum(x, 0), WIDE),
    "relu6": (lambda x: np.clip(x, 0, 6), WIDE),
    "leaky_relu": (lambda x: np.where(x >= 0, x, 0.2 * x), {}),
    "elu": (lambda x: np.where(x > 0, x, np.expm1(np.minimum(x, 0))), WIDE),
    "selu": (lambda x: SELU_SCALE * np.where(x > 0, x, SELU_ALPHA * np.expm1(np.minimum(x, 0))),
             WIDE),
    "gelu": (lambda x: 0.5 * x * (1 + _erf(x / np.sqrt(2))), WIDE),
    "softmax": (softmax, WIDE),
    "log_softmax": (lambda x: np.log(softmax(x)), WIDE),
    "sigmoid": (sigmoid, WIDE),
    "tanh": (np.tanh, WIDE),
    "softplus": (softplus, WIDE),
    "softsign": (lambda x: x / (1 + np.abs(x)), WIDE),
    "silu": (lambda x: x * sigmoid(x), WIDE),
    "swish": (lambda x: x * sigmoid(x), {}),
    "hard_sigmoid": (hard_sigmoid, WIDE),
    "hard_silu": (lambda x: x * hard_sigmoid(x), WIDE),
    "hard_swish": (lambda x: x * hard_sigmoid(x), WIDE),
    "exponential": (np.exp, {}),
    "linear": (lambda x: x, {}),
    "mish": (lambda x: x * np.tanh(softplus(x)), WIDE),
    "celu": (lambda x: np.maximum(x, 0) + np.expm1(np.minimum(x, 0)), WIDE),
    "glu": (np_glu, WIDE),
    "log_sigmoid": (lambda x: -softplus(-x), WIDE),
    "hard_tanh": (lambda x: np.clip(x, -1, 1), dict(low=-3.0, high=3.0)),
    "tanh_shrink": (lambda x: x - np.tanh(x), WIDE),
    "hard_shrink": (lambda x: np.where(np.abs(x) > 0.5, x, 0), {}),
    "soft_shrink": (lambda x: np.sign(x) * np.maximum(np.abs(x) - 0.5, 0), {}),
    "squareplus": (lambda x: (x + np.sqrt(x * x + 4)) / 2, WIDE),
    "sparse_plus": (lambda x: np.where(x <= -1, 0, np.where(x >= 1, x, (x + 1) ** 2 / 4)),
                    dict(low=-3.0, high=3.0)),
    "sparse_sigmoid": (lambda x: np.clip((x + 1) / 2, 0, 1), dict(low=-3.0, high=3.0)),
    "sparsemax": (np_sparsemax, {}),
    "threshold": (lambda x: np.where(x > 0.3, x, -2.0), {}),
}
EXTRA_ARGS = {"threshold": dict(threshold=0.3, default_value=-2.0)}


def test_every_keras_name_has_a_reference():
    assert set(REFERENCES) == set(activations.ALL_OBJECTS)


@pytest.mark.parametrize("name", sorted(REFERENCES))
def test_forward_against_numpy(name):
    ref, data = REFERENCES[name]
    fn = activations.get(name)
    kwargs = EXTRA_ARGS.get(name, {})
    check_forward(case(name, lambda x: fn(x, **kwargs), ref, [rand(4, 6, **data)],
                       fwd_rtol32=2e-5, fwd_atol32=2e-6))


# The activations composed in lamina/activations.py (the rest are lamina.ops functions,
# whose gradients tests/ops checks).
GRADIENT_CASES = [
    case("gelu", activations.gelu, REFERENCES["gelu"][0], [rand(3, 4, low=-3, high=3)]),
    case("mish", activations.mish, REFERENCES["mish"][0], [rand(3, 4, low=-3, high=3)]),
    case("glu", activations.glu, np_glu, [rand(3, 4)]),
    case("glu", lambda x: activations.glu(x, axis=0), lambda x: np_glu(x, axis=0),
         [rand(4, 3)], label="axis0"),
    case("sparse_sigmoid", activations.sparse_sigmoid, REFERENCES["sparse_sigmoid"][0],
         [rand_away_from(3, 4, points=(-1.0, 1.0), low=-2, high=2)]),
    case("threshold", lambda x: activations.threshold(x, 0.3, -2.0),
         REFERENCES["threshold"][0], [rand_away_from(3, 4, points=(0.3,))]),
    case("sparsemax", activations.sparsemax, np_sparsemax, [rand(3, 5, low=-2, high=2)]),
    case("sparsemax", lambda x: activations.sparsemax(x, axis=0),
         lambda x: np_sparsemax(x, axis=0), [rand(5, 3, low=-2, high=2)], label="axis0"),
]


@pytest.mark.parametrize("c", GRADIENT_CASES, ids=str)
def test_new_compositions_forward_and_gradient(c):
    check_forward(c)
    check_gradient(c)


def test_relu_follows_keras_examples():
    x = ops.convert_to_tensor([-10.0, -5.0, 0.0, 5.0, 10.0])
    np.testing.assert_array_equal(activations.relu(x).numpy(), [0, 0, 0, 5, 10])
    np.testing.assert_array_equal(activations.relu(x, negative_slope=0.5).numpy(),
                                  [-5, -2.5, 0, 5, 10])
    np.testing.assert_array_equal(activations.relu(x, max_value=5.0).numpy(), [0, 0, 0, 5, 5])
    np.testing.assert_array_equal(activations.relu(x, threshold=5.0).numpy(), [0, 0, 0, 0, 10])
    np.testing.assert_array_equal(
        activations.relu(x, negative_slope=0.5, max_value=6.0, threshold=2.0).numpy(),
        [-6, -3.5, -1, 5, 6])


def test_keras_defaults():
    x = ops.convert_to_tensor([-1.0, 0.5, 2.0], dtype="float64")
    exact = 0.5 * x.numpy() * (1 + _erf(x.numpy() / np.sqrt(2)))
    np.testing.assert_allclose(activations.gelu(x).numpy(), exact, rtol=1e-12)   # exact
    np.testing.assert_allclose(activations.gelu(x, approximate=True).numpy(),
                               ops.gelu(x).numpy(), rtol=1e-12)
    np.testing.assert_allclose(activations.leaky_relu(x).numpy(), [-0.2, 0.5, 2.0])


def test_sparsemax_is_a_distribution_with_exact_zeros():
    x = ops.convert_to_tensor([[3.0, 1.0, 0.1, -2.0], [0.5, 0.5, 0.5, 0.5]])
    out = activations.sparsemax(x).numpy()
    np.testing.assert_allclose(out.sum(axis=-1), [1.0, 1.0], rtol=1e-6)
    np.testing.assert_array_equal(out[0], [1.0, 0.0, 0.0, 0.0])
    np.testing.assert_allclose(out[1], [0.25] * 4, rtol=1e-6)          # ties share
    ties = np.array([[1.0, 1.0, 0.2, 0.9]])
    np.testing.assert_allclose(activations.sparsemax(ops.convert_to_tensor(ties)).numpy(),
                               np_sparsemax(ties), rtol=1e-6)


def test_integer_inputs_become_floats():
    x = ops.convert_to_tensor([-1, 0, 2])
    for fn in (activations.mish, activations.sparse_sigmoid, activations.sparsemax):
        assert fn(x).dtype == "float32"
    assert activations.glu(ops.convert_to_tensor([[1, 2]])).dtype == "float32"


def test_glu_errors():
    with pytest.raises(ShapeError, match=r"glu: axis -1 of 'x' must exist and have even size "
                                         r"\(glu splits it in two halves\); received shape "
                                         r"\(2, 3\)"):
        activations.glu(ops.ones((2, 3)))
    with pytest.raises(ShapeError, match=r"glu: axis 2 of 'x' must exist"):
        activations.glu(ops.ones((2, 4)), axis=2)


@pytest.mark.parametrize("name", sorted(activations.ALL_OBJECTS))
def test_serialize_gives_the_name_get_reads_back(name):
    fn = activations.get(name)
    stored = activations.serialize(fn)
    assert isinstance(stored, str)
    assert activations.get(stored) is fn


def test_aliases_and_linear():
    assert activations.get("swish") is activations.silu
    assert activations.get("hard_swish") is activations.hard_silu
    assert activations.serialize(activations.swish) == "silu"
    assert activations.get(None) is activations.linear
    assert activations.serialize(None) == "linear"
    assert activations.serialize(ops.gelu) == "gelu"          # as Keras stores ops.gelu
    # ops.relu is Keras's relu(x); the activation adds Keras's negative_slope/max_value/
    # threshold, and ops.relu stored in a config comes back as the activation
    assert activations.serialize(ops.relu) == "relu"
    assert activations.get(activations.serialize(ops.relu)) is activations.relu


def test_dict_configs():
    config = {"module": "builtins", "class_name": "function", "config": "relu",
              "registered_name": "function"}
    assert activations.get(config) is activations.relu
    assert activations.deserialize("tanh") is activations.tanh


def test_users_functions():
    @register_keras_serializable(package="ActTest")
    def cube(x):
        return ops.power(x, 3)
    stored = activations.serialize(cube)
    assert stored == {"module": "builtins", "class_name": "function",
                      "config": "ActTest>cube", "registered_name": "function"}
    assert activations.get(stored) is cube
    assert activations.get("ActTest>cube") is cube

    def halve(x):
        return ops.multiply(x, 0.5)
    stored = activations.serialize(halve)
    assert stored["config"] == "halve"
    assert activations.deserialize(stored, custom_objects={"halve": halve}) is halve
    assert activations.get(halve) is halve


def test_unknown_names_list_the_valid_ones():
    with pytest.raises(UnknownObjectError, match=r"activations.get: unknown activation "
                                                 r"'rleu' \(argument 'identifier'\); did you mean "
                                                 r"'relu'\? Lamina has \d+ built-in activations"):
        activations.get("rleu")
    with pytest.raises(UnknownObjectError, match="unknown activation 'GlorotUniform'"):
        import lamina.initializers  # noqa: F401  (registers GlorotUniform globally)
        activations.get("GlorotUniform")
    with pytest.raises(UnknownObjectError, match=r"Lamina has \d+ built-in activations"):
        activations.get({"class_name": "function", "config": "rleu"})


def test_type_errors():
    with pytest.raises(TypeError, match="activations.get: could not interpret activation "
                                        "identifier 3: expected None, a name, a config dict "
                                        "or a callable"):
        activations.get(3)
    with pytest.raises(TypeError, match="activations.serialize: argument 'activation' must be "
                                        "callable; received 'relu'"):
        activations.serialize("relu")
