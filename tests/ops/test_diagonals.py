"""diag, diagflat, diagonal, trace, tril, triu, vander against numpy (and Keras 3.15.1)."""
import numpy as np
import pytest

import lamina
from lamina import ops
from lamina.errors import ShapeError
from tests.harness import case, rand, rand_away_from, run_case

CASES = [
    case("diagonal", ops.diagonal, np.diagonal, [rand(3, 4)]),
    case("diagonal", lambda x: ops.diagonal(x, 1, 2, 0), lambda x: np.diagonal(x, 1, 2, 0),
         [rand(2, 3, 4)], label="offset-axes"),
    case("diagonal", lambda x: ops.diagonal(x, -2), lambda x: np.diagonal(x, -2),
         [rand(4, 3)], label="below"),
    case("diagonal", lambda x: ops.diagonal(x, 5), lambda x: np.diagonal(x, 5),
         [rand(2, 3)], label="empty", grad=False),
    case("trace", ops.trace, np.trace, [rand(3, 4)]),
    case("trace", lambda x: ops.trace(x, -1, 1, 2), lambda x: np.trace(x, -1, 1, 2),
         [rand(2, 3, 3)], label="batched"),
    case("diag", ops.diag, np.diag, [rand(3)]),
    case("diag", lambda x: ops.diag(x, k=-2), lambda x: np.diag(x, -2), [rand(3)],
         label="below"),
    case("diag", lambda x: ops.diag(x, k=1), lambda x: np.diag(x, 1), [rand(3, 3)],
         label="2d"),
    case("diagflat", lambda x: ops.diagflat(x, 1), lambda x: np.diagflat(x, 1), [rand(2, 2)]),
    case("tril", ops.tril, np.tril, [rand(3, 4)]),
    case("tril", lambda x: ops.tril(x, -1), lambda x: np.tril(x, -1), [rand(2, 3, 3)],
         label="batched"),
    case("triu", lambda x: ops.triu(x, 1), lambda x: np.triu(x, 1), [rand(4, 3)]),
    case("vander", ops.vander, np.vander, [rand_away_from(4)]),
    case("vander", lambda x: ops.vander(x, 3, increasing=True),
         lambda x: np.vander(x, 3, increasing=True), [rand_away_from(2)], label="increasing"),
]


@pytest.mark.parametrize("c", CASES, ids=str)
def test_forward_and_gradient(c, backend):
    run_case(c)


def test_keras_dtypes(backend):
    # Keras 3.15.1: trace of bool and int32 is int32, vander keeps int32
    assert ops.trace(np.ones((2, 3), bool)).dtype == "int32"
    assert int(ops.trace(np.ones((2, 3), bool)).numpy()) == 2
    assert ops.vander(np.array([1, 2, 3], np.int32)).numpy().tolist() == \
        [[1, 1, 1], [4, 2, 1], [9, 3, 1]]


def test_tril_on_a_batch_of_unknown_size():
    inp = lamina.Input((3, 3))
    model = lamina.Model(inp, ops.tril(inp))
    x = np.arange(18, dtype="float32").reshape(2, 3, 3)
    np.testing.assert_allclose(model.predict(x, verbose=0), np.tril(x))


def test_diagonal_errors(backend):
    x = ops.ones((2, 3))
    with pytest.raises(ShapeError, match=r"diagonal: argument 'x' must have at least 2 axes"):
        ops.diagonal(ops.ones((3,)))
    with pytest.raises(ValueError, match=r"diagonal: arguments 'axis1' and 'axis2' must be "
                                         r"different axes"):
        ops.diagonal(x, 0, 1, -1)
    with pytest.raises(TypeError, match=r"diagonal: argument 'offset' must be an int"):
        ops.diagonal(x, 0.5)
    with pytest.raises(ShapeError, match=r"diag: argument 'x' must be 1-D or 2-D"):
        ops.diag(ops.ones((2, 2, 2)))
    with pytest.raises(TypeError, match=r"diagflat: argument 'k' must be an int"):
        ops.diagflat(x, "1")
    with pytest.raises(ShapeError, match=r"triu: argument 'x' must have at least 2 axes"):
        ops.triu(ops.ones((3,)))
    with pytest.raises(ShapeError, match=r"tril: the matrix axes must have known sizes"):
        ops.tril(lamina.Input((None, 3)))
    with pytest.raises(ShapeError, match=r"diagonal: the matrix axes must have known sizes"):
        ops.diagonal(lamina.Input((None, 3)), 0, 1, 2)
    with pytest.raises(ShapeError, match=r"vander: argument 'x' must be 1-D"):
        ops.vander(x)
    with pytest.raises(ValueError, match=r"vander: argument 'N' must be a non-negative int"):
        ops.vander(ops.ones((3,)), -1)
