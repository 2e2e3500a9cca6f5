"""einsum, inner, vdot, kron, cross against numpy (gradients by the harness)."""
import warnings

import numpy as np
import pytest

import lamina
from lamina import ops
from lamina.errors import ShapeError
from tests.harness import case, rand, run_case


def np_cross(*args, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)    # numpy 2 on 2-vectors
        return np.cross(*args, **kw)


def _ein(eq, *shapes, label=None, **kw):
    return case("einsum", lambda *xs: ops.einsum(eq, *xs), lambda *xs: np.einsum(eq, *xs),
                [rand(*s) for s in shapes], label=label or eq, **kw)


CASES = [
    _ein("ij,jk->ik", (2, 3), (3, 4), second_order=True),
    _ein("bij,bjk->bik", (2, 3, 4), (2, 4, 2)),
    _ein("bhqd,bhkd->bhqk", (2, 2, 3, 2), (2, 2, 4, 2)),
    _ein("ii", (3, 3), label="trace"),
    _ein("ii->i", (3, 3), label="diagonal"),
    _ein("ij->ji", (2, 3), label="transpose"),
    _ein("ijk->", (2, 3, 2), label="sum-all"),
    _ein("i,j->ij", (2,), (3,), label="outer"),
    _ein("ij,jk,kl->il", (2, 3), (3, 2), (2, 2), label="chain"),
    _ein("...ij,...jk", (2, 3, 2), (2, 4), label="ellipsis-implicit"),
    _ein("...i,...i->...", (1, 3, 2), (2, 1, 2), label="ellipsis-broadcast"),
    _ein("iij,jk->ik", (3, 3, 2), (2, 2), label="repeated-label"),
    _ein("ba", (2, 3), label="implicit-sorted"),
    case("inner", ops.inner, np.inner, [rand(2, 3), rand(4, 3)]),
    case("inner", ops.inner, np.inner, [rand(), rand(2)], label="scalar"),
    case("vdot", ops.vdot, np.vdot, [rand(2, 3), rand(3, 2)]),
    case("kron", ops.kron, np.kron, [rand(2, 3), rand(2)]),
    case("kron", ops.kron, np.kron, [rand(2, 1, 2), rand(3, 2)], label="3d"),
    case("cross", ops.cross, np_cross, [rand(4, 3), rand(4, 3)]),
    case("cross", ops.cross, np_cross, [rand(4, 2), rand(1, 3)], label="2-3"),
    case("cross", ops.cross, np_cross, [rand(3), rand(2, 2)], label="3-2"),
    case("cross", ops.cross, np_cross, [rand(4, 2), rand(4, 2)], label="2-2"),
    case("cross", lambda a, b: ops.cross(a, b, axisa=0, axisc=0),
         lambda a, b: np_cross(a, b, axisa=0, axisc=0), [rand(3, 4), rand(4, 3)], label="axes"),
    case("cross", lambda a, b: ops.cross(a, b, axis=1),
         lambda a, b: np_cross(a, b, axis=1), [rand(2, 3, 2), rand(2, 3, 2)], label="axis"),
]


@pytest.mark.parametrize("c", CASES, ids=str)
def test_forward_and_gradient(c, backend):
    run_case(c)


def test_einsum_in_a_model_with_unknown_batch():
    inp = lamina.Input((3, 4))
    w = ops.convert_to_tensor(np.arange(8, dtype="float32").reshape(4, 2))
    model = lamina.Model(inp, ops.einsum("btd,de->bte", inp, w))
    x = np.random.default_rng(0).normal(size=(5, 3, 4)).astype("float32")
    np.testing.assert_allclose(model.predict(x, batch_size=2, verbose=0),
                               np.einsum("btd,de->bte", x, w.numpy()), rtol=1e-5, atol=1e-5)


def test_einsum_warns_that_optimize_has_no_effect():
    with pytest.warns(UserWarning, match=r"einsum: argument 'optimize' \(optimize='greedy'\) "
                                         r"has no effect"):
        y = ops.einsum("ij,jk->ik", ops.ones((2, 3)), ops.ones((3, 2)), optimize="greedy")
    np.testing.assert_allclose(y.numpy(), np.full((2, 2), 3.0))


def test_product_errors(backend):
    x = ops.ones((2, 3))
    with pytest.raises(TypeError, match=r"einsum: argument 'subscripts' must be a str"):
        ops.einsum(3, x)
    with pytest.raises(ValueError, match=r"einsum: 'ij,jk' names 2 operands; received 1"):
        ops.einsum("ij,jk", x)
    with pytest.raises(ValueError, match=r"einsum: subscripts must be letters"):
        ops.einsum("i1->i", x)
    with pytest.raises(ShapeError, match=r"einsum: operand spec 'ijk' does not match"):
        ops.einsum("ijk->i", x)
    with pytest.raises(ValueError, match=r"einsum: output label 'z' of 'ij->z' is in no "
                                         r"operand"):
        ops.einsum("ij->z", x)
    with pytest.raises(ValueError, match=r"einsum: output labels of 'ij->ii' repeat"):
        ops.einsum("ij->ii", x)
    with pytest.raises(ShapeError, match=r"einsum: label 'j' has sizes 3 and 4"):
        ops.einsum("ij,jk->ik", x, ops.ones((4, 2)))
    with pytest.raises(TypeError, match=r"einsum: unexpected keyword arguments \['order'\]"):
        ops.einsum("ij->ji", x, order="C")
    with pytest.raises(ValueError, match=r"einsum: at least one operand is required"):
        ops.einsum("ij->ji")
    with pytest.raises(ShapeError, match=r"inner: the last axes of 'x1' and 'x2' must have "
                                         r"one size"):
        ops.inner(x, ops.ones((2,)))
    with pytest.raises(ShapeError, match=r"vdot: 'x1' and 'x2' must have the same number of "
                                         r"elements"):
        ops.vdot(x, ops.ones((2,)))
    with pytest.raises(ShapeError, match=r"cross: the vector axes must have size 2 or 3"):
        ops.cross(ops.ones((4,)), ops.ones((4,)))
    with pytest.raises(ShapeError, match=r"kron: the inputs must have known sizes"):
        ops.kron(lamina.Input((2,)), x)
