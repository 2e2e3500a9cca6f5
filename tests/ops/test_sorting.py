"""sort, argsort, argpartition, top_k, in_top_k, searchsorted (Keras 3.15.1's numbers)."""
import numpy as np
import pytest

from lamina import ops
from lamina.errors import ShapeError
from tests.harness import case, distinct, run_case

_X = np.array([[3.0, 1, 2, 1], [0, 5, 5, -1]])


def _top(x, k):
    order = np.argsort(-x, axis=-1, kind="stable")[..., :k]
    return np.take_along_axis(x, order, -1), order.astype(np.int32)


CASES = [
    case("sort", ops.sort, lambda x: np.sort(x, -1), [distinct(3, 5)]),
    case("sort", lambda x: ops.sort(x, axis=0), lambda x: np.sort(x, 0), [distinct(4, 3)],
         label="axis0"),
    case("sort", lambda x: ops.sort(x, axis=None), lambda x: np.sort(x, None),
         [distinct(2, 3)], label="flat"),
    case("argsort", ops.argsort, lambda x: np.argsort(x, -1, kind="stable").astype("int32"),
         [_X], grad=False),
    case("argsort", lambda x: ops.argsort(x, axis=None),
         # Keras 3.15.1: argsort(x, axis=None)
         lambda x: np.array([7, 4, 1, 3, 2, 0, 5, 6], np.int32), [_X], grad=False,
         label="flat-keras"),
    case("argpartition", lambda x: ops.take_along_axis(x, ops.argpartition(x, 2), -1)[..., 2],
         lambda x: np.partition(x, 2, axis=-1)[..., 2], [distinct(3, 6)], grad=False),
    case("top_k", lambda x: ops.top_k(x, 2), lambda x: _top(x, 2), [distinct(3, 5)]),
    case("top_k", lambda x: ops.top_k(x, 2),
         # Keras 3.15.1 (JAX lax.top_k): ties take the lower index first
         lambda x: (np.array([[3.0, 2], [5, 5]]), np.array([[0, 2], [1, 2]], np.int32)),
         [_X], label="ties", grad=False),
    case("in_top_k", lambda p: ops.in_top_k(ops.convert_to_tensor([2, 1]), p, 1),
         lambda p: np.array([False, True]), [_X], grad=False),   # Keras: ties count in
    case("in_top_k", lambda p: ops.in_top_k(ops.convert_to_tensor([2, 0]), p, 2),
         lambda p: np.array([True, False]), [_X], grad=False, label="k2"),
    case("searchsorted", lambda s, v: ops.searchsorted(s, v, side="right"),
         lambda s, v: np.array([3, 0, 4], np.int32),            # Keras 3.15.1
         [np.array([1.0, 2, 2, 3]), np.array([2.0, 0, 5])], grad=False),
    case("searchsorted", ops.searchsorted,
         lambda s, v: np.searchsorted(s, v).astype(np.int32),
         [np.array([1.0, 2, 2, 3]), np.array([[2.0, 0], [5, 2.5]])], grad=False,
         label="left"),
]


@pytest.mark.parametrize("c", CASES, ids=str)
def test_forward_and_gradient(c, backend):
    run_case(c)


def test_argpartition_partitions(backend):
    x = ops.convert_to_tensor(np.array([[3.0, 1, 2, 1], [0, 5, 5, -1]]))
    idx = ops.argpartition(x, 1).numpy()
    parted = np.take_along_axis(_X, idx, -1)
    assert sorted(idx[0]) == [0, 1, 2, 3]
    np.testing.assert_allclose(parted[:, 1], [1.0, 0.0])
    assert np.all(parted[:, :1] <= parted[:, 1:2]) and np.all(parted[:, 2:] >= parted[:, 1:2])


def test_sorting_errors(backend):
    x = ops.convert_to_tensor(_X)
    with pytest.raises(TypeError, match=r"argpartition: argument 'kth' must be an int"):
        ops.argpartition(x, 1.5)
    with pytest.raises(ShapeError, match=r"argpartition: argument 'kth' must be in \[-4, 4\)"):
        ops.argpartition(x, 4)
    with pytest.raises(ValueError, match=r"top_k: argument 'k' must be an int in \[0, 4\]"):
        ops.top_k(x, 5)
    with pytest.raises(ShapeError, match=r"top_k: argument 'x' must have at least one axis"):
        ops.top_k(ops.convert_to_tensor(1.0), 1)
    with pytest.raises(ShapeError, match=r"in_top_k: expected targets of shape \(n,\)"):
        ops.in_top_k(ops.convert_to_tensor([1]), x, 1)
    with pytest.raises(ShapeError, match=r"searchsorted: argument 'sorted_sequence' must be "
                                         r"1-D"):
        ops.searchsorted(x, x)
    with pytest.raises(ValueError, match=r"searchsorted: argument 'side' must be 'left' or "
                                         r"'right'"):
        ops.searchsorted(ops.convert_to_tensor([1.0]), x, side="middle")
