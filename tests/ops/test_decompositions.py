"""keras.ops.linalg: decompositions, solves, determinants, norms and jvp through the op
harness (numpy references, numeric gradients, graph == eager)."""
import numpy as np
import pytest

from lamina import ops
from lamina.errors import GradientError, ShapeError
from lamina.graph import SymbolicTensor
from lamina.ops import decompositions as _decompositions, linalg
from tests.harness import case, rand, run_case

_rng = np.random.default_rng(5)
A = rand(3, 3) + 3 * np.eye(3)                  # well conditioned
BATCH = rand(2, 3, 3) + 3 * np.eye(3)
TALL = rand(4, 3)
WIDE = rand(3, 5)
EYE3 = np.eye(3)


def spd(x):
    """A symmetric positive-definite matrix built from any square ``x`` (x x^T + 3 I)."""
    return ops.add(ops.matmul(x, ops.swapaxes(x, -1, -2)),
                   ops.convert_to_tensor(3 * EYE3, dtype=x.dtype))


def np_spd(x):
    return x @ np.swapaxes(x, -1, -2) + 3 * EYE3


def sym(x):
    return ops.multiply(ops.add(x, ops.swapaxes(x, -1, -2)), 0.5)


def lower(x):
    return np.tril(x) + 2 * np.eye(x.shape[-1])


