"""append, hstack, vstack, dstack, array_split, hsplit, vsplit, dsplit against numpy."""
import numpy as np
import pytest

from lamina import ops
from lamina.errors import ShapeError
from tests.harness import case, rand, run_case

CASES = [
    case("append", ops.append, np.append, [rand(2, 3), rand(4)]),
    case("append", lambda a, b: ops.append(a, b, axis=0), lambda a, b: np.append(a, b, 0),
         [rand(2, 3), rand(1, 3)], label="axis"),
    case("hstack", lambda a, b: ops.hstack([a, b]), lambda a, b: np.hstack([a, b]),
         [rand(2, 3), rand(2, 1)]),
    case("hstack", lambda a, b: ops.hstack([a, b]), lambda a, b: np.hstack([a, b]),
         [rand(3), rand(2)], label="1d"),
    case("vstack", lambda a, b: ops.vstack([a, b]), lambda a, b: np.vstack([a, b]),
         [rand(3), rand(2, 3)]),
    case("dstack", lambda a, b: ops.dstack([a, b]), lambda a, b: np.dstack([a, b]),
         [rand(3), rand(1, 3)]),
    case("dstack", lambda a, b: ops.dstack((a, b)), lambda a, b: np.dstack([a, b]),
         [rand(2, 3), rand(2, 3, 2)], label="2d-3d"),
    case("array_split", lambda x: ops.array_split(x, 3), lambda x: np.array_split(x, 3),
         [rand(10)]),
    case("array_split", lambda x: ops.array_split(x, 4, axis=1),
         lambda x: np.array_split(x, 4, axis=1), [rand(2, 6)], label="axis"),
    case("hsplit", lambda x: ops.hsplit(x, 2), lambda x: np.hsplit(x, 2), [rand(3, 4)]),
    case("hsplit", lambda x: ops.hsplit(x, [1, 3]), lambda x: np.hsplit(x, [1, 3]), [rand(5)],
         label="1d-points"),
    case("vsplit", lambda x: ops.vsplit(x, 2), lambda x: np.vsplit(x, 2), [rand(4, 3)]),
    case("dsplit", lambda x: ops.dsplit(x, [1]), lambda x: np.dsplit(x, [1]),
         [rand(2, 2, 3)]),
]


@pytest.mark.parametrize("c", CASES, ids=str)
def test_forward_and_gradient(c, backend):
    run_case(c)


def test_array_split_matches_keras_example(backend):
    # Keras 3.15.1's docstring: array_split(arange(10), 3) -> [0..3], [4..6], [7..9]
    parts = ops.array_split(ops.arange(10), 3)
    assert [p.numpy().tolist() for p in parts] == [[0, 1, 2, 3], [4, 5, 6], [7, 8, 9]]


def test_joining_errors(backend):
    x = ops.ones((4,))
    with pytest.raises(TypeError, match=r"array_split: argument 'indices_or_sections' must be "
                                        r"an int; received \[1, 2\]"):
        ops.array_split(x, [1, 2])
    with pytest.raises(ValueError, match=r"array_split: argument 'indices_or_sections' must be "
                                         r"a positive int; received 0"):
        ops.array_split(x, 0)
    with pytest.raises(TypeError, match=r"array_split: argument 'axis' must be an int"):
        ops.array_split(x, 2, axis=None)
    with pytest.raises(ShapeError, match=r"vsplit: argument 'x' must have at least 2 axes"):
        ops.vsplit(x, 2)
    with pytest.raises(ShapeError, match=r"dsplit: argument 'x' must have at least 3 axes"):
        ops.dsplit(ops.ones((2, 2)), 2)
    for fn in (ops.hstack, ops.vstack, ops.dstack):
        with pytest.raises(ValueError, match=r"stack: argument 'xs' must hold at least one"):
            fn([])
