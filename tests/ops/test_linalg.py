import numpy as np
import pytest

import lamina
from lamina import ops
from lamina.errors import DTypeError, ShapeError
from lamina.graph import SymbolicTensor
from tests.harness import case, rand, run_case

CASES = [
    case("matmul", ops.matmul, np.matmul, [rand(3, 4), rand(4, 2)], second_order=True),
    case("matmul", lambda a, b: a @ b, np.matmul, [rand(2, 3, 4), rand(4, 5)],
         second_order=True, label="batch-times-matrix"),
    case("matmul", ops.matmul, np.matmul, [rand(3, 4), rand(2, 4, 2)], second_order=True,
         label="matrix-times-batch"),
    case("matmul", ops.matmul, np.matmul, [rand(2, 1, 3, 4), rand(3, 4, 2)],
         second_order=True, label="broadcast-batch"),
    case("matmul", ops.matmul, np.matmul, [rand(4), rand(4, 3)], second_order=True,
         label="vector-matrix"),
    case("matmul", ops.matmul, np.matmul, [rand(2, 3, 4), rand(4)], second_order=True,
         label="batch-vector"),
    case("matmul", ops.matmul, np.matmul, [rand(4), rand(2, 4, 3)], label="vector-batch"),
    case("matmul", ops.matmul, np.matmul, [rand(5), rand(5)], second_order=True,
         label="vector-vector"),
    case("matmul", ops.matmul, np.matmul, [rand(2, 3), rand(3)], label="matrix-vector"),
    case("matmul", ops.matmul, np.matmul,
         [np.arange(6, dtype=np.int32).reshape(2, 3), np.arange(3, dtype=np.int32)],
         grad=False, label="int"),
    case("dot", ops.dot, np.dot, [rand(3, 4), rand(4, 2)], second_order=True),
    case("dot", ops.dot, np.dot, [rand(4), rand(4)], label="vectors"),
    case("dot", ops.dot, np.dot, [rand(2, 3), np.array(1.5)], label="scalar"),
    case("dot", ops.dot, np.dot, [rand(2, 3, 4), rand(4)], label="nd-vector"),
    case("dot", ops.dot, np.dot, [rand(2, 3), rand(2, 3, 2)], label="nd-nd"),
    case("tensordot", ops.tensordot, np.tensordot, [rand(2, 3, 4), rand(3, 4, 2)],
         second_order=True),
    case("tensordot", lambda a, b: ops.tensordot(a, b, axes=1),
         lambda a, b: np.tensordot(a, b, axes=1), [rand(2, 3), rand(3, 2)], label="int"),
    case("tensordot", lambda a, b: ops.tensordot(a, b, axes=([0, 2], [2, 0])),
         lambda a, b: np.tensordot(a, b, axes=([0, 2], [2, 0])),
         [rand(2, 3, 4), rand(4, 5, 2)], label="pairs"),
    case("tensordot", lambda a, b: ops.tensordot(a, b, axes=(1, -1)),
         lambda a, b: np.tensordot(a, b, axes=(1, -1)), [rand(2, 3), rand(4, 3)],
         label="int-pair"),
    case("tensordot", lambda a, b: ops.tensordot(a, b, axes=0),
         lambda a, b: np.tensordot(a, b, axes=0), [rand(2), rand(3)], label="zero"),
    case("outer", ops.outer, np.outer, [rand(3), rand(2, 2)], second_order=True),
]


@pytest.mark.parametrize("c", CASES, ids=str)
def test_forward_and_gradient(c, backend):
    run_case(c)


def t(values, dtype="float64"):
    return ops.convert_to_tensor(np.asarray(values, dtype=dtype))


def test_matmul_shape_errors_name_both_shapes(backend):
    with pytest.raises(ShapeError, match=r"matmul: arguments 'x1' and 'x2' have mismatched "
                                         r"inner dimensions \(4 and 5\); received shapes "
                                         r"\(3, 4\) and \(5, 2\)"):
        ops.matmul(ops.zeros((3, 4)), ops.zeros((5, 2)))
    with pytest.raises(ShapeError, match=r"matmul: the batch dimensions of 'x1' and 'x2' do "
                                         r"not broadcast; received shapes \(2, 3, 4\) and "
                                         r"\(3, 4, 5\)"):
        ops.matmul(ops.zeros((2, 3, 4)), ops.zeros((3, 4, 5)))
    with pytest.raises(ShapeError, match=r"matmul: arguments 'x1' and 'x2' must have rank >= 1"
                                         r" \(use lamina.ops.multiply for scalars\); received "
                                         r"shapes \(\) and \(3,\)"):
        ops.matmul(t(2.0), ops.zeros((3,)))
    with pytest.raises(ShapeError, match=r"received shapes \(3,\) and \(4,\)"):
        ops.matmul(ops.zeros((3,)), ops.zeros((4,)))