CASES = [
    case("cholesky", lambda x: linalg.cholesky(spd(x)), lambda x: np.linalg.cholesky(np_spd(x)),
         [rand(3, 3)], second_order=True),
    case("cholesky", lambda x: linalg.cholesky(spd(x), upper=True),
         lambda x: np.swapaxes(np.linalg.cholesky(np_spd(x)), -1, -2), [rand(2, 3, 3)],
         label="upper-batch"),
    case("cholesky_inverse", lambda x: linalg.cholesky_inverse(linalg.cholesky(spd(x))),
         lambda x: np.linalg.inv(np_spd(x)), [rand(3, 3)]),
    case("cholesky_inverse",
         lambda x: linalg.cholesky_inverse(linalg.cholesky(spd(x), upper=True), upper=True),
         lambda x: np.linalg.inv(np_spd(x)), [rand(3, 3)], label="upper"),
    case("linalg_triangle", lambda x: _decompositions.tril(x, -1), lambda x: np.tril(x, -1), [rand(3, 4)]),
    case("solve", linalg.solve, np.linalg.solve, [A, rand(3, 2)], second_order=True),
    case("solve", linalg.solve, np.linalg.solve, [BATCH, rand(3)], label="vector"),
    case("solve", linalg.solve, np.linalg.solve, [BATCH, rand(2, 3, 2)], label="batch"),
    case("solve", linalg.solve, lambda a, b: np.linalg.solve(a, b[..., None])[..., 0],
         [BATCH, rand(2, 3)], label="batched-vectors"),
    case("solve_triangular", lambda a, b: linalg.solve_triangular(a, b, lower=True),
         lambda a, b: np.linalg.solve(np.tril(a), b), [lower(rand(3, 3)), rand(3, 2)]),
    case("solve_triangular", linalg.solve_triangular,
         lambda a, b: np.linalg.solve(np.triu(a), b), [lower(rand(3, 3)).T, rand(3)],
         label="upper-vector"),
    case("inv", linalg.inv, np.linalg.inv, [BATCH], second_order=True),
    case("det", linalg.det, np.linalg.det, [BATCH], second_order=True),
    case("slogdet", linalg.slogdet, lambda x: tuple(np.linalg.slogdet(x)), [rand(2, 3, 3)]),
    case("logdet", lambda x: linalg.logdet(spd(x)),
         lambda x: np.linalg.slogdet(np_spd(x))[1], [rand(3, 3)]),
    case("pinv", linalg.pinv, np.linalg.pinv, [TALL]),
    case("pinv", linalg.pinv, np.linalg.pinv, [WIDE], label="wide"),
    case("lstsq", linalg.lstsq, lambda a, b: np.linalg.lstsq(a, b, rcond=None)[0],
         [TALL, rand(4, 2)]),
    case("lstsq", lambda a, b: linalg.lstsq(a, b, rcond=1e-3),
         lambda a, b: np.linalg.lstsq(a, b, rcond=1e-3)[0], [TALL, rand(4)], label="vector"),
    case("matrix_rank", linalg.matrix_rank, lambda x: np.linalg.matrix_rank(x).astype("int32"),
         [np.array([[1.0, 2.0], [2.0, 4.0]])], grad=False),
    case("svd", lambda x: linalg.svd(x, compute_uv=False),
         lambda x: np.linalg.svd(x, compute_uv=False), [rand(2, 4, 3)]),
    case("svd", lambda x: (lambda u, s, vh: (s, ops.matmul(u, vh), ops.multiply(u, u)))(
        *linalg.svd(x, full_matrices=False)),
         lambda x: (lambda u, s, vh: (s, u @ vh, u * u))(*np.linalg.svd(x, full_matrices=False)),
         [TALL], label="vectors-tall", fwd_atol32=1e-5),
    case("svd", lambda x: (lambda u, s, vh: (s, ops.matmul(u, vh), ops.multiply(vh, vh)))(
        *linalg.svd(x, full_matrices=False)),
         lambda x: (lambda u, s, vh: (s, u @ vh, vh * vh))(*np.linalg.svd(x, full_matrices=False)),
         [WIDE], label="vectors-wide", fwd_atol32=1e-5),
    case("eigh", lambda x: (lambda w, v: (w, ops.multiply(v, v)))(*linalg.eigh(sym(x))),
         lambda x: (lambda w, v: (w, v * v))(*np.linalg.eigh((x + x.T) / 2)),
         [np.diag([1.0, 2.0, 4.0]) + 0.1 * rand(3, 3)], fwd_atol32=1e-5),
    case("qr", linalg.qr, lambda x: tuple(np.linalg.qr(x)), [TALL], fwd_atol32=1e-5),
    case("qr", lambda x: linalg.qr(x, mode="complete"),
         lambda x: tuple(np.linalg.qr(x, mode="complete")), [A], label="complete-square",
         fwd_atol32=1e-5),
    case("norm", linalg.norm, np.linalg.norm, [rand(2, 3)]),
    *[case("norm", lambda x, o=o: linalg.norm(x, ord=o, axis=-1),
           lambda x, o=o: np.linalg.norm(x, ord=o, axis=-1), [rand(2, 3) + 2.0],
           label=f"vector-{o}") for o in (1, 3, np.inf, -np.inf)],
    *[case("norm", lambda x, o=o: linalg.norm(x, ord=o, axis=(0, 1), keepdims=True),
           lambda x, o=o: np.linalg.norm(x, ord=o, axis=(0, 1), keepdims=True), [rand(3, 2)],
           label=f"matrix-{o}") for o in ("fro", "nuc", 2, -2, 1, -np.inf)],
    case("norm", lambda x: linalg.norm(x, ord=0, axis=0),
         lambda x: np.linalg.norm(x, ord=0, axis=0), [np.array([[0.0, 1.5], [2.0, 0.0]])],
         grad=False, label="count"),
]

# jvp of sin(x) * x along t: (cos(x) * x + sin(x)) * t
CASES += [
    case("jvp", lambda x, tan: ops.jvp(lambda a: ops.multiply(ops.sin(a), a), (x,), (tan,)),
         lambda x, tan: (np.sin(x) * x, (np.cos(x) * x + np.sin(x)) * tan),
         [rand(3), rand(3)]),
]

# eig and lu_factor have no gradient; their forward is numpy's (scipy's for lu_factor)
EIG_INPUT = np.array([[1.0, 2.0, 0.0], [-2.0, 1.0, 0.5], [0.0, 0.3, 3.0]])
CASES += [
    case("eig", lambda x: [part(t) for t in linalg.eig(x) for part in (ops.real, ops.imag)],
         lambda x: (lambda w, v: (w.real, w.imag, v.real, v.imag))(*np.linalg.eig(x)),
         [EIG_INPUT], grad=False),
    # scipy.linalg.lu_factor of [[1, 2, 3], [4, 5, 6], [7, 8, 10]]
    case("lu_factor", linalg.lu_factor,
         lambda x: (np.array([[7.0, 8.0, 10.0], [1 / 7, 6 / 7, 11 / 7], [4 / 7, 0.5, -0.5]]),
                    np.array([2, 2, 2], dtype="int32")),
         [np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 10.0]])], grad=False),
]


