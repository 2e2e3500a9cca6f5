import numpy as np
import pytest

import lamina
from lamina import ops
from tests.harness import case, rand, run_case

# A user's op, registered once at import like a user's module would.
cube = ops.custom_op("test_cube", lambda xp, x: x * x * x,
                     gradient=lambda inputs, y, g: (g * 3.0 * inputs[0] * inputs[0],))
shifted_norm = ops.custom_op(
    "test_row_norm", lambda xp, x, axis: xp.sqrt((x * x).sum(axis=axis)),
    gradient=lambda inputs, y, g, axis: (inputs[0] / ops.expand_dims(y, axis)
                                         * ops.expand_dims(g, axis),),
    output_spec=lambda x, axis: (x.shape[:axis] + x.shape[axis + 1:], x.dtype))

CASES = [
    case("test_cube", cube, lambda x: x ** 3, [rand(3, 2)], second_order=True),
    case("test_row_norm", lambda x: shifted_norm(x, axis=1),
         lambda x: np.sqrt((x * x).sum(axis=1)), [rand(3, 4, low=0.5, high=1.0)]),
]


@pytest.mark.parametrize("c", CASES, ids=str)
def test_forward_and_gradient(c, backend):
    run_case(c)


def test_custom_op_is_registered_and_names_are_unique():
    assert "test_cube" in ops.OP_REGISTRY
    with pytest.raises(ValueError, match="an op named 'test_cube' is already registered"):
        ops.custom_op("test_cube", lambda xp, x: x)


def test_custom_op_without_gradient_is_not_differentiable(backend):
    floor = ops.custom_op("test_floor_nograd", lambda xp, x: xp.floor(x))
    x = lamina.Variable([1.5])
    with lamina.GradientTape() as tape:
        y = floor(x)
    assert tape.gradient(y, x) is None
    np.testing.assert_array_equal(y.numpy(), [1.0])
    del ops.OP_REGISTRY["test_floor_nograd"]
