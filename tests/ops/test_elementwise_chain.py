"""The elementwise_chain op (lamina/ops/elementwise_chain.py): programs against numpy, on
every backend (the cupy case runs the generated CUDA kernel), and its errors."""
import math

import numpy as np
import pytest

from lamina import ops
from lamina.errors import DTypeError, GradientError, ShapeError
from lamina.ops.elementwise_chain import ElementwiseChain, elementwise_chain
from tests.harness import case, rand, run_case

_erf = np.vectorize(math.erf)

# tanh(x0 * 2 + x1) * 0.5, x1 broadcast along the rows
AFFINE_TANH = (("multiply", (("x", 0), ("c", 2.0))), ("add", (("t", 0), ("x", 1))),
               ("tanh", (("t", 1),)), ("multiply", (("t", 2), ("c", 0.5))))

# every unary step applied to a positive x0 (so log and sqrt are defined), summed
UNARY_REFS = {
    "negative": np.negative, "abs": np.abs, "sign": np.sign, "exp": np.exp, "log": np.log,
    "log1p": np.log1p, "expm1": np.expm1, "sqrt": np.sqrt, "rsqrt": lambda a: 1 / np.sqrt(a),
    "square": np.square, "reciprocal": lambda a: 1 / a, "tanh": np.tanh,
    "sigmoid": lambda a: 1 / (1 + np.exp(-a)), "erf": _erf, "sin": np.sin, "cos": np.cos,
    "floor": np.floor, "ceil": np.ceil, "round": np.round, "relu": lambda a: np.maximum(a, 0),
}
# the binary steps on (x0, x1), summed
BINARY_REFS = {"add": np.add, "subtract": np.subtract, "multiply": np.multiply,
               "divide": np.divide, "power": np.power, "maximum": np.maximum,
               "minimum": np.minimum}


def _summed(names, operands) -> tuple:
    """A program applying each named step to ``operands`` and adding the results."""
    steps = [(name, operands) for name in names]
    total = ("t", 0)
    for k in range(1, len(names)):
        steps.append(("add", (total, ("t", k))))
        total = ("t", len(steps) - 1)
    return tuple(steps)


def _sum_of(refs, *arrays):
    return sum(ref(*arrays) for ref in refs.values())


UNARY_PROGRAM = _summed(list(UNARY_REFS), (("x", 0),))
BINARY_PROGRAM = _summed(list(BINARY_REFS), (("x", 0), ("x", 1)))

CASES = [
    case("elementwise_chain", lambda x0, x1: elementwise_chain(x0, x1, program=AFFINE_TANH),
         lambda x0, x1: np.tanh(x0 * 2 + x1) * 0.5, [rand(3, 4), rand(4)], grad=False,
         label="broadcast"),
    case("elementwise_chain", lambda x: elementwise_chain(x, program=UNARY_PROGRAM),
         lambda x: _sum_of(UNARY_REFS, x), [rand(2, 5, low=0.1, high=2.4)], grad=False,
         label="unary-steps"),
    case("elementwise_chain", lambda a, b: elementwise_chain(a, b, program=BINARY_PROGRAM),
         lambda a, b: _sum_of(BINARY_REFS, a, b),
         [rand(2, 5, low=0.2, high=2.0), rand(2, 5, low=-1.5, high=1.5)], grad=False,
         label="binary-steps"),
]


@pytest.mark.parametrize("c", CASES, ids=str)
def test_forward(c, backend):
    run_case(c)


def test_out_may_be_an_input_of_the_result_shape(backend):
    x = backend.asarray(np.linspace(-1, 1, 12, dtype="float32").reshape(3, 4))
    b = backend.asarray(np.linspace(0, 1, 4, dtype="float32"))
    want = np.tanh(backend.to_host(x) * 2 + backend.to_host(b)) * 0.5
    got = ElementwiseChain.forward(backend, x, b, out=x, program=AFFINE_TANH,
                                   dtype="float32")
    assert got is x
    np.testing.assert_allclose(backend.to_host(x), want, rtol=1e-6, atol=1e-7)


def test_it_has_no_gradient():
    x = ops.convert_to_tensor(np.ones((2, 2), "float32"))
    z = elementwise_chain(x, ops.convert_to_tensor(np.ones(2, "float32")), program=AFFINE_TANH)
    assert not ElementwiseChain.differentiable
    with pytest.raises(GradientError, match="created by graph optimization after autodiff"):
        ElementwiseChain.gradient(None, z)


@pytest.mark.parametrize("program, match", [
    ((), "non-empty tuple of"),
    ((("exp", "x0"),), "must be \\(op name, refs\\)"),
    ((("where", (("x", 0),)),), "names op 'where'"),
    ((("add", (("x", 0),)),), r"\(add\) takes 2 refs; received 1"),
    ((("exp", (("x", 1),)),), r"has ref \('x', 1\)"),
    ((("exp", (("t", 0),)),), r"has ref \('t', 0\)"),
    ((("add", (("x", 0), ("c", float("inf")))),), r"has ref \('c', inf\)"),
    ((("add", (("x", 0), ("c", 1))),), r"has ref \('c', 1\)"),
    ((("exp", (("y", 0),)),), r"has ref \('y', 0\)"),
])
def test_malformed_programs_are_rejected(program, match):
    x = ops.convert_to_tensor(np.ones(3, "float32"))
    with pytest.raises(ValueError, match=match):
        elementwise_chain(x, program=program)


def test_every_input_must_be_read():
    x = ops.convert_to_tensor(np.ones(3, "float32"))
    with pytest.raises(ValueError, match=r"never reads input\(s\) \[1\]"):
        elementwise_chain(x, x, program=(("exp", (("x", 0),)),))


def test_dtype_and_shape_errors():
    program = (("add", (("x", 0), ("x", 1))),)
    x32 = ops.convert_to_tensor(np.ones(3, "float32"))
    x64 = ops.convert_to_tensor(np.ones(3, "float64"))
    with pytest.raises(DTypeError, match="input 1 must have dtype float32"):
        ElementwiseChain(x32, x64, program=program, dtype="float32")
    ints = ops.convert_to_tensor(np.ones(3, "int32"))
    with pytest.raises(DTypeError, match="'dtype' must be one of"):
        ElementwiseChain(ints, ints, program=program, dtype="int32")
    with pytest.raises(ShapeError, match="cannot broadcast"):
        elementwise_chain(x32, ops.convert_to_tensor(np.ones(4, "float32")), program=program)
    with pytest.raises(ValueError, match="at least one input"):
        ElementwiseChain(program=program, dtype="float32")