@pytest.mark.parametrize("c", CASES, ids=str)
def test_forward_and_gradient(c, backend):
    run_case(c)


def t(x):
    return ops.convert_to_tensor(np.asarray(x, dtype="float64"))


def test_jvp_matches_finite_differences(backend):
    x, y = rand(3), rand(3)
    tx, ty = rand(3), rand(3)

    def f(a, b):
        return ops.multiply(ops.sin(a), ops.exp(b))

    out, tangent = linalg.jvp(f, (t(x), t(y)), (t(tx), t(ty)))
    eps = 1e-6
    numeric = (np.sin(x + eps * tx) * np.exp(y + eps * ty)
               - np.sin(x - eps * tx) * np.exp(y - eps * ty)) / (2 * eps)
    np.testing.assert_allclose(out.numpy(), np.sin(x) * np.exp(y), rtol=1e-12)
    np.testing.assert_allclose(tangent.numpy(), numeric, rtol=1e-7)


def test_jvp_has_aux_and_keras_example(backend):
    out, tangent, aux = ops.jvp(lambda a: (linalg.det(a), "aux"), (t(A),), (t(EYE3),),
                                has_aux=True)
    # d det(A)[I] = det(A) trace(A^-1)
    expected = np.linalg.det(A) * np.trace(np.linalg.inv(A))
    np.testing.assert_allclose(tangent.numpy(), expected, rtol=1e-9)
    assert aux == "aux"
    p, tn = ops.jvp(ops.sin, (ops.convert_to_tensor(0.1),), (ops.convert_to_tensor(0.2),))
    np.testing.assert_allclose([p.numpy(), tn.numpy()], [0.09983342, 0.19900084], rtol=1e-6)


def test_jvp_argument_errors(backend):
    with pytest.raises(TypeError, match="jvp: arguments 'primals' and 'tangents' must be "
                                        "tuples or lists"):
        linalg.jvp(ops.sin, t(1.0), (t(1.0),))
    with pytest.raises(ValueError, match="jvp: 'primals' and 'tangents' must have the same "
                                         "length; received 1 and 2"):
        linalg.jvp(ops.sin, (t(1.0),), (t(1.0), t(2.0)))


def test_linalg_errors_name_the_op(backend):
    with pytest.raises(ShapeError, match=r"inv: argument 'x' must be a square matrix"):
        linalg.inv(t(rand(2, 3)))
    with pytest.raises(ShapeError, match=r"svd: argument 'x' must have rank >= 2"):
        linalg.svd(t(rand(3)))
    with pytest.raises(ShapeError, match=r"solve: argument 'b' must have 3 rows"):
        linalg.solve(t(A), t(rand(2, 2)))
    with pytest.raises(ValueError, match=r"qr: argument 'mode' must be 'reduced' or "
                                         r"'complete' \(Expected one of \{'reduced', "
                                         r"'complete'\}\.\); received 'r'"):
        linalg.qr(t(A), mode="r")
    with pytest.raises(ValueError, match=r"norm: argument 'ord' 'nuc' is not a vector norm"):
        linalg.norm(t(rand(3)), ord="nuc", axis=0)
    with pytest.raises(ValueError, match=r"norm: argument 'ord' 3 is not a matrix norm"):
        linalg.norm(t(A), ord=3)
    with pytest.raises(ShapeError, match=r"norm: with 'ord' and axis=None, argument 'x' must "
                                         r"be 1-D or 2-D; received rank 3"):
        linalg.norm(t(BATCH), ord=1)
    with pytest.raises(ShapeError, match=r"norm: argument 'axis' must name one or two axes"):
        linalg.norm(t(BATCH), axis=(0, 1, 2))
    with pytest.raises(ShapeError, match=r"lstsq: argument 'a' must be a matrix"):
        linalg.lstsq(t(BATCH), t(rand(3)))
    with pytest.raises(ShapeError, match=r"lstsq: 'a' and 'b' must have the same number"):
        linalg.lstsq(t(TALL), t(rand(3)))


