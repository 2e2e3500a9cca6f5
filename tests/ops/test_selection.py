"""unique, nonzero, isin, unravel_index, select, get_item (Keras 3.15.1's values)."""
import numpy as np
import pytest

import lamina
from lamina import ops
from lamina.errors import DTypeError
from tests.harness import case, rand, run_case

_X = np.array([3, 1, 3, 2], np.int32)
_C1 = np.array([True, False, False, True])
_C2 = np.array([True, True, False, False])


def np_unique_padded(x):
    # Keras 3.15.1: unique(x, size=5, return_index, return_inverse, return_counts)
    return (np.array([1, 2, 3, 1, 1], np.int32), np.array([1, 3, 0, 1, 1], np.int32),
            np.array([2, 0, 2, 1], np.int32), np.array([1, 1, 2, 0, 0], np.int32))


CASES = [
    case("unique", lambda x: ops.unique(x), np.unique, [_X], grad=False, graph=False),
    case("unique", lambda x: ops.unique(x, size=5, return_index=True, return_inverse=True,
                                        return_counts=True),
         np_unique_padded, [_X], grad=False, label="size"),
    case("unique", lambda x: ops.unique(x, size=2, return_counts=True),
         lambda x: (np.array([1, 2], np.int32), np.array([1, 1], np.int32)), [_X],
         grad=False, label="cut"),
    case("unique", lambda x: ops.unique(x, axis=0, return_inverse=True),
         lambda x: (np.array([[0, 5], [1, 2]], np.int32), np.array([1, 1, 0], np.int32)),
         [np.array([[1, 2], [1, 2], [0, 5]], np.int32)], grad=False, graph=False,
         label="axis"),
    case("unique", lambda x: ops.unique(x, return_inverse=True),
         lambda x: (np.array([1, 2, 3], np.int32), np.array([[2, 0], [2, 1]], np.int32)),
         [np.array([[3, 1], [3, 2]], np.int32)], grad=False, graph=False, label="inverse-2d"),
    case("unique", lambda x: ops.unique(x, size=4, fill_value=-7.5),
         lambda x: np.array([0.25, 1.5, -7.5, -7.5]), [np.array([1.5, 0.25, 1.5])],
         grad=False, label="fill"),
    case("nonzero", ops.nonzero, lambda x: tuple(i.astype(np.int32) for i in np.nonzero(x)),
         [np.array([[3.0, 0, 1], [0, 5, 5]])], grad=False, graph=False),
    case("isin", ops.isin, np.isin, [np.array([1, 2, 3]), np.array([2, 3, 9])], grad=False),
    case("isin", lambda a, b: ops.isin(a, b, invert=True),
         lambda a, b: np.isin(a, b, invert=True), [np.array([[1.0, 2], [3, 4]]),
                                                   np.array([2.0, 3, 9])],
         grad=False, label="invert"),
    case("unravel_index", lambda i: ops.unravel_index(i, (2, 3)),
         lambda i: np.unravel_index(i, (2, 3)), [np.array([5, 3], np.int32)], grad=False),
    case("select", lambda a, b: ops.select([_C1, _C2], [a, b], default=-1.0),
         lambda a, b: np.select([_C1, _C2], [a, b], -1.0), [rand(4), rand(4)]),
    case("select", lambda a, b: ops.select([_C1, _C2], [a, b]),
         lambda a, b: np.select([_C1, _C2], [a, b]), [rand(2, 4), rand(4)], label="broadcast"),
    case("get_item", lambda x: ops.get_item(x, (slice(1, None), 0)), lambda x: x[1:, 0],
         [rand(3, 2)]),
    case("get_item", lambda x: ops.get_item(x, [2, 0]), lambda x: x[[2, 0]], [rand(3, 2)],
         label="indices"),
]


@pytest.mark.parametrize("c", CASES, ids=str)
def test_forward_and_gradient(c, backend):
    run_case(c)


def test_keras_values(backend):
    # Keras 3.15.1 (JAX)
    assert ops.select([np.array([True, False, False]), np.array([True, True, False])],
                      [np.array([1, 2, 3]), np.array([4, 5, 6])], 9).numpy().tolist() == [1, 5, 9]
    rows, cols = ops.unravel_index(np.array([5, 3]), (2, 3))
    assert rows.numpy().tolist() == [1, 1] and cols.numpy().tolist() == [2, 0]
    r, c = ops.nonzero(np.array([[3.0, 0, 1], [0, 5, 5]]))
    assert r.numpy().tolist() == [0, 0, 1, 1] and c.numpy().tolist() == [0, 2, 1, 2]
    assert r.dtype == "int32"


def test_data_dependent_sizes_are_refused_in_graphs():
    x = ops.convert_to_tensor(_X)
    with pytest.raises(ValueError, match=r"unique: the size of the result depends on the "
                                         r"values, so it cannot be traced into a graph; pass "
                                         r"size="):
        lamina.jit(lambda t: ops.unique(t))(x)
    with pytest.raises(ValueError, match=r"nonzero: the size of the result depends on the "
                                         r"values"):
        lamina.jit(lambda t: ops.nonzero(t)[0])(x)
    np.testing.assert_array_equal(lamina.jit(lambda t: ops.unique(t, size=3))(x).numpy(),
                                  [1, 2, 3])


def test_selection_errors(backend):
    with pytest.raises(ValueError, match=r"unique: argument 'size' must be a non-negative int"):
        ops.unique(_X, size=-1)
    with pytest.raises(DTypeError, match=r"unravel_index: argument 'indices' must be an "
                                         r"integer tensor"):
        ops.unravel_index(np.array([1.0]), (2, 3))
    with pytest.raises(ValueError, match=r"unravel_index: argument 'shape' must be positive "
                                         r"ints"):
        ops.unravel_index(np.array([1]), (2, 0))
    with pytest.raises(ValueError, match=r"select: arguments 'condlist' and 'choicelist' must "
                                         r"be non-empty and of one length"):
        ops.select([_C1], [np.ones(4), np.ones(4)])
    with pytest.raises(DTypeError, match=r"select: each condition must be a bool tensor"):
        ops.select([np.ones(4)], [np.ones(4)])
