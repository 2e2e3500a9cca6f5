"""ops.cdist: pairwise Euclidean distances, with broadcast batch axes. For its docstring's
example inputs [[0, 0], [1, 1]] and [[1, 0], [0, 1]] Keras 3.15.1 (numpy backend) returns
[[1, 1], [1, 1]] (its docstring prints a different matrix)."""
import numpy as np
import pytest

from lamina import ops
from lamina.errors import ShapeError
from tests.harness import case, distinct, run_case


def _ref(x, y):
    return np.sqrt(((x[..., :, None, :] - y[..., None, :, :]) ** 2).sum(-1))


CASES = [
    case("cdist", lambda x, y: ops.cdist(x, y), _ref, [distinct(3, 4), distinct(5, 4)]),
    case("cdist", lambda x, y: ops.cdist(x, y), _ref, [distinct(2, 1, 3, 2), distinct(4, 2, 2)],
         label="batch-broadcast"),
]


@pytest.mark.parametrize("c", CASES, ids=str)
def test_forward_and_gradient(c, backend):
    run_case(c)


def test_keras_example():
    out = ops.cdist(np.array([[0.0, 0.0], [1.0, 1.0]], "float32"),
                    np.array([[1.0, 0.0], [0.0, 1.0]], "float32"))
    assert out.dtype == "float32"
    np.testing.assert_allclose(out.numpy(), [[1.0, 1.0], [1.0, 1.0]], rtol=1e-6)


def test_errors_name_the_arguments():
    with pytest.raises(ShapeError, match=r"cdist: 'x' and 'y' must have rank >= 2"):
        ops.cdist(np.ones(3), np.ones((2, 3)))
    with pytest.raises(ShapeError, match=r"cdist: the last axes of 'x' and 'y' must have one "
                                         r"size; received shapes \(2, 3\) and \(2, 4\)"):
        ops.cdist(np.ones((2, 3)), np.ones((2, 4)))