def test_matmul_promotes_and_the_op_checks_dtypes(backend):
    y = ops.matmul(t([[1, 2]], "int32"), t([[0.5], [0.25]]))
    assert y.dtype == "float64"
    np.testing.assert_allclose(y.numpy(), [[1.0]])
    with pytest.raises(DTypeError, match=r"matmul: arguments 'x1' and 'x2' must have one dtype"
                                         r" \(lamina.ops.matmul promotes them\); received "
                                         r"float32 and float64"):
        ops.OP_REGISTRY["matmul"](ops.zeros((1, 1)), t([[1.0]]))


def test_matmul_operator_with_host_arrays(backend):
    a, b = rand(2, 3), rand(3, 2)
    np.testing.assert_allclose((t(a) @ b).numpy(), a @ b)
    np.testing.assert_allclose((a @ t(b)).numpy(), a @ b)


def test_matmul_forward_writes_into_out(backend):
    b = lamina.backend.get_backend()
    a, w = b.asarray(rand(2, 3, 4)), b.asarray(rand(4, 5))
    out = b.empty((2, 3, 5), "float64")
    result = ops.OP_REGISTRY["matmul"].forward(b, a, w, out=out)
    assert result is out
    np.testing.assert_allclose(b.to_host(out), b.to_host(a) @ b.to_host(w))


def test_dense_on_a_sequence_gradient_is_one_gemm_equivalent(backend):
    # the flattened-batch gradient path against the batched formula
    x, w = rand(3, 5, 4), rand(4, 2)
    tx, tw = t(x), t(w)
    g = rand(3, 5, 2)
    with lamina.GradientTape() as tape:
        tape.watch([tx, tw])
        y = ops.sum(ops.matmul(tx, tw) * t(g))
    gx, gw = tape.gradient(y, [tx, tw])
    np.testing.assert_allclose(gw.numpy(), np.einsum("btk,btn->kn", x, g), rtol=1e-12)
    np.testing.assert_allclose(gx.numpy(), g @ w.T, rtol=1e-12)


def test_tensordot_errors(backend):
    a, b = ops.zeros((2, 3)), ops.zeros((4, 3))
    with pytest.raises(ShapeError, match=r"tensordot: axis 1 of 'x1' \(size 3\) and axis 0 of "
                                         r"'x2' \(size 4\) must match; received shapes \(2, 3\) "
                                         r"and \(4, 3\)"):
        ops.tensordot(a, b, axes=1)
    with pytest.raises(ShapeError, match=r"tensordot: argument 'axes' \(3\) exceeds the rank"):
        ops.tensordot(a, b, axes=3)
    with pytest.raises(ShapeError, match=r"tensordot: 'axes' pairs 2 axes of 'x1' with 1 of "
                                         r"'x2'"):
        ops.tensordot(a, b, axes=([0, 1], [1]))
    with pytest.raises(ShapeError, match=r"tensordot: axis 2 in 'axes\[0\]' is out of range "
                                         r"for rank 2"):
        ops.tensordot(a, b, axes=([2], [1]))
    with pytest.raises(ShapeError, match=r"tensordot: 'axes\[1\]' repeats an axis"):
        ops.tensordot(a, b, axes=([0, 1], [1, 1]))
    with pytest.raises(ValueError, match=r"tensordot: argument 'axes' must be an int or a pair"):
        ops.tensordot(a, b, axes=([0], [1], [1]))


def test_matmul_of_symbolic_tensors_gives_specs():
    x = SymbolicTensor((None, 5, 4), "float32")
    w = SymbolicTensor((4, 3), "float32")
    assert ops.matmul(x, w).shape == (None, 5, 3)
    assert ops.matmul(SymbolicTensor((None,), "float32"), w.T).shape == (4,)
    assert ops.matmul(x, SymbolicTensor((4,), "float32")).shape == (None, 5)
    assert ops.matmul(SymbolicTensor((None, 4), "float32"), w).shape == (None, 3)