def test_gradients_refused_where_undefined(backend):
    import lamina
    for fn, x, message in [
            (lambda x: linalg.qr(x)[1], rand(2, 4), r"qr: the gradient is defined for square "
                                                    r"and tall matrices"),
            (lambda x: linalg.svd(x)[0], rand(4, 3), r"svd: the gradient with "
                                                     r"full_matrices=True is defined for "
                                                     r"square matrices only")]:
        x = t(x)
        with lamina.GradientTape() as tape:
            tape.watch(x)
            y = ops.sum(fn(x))
        with pytest.raises(GradientError, match=message):
            tape.gradient(y, x)


def test_integer_norm_is_float32(backend):
    y = linalg.norm(ops.convert_to_tensor(np.array([3, 4], dtype="int32")))
    assert y.dtype == "float32" and float(y.numpy()) == 5.0


def test_keras_ops_names(backend):
    for name in ("cholesky", "det", "slogdet", "logdet", "svd", "qr", "jvp", "norm",
                 "lu_factor", "eig"):
        assert getattr(ops, name) is getattr(linalg, name)


def test_eig_returns_complex_tensors_as_keras(backend):
    # Keras 3.15.1 (JAX): eig([[0, -1], [1, 0]]) -> w = [1j, -1j],
    # v = [[0.70710677, 0.70710677], [-0.70710677j, 0.70710677j]], both complex64
    w, v = linalg.eig(ops.convert_to_tensor([[0.0, -1.0], [1.0, 0.0]], dtype="float32"))
    assert w.dtype == v.dtype == "complex64"
    np.testing.assert_allclose(w.numpy(), [1j, -1j], atol=1e-6)
    np.testing.assert_allclose(v.numpy(), [[0.70710677, 0.70710677],
                                           [-0.70710677j, 0.70710677j]], atol=1e-6)
    w, v = linalg.eig(SymbolicTensor((None, 20, 20)))
    assert w.shape == (None, 20) and v.shape == (None, 20, 20) and w.dtype == "complex64"


def test_square_matrix_refuses_a_known_and_an_unknown_size(backend):
    # Keras: a (None, None, 20) or (None, 20, 15) stack is no stack of square matrices
    for fn in (linalg.cholesky, linalg.inv, linalg.det, linalg.cholesky_inverse):
        assert fn(SymbolicTensor((None, 20, 20))).shape[0] is None
        for shape in ((None, None, 20), (None, 20, 15)):
            with pytest.raises(ShapeError, match=r"argument 'x' must be a square matrix or a "
                                                 r"stack of them"):
                fn(SymbolicTensor(shape))


def test_solve_triangular_takes_a_stack_of_vectors_as_keras(backend):
    # Keras 3.15.1 (JAX's scipy.linalg.solve_triangular): b with one axis less than a
    # is a stack of vectors
    a = ops.convert_to_tensor([[[1, 2], [0, 5]], [[1, 2], [0, 5]]], dtype="float32")
    b = ops.convert_to_tensor([[2, 10], [4, 10]], dtype="float32")
    np.testing.assert_allclose(linalg.solve_triangular(a, b, lower=True).numpy(),
                               [[2, 2], [4, 2]])
    np.testing.assert_allclose(linalg.solve_triangular(a, b, lower=False).numpy(),
                               [[-2, 2], [0, 2]])
    np.testing.assert_allclose(linalg.solve_triangular(a[0], b, lower=True).numpy(),
                               [[2, 10], [0.8, 2]])         # a matrix b when a is one matrix
    assert linalg.solve_triangular(SymbolicTensor((None, 20, 20)),
                                   SymbolicTensor((None, 20))).shape == (None, 20)
    for fn in (linalg.solve, linalg.solve_triangular):      # Keras: rows None != 20
        with pytest.raises(ShapeError, match=rf"{fn.__name__}: argument 'b' must have 20 rows"):
            fn(SymbolicTensor((None, 20, 20)), SymbolicTensor((None, None, 5)))
