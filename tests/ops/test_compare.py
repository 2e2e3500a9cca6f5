import numpy as np
import pytest

import lamina
from lamina import ops
from lamina.errors import DTypeError, ShapeError
from lamina.graph import SymbolicTensor
from tests.harness import case, rand, run_case


def halves(*shape):
    """Multiples of 1/2 in [-1, 1]: exact in every float dtype, and full of ties."""
    return np.round(rand(*shape) * 2) / 2


_a, _b = halves(3, 4), halves(4)
_ints = np.array([[-2, 0, 1, 3], [3, 1, 0, -2]], dtype=np.int32)
_bools = np.array([[True, False, True, False], [True, True, False, False]])
_special = np.array([np.nan, np.inf, -np.inf, 0.0, -1.5, 2.0])

COMPARISONS = {"equal": np.equal, "not_equal": np.not_equal, "less": np.less,
               "less_equal": np.less_equal, "greater": np.greater,
               "greater_equal": np.greater_equal}
LOGICAL = {"logical_and": np.logical_and, "logical_or": np.logical_or,
           "logical_xor": np.logical_xor}

CASES = []
for _name, _ref in COMPARISONS.items():
    _fn = getattr(ops, _name)
    CASES += [
        case(_name, _fn, _ref, [_a, _b], grad=False),
        case(_name, _fn, _ref, [_ints, _ints[::-1]], grad=False, label="int"),
        case(_name, lambda x, f=_fn: f(x, 0.5), lambda x, r=_ref: r(x, 0.5), [_a],
             grad=False, label="scalar"),
        case(_name, lambda i, f=_fn: f(i, 0.5), lambda i, r=_ref: r(i, 0.5), [_ints],
             grad=False, label="int-vs-float-scalar"),
    ]
for _name, _ref in LOGICAL.items():
    _fn = getattr(ops, _name)
    CASES += [
        case(_name, _fn, _ref, [_bools, _bools[:, ::-1]], grad=False),
        case(_name, _fn, _ref, [_bools, np.array([True, False, False, True])], grad=False,
             label="broadcast"),
        case(_name, _fn, _ref, [_a[:2], _ints], grad=False, label="truth-values"),
    ]
CASES += [
    case("logical_not", ops.logical_not, np.logical_not, [_bools], grad=False),
    case("logical_not", ops.logical_not, np.logical_not, [_a], grad=False,
         label="truth-values"),
    case("isnan", ops.isnan, np.isnan, [_special], grad=False),
    case("isnan", ops.isnan, np.isnan, [_ints], grad=False, label="int"),
    case("isinf", ops.isinf, np.isinf, [_special], grad=False),
    case("isinf", ops.isinf, np.isinf, [_ints], grad=False, label="int"),
    case("isfinite", ops.isfinite, np.isfinite, [_special], grad=False),
    case("isfinite", ops.isfinite, np.isfinite, [_ints], grad=False, label="int"),
    case("isclose", ops.isclose, np.isclose,
         [np.array([1.0, 1.0, 100.0, np.inf, np.inf, np.nan, 0.0]),
          np.array([1.0 + 1e-7, 1.1, 100.0005, np.inf, -np.inf, np.nan, 1e-9])],
         grad=False),
    case("isclose", lambda a, b: ops.isclose(a, b, equal_nan=True),
         lambda a, b: np.isclose(a, b, equal_nan=True),
         [np.array([np.nan, np.nan, 1.0]), np.array([np.nan, 1.0, np.nan])], grad=False,
         label="equal-nan"),
    case("isclose", lambda a, b: ops.isclose(a, b, rtol=0.1, atol=0.0),
         lambda a, b: np.isclose(a, b, rtol=0.1, atol=0.0),
         [np.array([1.0, 2.0, -3.0]), np.array([1.05, 2.5, -3.2])], grad=False,
         label="tolerances"),
    case("isclose", ops.isclose, np.isclose,
         [np.array([100000, 5], np.int32), np.array([100001, 6], np.int32)], grad=False,
         label="int"),
]


@pytest.mark.parametrize("c", CASES, ids=str)
def test_forward_and_gradient(c, backend):
    run_case(c)


