"""fliplr, flipud, rot90, roll, ravel, diff, rearrange against numpy (einops semantics as
Keras 3.15.1's ``keras.ops.rearrange``)."""
import numpy as np
import pytest

import lamina
from lamina import ops
from lamina.errors import ShapeError
from tests.harness import case, rand, run_case

CASES = [
    case("fliplr", ops.fliplr, np.fliplr, [rand(2, 3, 2)]),
    case("flipud", ops.flipud, np.flipud, [rand(3, 2)]),
    case("rot90", ops.rot90, np.rot90, [rand(2, 3)]),
    case("rot90", lambda x: ops.rot90(x, k=2), lambda x: np.rot90(x, 2), [rand(2, 3)],
         label="k2"),
    case("rot90", lambda x: ops.rot90(x, k=-1, axes=(2, 0)),
         lambda x: np.rot90(x, -1, axes=(2, 0)), [rand(2, 3, 4)], label="k-1-axes"),
    case("rot90", lambda x: ops.rot90(x, k=4), lambda x: np.rot90(x, 4), [rand(2, 3)],
         label="k4", grad=False),
    case("roll", lambda x: ops.roll(x, 2), lambda x: np.roll(x, 2), [rand(2, 3)]),
    case("roll", lambda x: ops.roll(x, -1, axis=1), lambda x: np.roll(x, -1, axis=1),
         [rand(2, 3)], label="axis"),
    case("roll", lambda x: ops.roll(x, (1, 5), axis=(0, 1)),
         lambda x: np.roll(x, (1, 5), axis=(0, 1)), [rand(2, 3)], label="tuple"),
    case("ravel", ops.ravel, np.ravel, [rand(2, 3)]),
    case("diff", ops.diff, np.diff, [rand(3, 4)]),
    case("diff", lambda x: ops.diff(x, n=2, axis=0), lambda x: np.diff(x, 2, axis=0),
         [rand(4, 3)], label="n2-axis0"),
    case("rearrange", lambda x: ops.rearrange(x, "b h w c -> b c h w"),
         lambda x: x.transpose(0, 3, 1, 2), [rand(2, 2, 3, 2)]),
    case("rearrange", lambda x: ops.rearrange(x, "b h w c -> h (b w) c"),
         lambda x: x.transpose(1, 0, 2, 3).reshape(2, 6, 2), [rand(2, 2, 3, 2)],
         label="merge"),
    case("rearrange", lambda x: ops.rearrange(x, "b (h h1) (w w1) c -> b h w (c h1 w1)",
                                              h1=2, w1=2),
         lambda x: x.reshape(1, 2, 2, 2, 2, 3).transpose(0, 1, 3, 5, 2, 4).reshape(1, 2, 2, 12),
         [rand(1, 4, 4, 3)], label="space-to-depth"),
]


@pytest.mark.parametrize("c", CASES, ids=str)
def test_forward_and_gradient(c, backend):
    run_case(c)


def test_rearrange_keeps_an_unknown_batch():
    inp = lamina.Input((4, 3))
    assert ops.rearrange(inp, "b h c -> b (c h)").shape == (None, 12)
    model = lamina.Model(inp, ops.rearrange(inp, "b h c -> b (c h)"))
    x = np.arange(24, dtype="float32").reshape(2, 4, 3)
    np.testing.assert_allclose(model.predict(x, verbose=0), x.transpose(0, 2, 1).reshape(2, 12))


def test_rearranging_errors(backend):
    x = ops.ones((2, 3))
    with pytest.raises(ShapeError, match=r"fliplr: argument 'x' must have at least 2 axes"):
        ops.fliplr(ops.ones((3,)))
    with pytest.raises(ShapeError, match=r"rot90: argument 'array' must have at least 2 axes"):
        ops.rot90(ops.ones((3,)))
    with pytest.raises(ValueError, match=r"rot90: argument 'axes' must be two different axes"):
        ops.rot90(x, axes=(1, -1))
    with pytest.raises(ValueError, match=r"rot90: argument 'axes' must be two different axes"):
        ops.rot90(x, axes=(0,))
    with pytest.raises(TypeError, match=r"roll: with axis=None argument 'shift' must be an int"):
        ops.roll(x, (1, 2))
    with pytest.raises(ValueError, match=r"roll: arguments 'shift' and 'axis' must have the "
                                         r"same length"):
        ops.roll(x, (1, 2, 3), axis=(0, 1))
    with pytest.raises(ValueError, match=r"diff: argument 'n' must be a non-negative int"):
        ops.diff(x, n=-1)
    with pytest.raises(ShapeError, match=r"diff: argument 'a' must have at least 1 axes"):
        ops.diff(ops.convert_to_tensor(1.0))
    with pytest.raises(ValueError, match=r"rearrange: argument 'pattern' must have the form"):
        ops.rearrange(x, "a b")
    with pytest.raises(ShapeError, match=r"rearrange: the pattern's input side has 3 axes"):
        ops.rearrange(x, "a b c -> c b a")
    with pytest.raises(ValueError, match=r"rearrange: both sides of 'a b -> a c' must name"):
        ops.rearrange(x, "a b -> a c")
    with pytest.raises(ValueError, match=r"rearrange: the sizes of \['p', 'q'\] in group"):
        ops.rearrange(ops.ones((4, 3)), "(p q) c -> p q c")
    with pytest.raises(ShapeError, match=r"roll: axis 0 has an unknown size"):
        ops.roll(lamina.Input((3,)), 1, axis=0)
