"""merge_axes and reshape_like: reshapes with sizes read when the graph runs."""
import numpy as np
import pytest

import lamina
from lamina import ops
from lamina.errors import ShapeError
from lamina.ops.merge_axes import ReshapeLike, merge_axes
from tests.harness import case, rand, run_case

CASES = [
    case("merge_axes", lambda x: merge_axes(x, 1), lambda x: x.reshape(2, 12),
         [rand(2, 3, 4)]),
    case("merge_axes", lambda x: merge_axes(x, -2) * x[:, :1, :1].sum(),
         lambda x: x.reshape(2, 12) * x[:, :1, :1].sum(), [rand(2, 3, 4)], label="last"),
    case("reshape_like", lambda x, y: ReshapeLike(x, y) * y, lambda x, y: x.reshape(y.shape) * y,
         [rand(2, 6), rand(3, 4)]),
]


@pytest.mark.parametrize("c", CASES, ids=str)
def test_forward_and_gradient(c, backend):
    run_case(c)


def test_merge_axes_with_two_unknown_sizes_in_a_graph():
    x = lamina.KerasTensor((None, None, 3))
    assert merge_axes(x, 0).shape == (None, 3) and merge_axes(x, 1).shape == (None, None)
    assert merge_axes(lamina.KerasTensor((2, 5, 3)), 1).shape == (2, 15)
    inputs = lamina.Input(batch_shape=(None, None, 3))
    model = lamina.Model(inputs, merge_axes(inputs, 0) * 2.0)
    for shape in ((2, 4, 3), (5, 1, 3)):
        a = rand(*shape).astype("float32")
        np.testing.assert_array_equal(lamina.jit(model)(a).numpy(), a.reshape(-1, 3) * 2.0)
    with pytest.raises(ShapeError, match=r"reshape_like: cannot reshape an input of shape "
                                         r"\(2, 6\) into \(5,\)"):
        ReshapeLike(ops.zeros((2, 6)), ops.zeros((5,)))