@pytest.mark.parametrize("name", list(COMPARISONS) + list(LOGICAL))
def test_binary_predicates_give_bool_and_no_gradient(name, backend):
    x = ops.convert_to_tensor([0.5, -1.0, 2.0])
    y = ops.convert_to_tensor([0.5, 1.0, -2.0])
    with lamina.GradientTape() as tape:
        tape.watch([x, y])
        out = getattr(ops, name)(x, y)
    assert out.dtype == "bool"
    assert not ops.OP_REGISTRY[name].differentiable
    assert tape.gradient(ops.cast(out, "float32"), [x, y]) == [None, None]


def test_operators_route_to_the_comparison_ops(backend):
    x = ops.convert_to_tensor([1.0, 2.0, 3.0])
    np.testing.assert_array_equal((x > 2.0).numpy(), [False, False, True])
    np.testing.assert_array_equal((x <= 2.0).numpy(), [True, True, False])
    np.testing.assert_array_equal((x == 2.0).numpy(), [False, True, False])
    np.testing.assert_array_equal((x != 2.0).numpy(), [True, False, True])
    p, q = x > 1.5, x < 2.5
    np.testing.assert_array_equal((p & q).numpy(), [False, True, False])
    np.testing.assert_array_equal((p | q).numpy(), [True, True, True])
    np.testing.assert_array_equal((p ^ q).numpy(), [True, False, True])
    np.testing.assert_array_equal((~p).numpy(), [True, False, False])


def test_comparisons_promote_mixed_dtypes(backend):
    i = ops.convert_to_tensor([1, 2, 3], dtype="int32")
    f = ops.convert_to_tensor([1.5, 2.0, 2.5], dtype="float32")
    np.testing.assert_array_equal(ops.less(i, f).numpy(), [True, False, False])
    np.testing.assert_array_equal(ops.equal(i, 2.5).numpy(), [False, False, False])
    np.testing.assert_array_equal(ops.equal(i, 2).numpy(), [False, True, False])
    u = ops.convert_to_tensor(np.array([200, 7], np.uint8))
    np.testing.assert_array_equal(ops.greater(u, ops.convert_to_tensor([-1, 8])).numpy(),
                                  [True, False])


def test_float16_comparisons(backend):
    x = ops.convert_to_tensor(np.array([0.1, 0.5, np.inf], np.float16))
    np.testing.assert_array_equal(ops.greater(x, 0.25).numpy(), [False, True, True])
    np.testing.assert_array_equal(ops.isinf(x).numpy(), [False, False, True])


def test_symbolic_comparisons_give_bool_specs():
    x = SymbolicTensor((None, 3), "float32")
    assert ops.less(x, 0.0).dtype == "bool"
    assert ops.logical_and(x, ops.isnan(x)).shape == (None, 3)
    assert ops.isfinite(SymbolicTensor((2,), "int32")).dtype == "bool"


def test_comparison_of_unbroadcastable_shapes(backend):
    with pytest.raises(ShapeError, match=r"greater: cannot broadcast 'x1' and 'x2' together; "
                                         r"received shapes \(2, 3\), \(2,\)"):
        ops.greater(ops.ones((2, 3)), ops.ones((2,)))


def test_logical_op_called_directly_rejects_non_bool(backend):
    with pytest.raises(DTypeError, match="logical_and: argument 'x2' must be a bool tensor "
                                         r"\(lamina.ops.logical_and casts it\); received "
                                         "dtype float32"):
        ops.OP_REGISTRY["logical_and"](ops.convert_to_tensor([True]), ops.ones((1,)))
    with pytest.raises(DTypeError, match="logical_not: argument 'x' must be a bool tensor"):
        ops.OP_REGISTRY["logical_not"](ops.ones((1,)))


def test_predicate_called_directly_rejects_integers(backend):
    with pytest.raises(DTypeError, match="isnan: argument 'x' must be a floating-point tensor "
                                         r"\(lamina.ops.isnan accepts others\); received "
                                         "dtype int32"):
        ops.OP_REGISTRY["isnan"](ops.convert_to_tensor([1]))
