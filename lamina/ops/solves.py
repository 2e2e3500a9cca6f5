"""Solves, inverses and determinants: solve, solve_triangular, inv, det, slogdet, logdet,
pinv, lstsq, cholesky_inverse, matrix_rank (Keras's ``ops.linalg``).

The gradients are the matrix-calculus rules written with ops: for ``x = a^-1 b``,
``gb = a^-T g`` and ``ga = -gb x^T``; ``d det = det a^-T``; the pseudo-inverse's rule holds
where the rank does not change (Golub and Pereyra).
"""
from __future__ import annotations

from ..errors import ShapeError, describe_shape
from .reshaping import expand_dims, squeeze
from .core import as_tensors, require_float
from .decompositions import Triangle, eye_like, mT, matrices, square_matrix
from .elementwise import unbroadcast
from .linalg import matmul
from .math import add, multiply, negative, subtract
from ..core.op import Op, Spec, broadcast_shapes, register_op

__all__ = ["solve", "solve_triangular", "inv", "det", "slogdet", "logdet", "pinv", "lstsq",
           "cholesky_inverse", "matrix_rank"]


def _system_spec(op, a, b):
    n = a.shape[-1]
    if b.ndim < 2 or b.shape[-2] != n:      # as Keras: None and a known size differ
        raise ShapeError(f"{op}: argument 'b' must have {n} rows (shape (..., {n}, k) or "
                         f"({n},)) to match 'a'; received shapes {describe_shape(a.shape)} "
                         f"and {describe_shape(b.shape)}")
    batch = broadcast_shapes(op, tuple(a.shape[:-2]), tuple(b.shape[:-2]), args=("a", "b"))
    return Spec(batch + tuple(b.shape[-2:]), a.dtype)


def _system_gradient(ctx, g, ga_mask=None, solve_t=None):
    a, b = ctx.inputs
    (x,) = ctx.outputs
    gb_full = solve_t(mT(a), g)
    ga = None
    if ctx.needs_grad[0]:
        ga = negative(matmul(gb_full, mT(x)))
        ga = unbroadcast(ga if ga_mask is None else ga_mask(ga), a)
    return ga, unbroadcast(gb_full, b) if ctx.needs_grad[1] else None


@register_op
class Solve(Op):
    name = "solve"

    def output_spec(self, a, b):
        return _system_spec(self.name, a, b)

    def forward(self, backend, a, b, out=None):
        batch = broadcast_shapes(self.name, a.shape[:-2], b.shape[:-2])
        return backend.solve(backend.broadcast_to(a, batch + a.shape[-2:]),
                             backend.broadcast_to(b, batch + b.shape[-2:]))

    def gradient(self, ctx, g):
        return _system_gradient(ctx, g, solve_t=Solve)


@register_op
class SolveTriangular(Op):
    name = "solve_triangular"

    def output_spec(self, a, b, lower):
        return _system_spec(self.name, a, b)

    def forward(self, backend, a, b, out=None, lower=False):
        batch = broadcast_shapes(self.name, a.shape[:-2], b.shape[:-2])
        return backend.solve_triangular(backend.broadcast_to(a, batch + a.shape[-2:]),
                                        backend.broadcast_to(b, batch + b.shape[-2:]), lower)

    def gradient(self, ctx, g):
        lower = ctx.attrs["lower"]
        return _system_gradient(
            ctx, g, ga_mask=lambda t: Triangle(t, lower=lower, k=0),
            solve_t=lambda at, gg: SolveTriangular(at, gg, lower=not lower))


def _system(op, prim, a, b, **attrs):
    a, b = as_tensors(op, a, b)
    require_float(op, "a", a)
    a = square_matrix(op, a, "a")
    if b.ndim in (1, a.ndim - 1):      # a vector, or a stack of vectors
        return squeeze(prim(a, expand_dims(b, -1), **attrs), -1)
    return prim(a, b, **attrs)


def solve(a, b):
    """``x`` with ``a @ x == b``, of ``b``'s shape. As Keras's shape rule has it (and its
    TensorFlow backend, and JAX before 0.5), ``b`` is a vector when 1-D and a stack of
    vectors when it has one axis less than a stack ``a``; otherwise a stack of matrices.

    Args:
        a: A square matrix (..., n, n), or a stack of them.
        b: The right-hand side: a vector, a stack of vectors or a stack of matrices (see
            above).

    Returns:
        The solution ``x``, of ``b``'s shape.

    Example:

    >>> a = np.array([[2.0, 0.0], [0.0, 4.0]])
    >>> lamina.ops.solve(a, np.array([2.0, 2.0])).numpy()
    array([1. , 0.5])
    """
    return _system("solve", Solve, a, b)


def solve_triangular(a, b, lower=False):
    """``solve`` for a triangular ``a``: only its lower (``lower=True``) or upper triangle
    is read. As in Keras (JAX's ``scipy.linalg.solve_triangular``), ``b`` is a stack of
    vectors when it has one axis less than ``a``.

    Args:
        a: A triangular matrix (..., n, n).
        b: The right-hand side, as for ``solve``.
        lower: Whether ``a`` is lower triangular (True) or upper (False, the default).

    Returns:
        The solution ``x``, of ``b``'s shape.
    """
    return _system("solve_triangular", SolveTriangular, a, b, lower=bool(lower))


@register_op
class Inv(Op):
    name = "inv"

    def output_spec(self, x):
        return Spec(tuple(x.shape), x.dtype)

    def forward(self, backend, x, out=None):
        return backend.inv(x)

    def gradient(self, ctx, g):
        yt = mT(ctx.outputs[0])
        return negative(matmul(matmul(yt, g), yt))


def inv(x):
    """The inverse of a square matrix (or of each in a stack).

    Args:
        x: A square matrix (..., n, n), or a stack of them.

    Returns:
        The inverse, of ``x``'s shape.
    """
    return Inv(square_matrix("inv", x))


@register_op
class Det(Op):
    name = "det"

    def output_spec(self, x):
        return Spec(tuple(x.shape[:-2]), x.dtype)

    def forward(self, backend, x, out=None):
        return backend.det(x)

    def gradient(self, ctx, g):
        scale = expand_dims(expand_dims(multiply(g, ctx.outputs[0]), -1), -1)
        return multiply(scale, mT(Inv(ctx.inputs[0])))


def det(x):
    """The determinant of a square matrix (or of each in a stack).

    Args:
        x: A square matrix (..., n, n), or a stack of them.

    Returns:
        The determinant: ``x``'s shape without the last two axes.

    Example:

    >>> lamina.ops.det(np.array([[1.0, 2.0], [3.0, 4.0]])).numpy().round(4)
    np.float64(-2.0)
    """
    return Det(square_matrix("det", x))


@register_op
class SLogDet(Op):
    name = "slogdet"

    def output_spec(self, x):
        s = Spec(tuple(x.shape[:-2]), x.dtype)
        return s, s

    def forward(self, backend, x, out=None):
        return backend.slogdet(x)

    def gradient(self, ctx, g_sign, g_log):
        # the sign is piecewise constant: only log|det| carries a gradient
        return multiply(expand_dims(expand_dims(g_log, -1), -1), mT(Inv(ctx.inputs[0])))


def slogdet(x):
    """``(sign, log|det x|)``, numpy's ``slogdet``.

    Args:
        x: A square matrix (..., n, n), or a stack of them.

    Returns:
        A pair ``(sign, logabsdet)``, each of ``x``'s shape without the last two axes.
    """
    return SLogDet(square_matrix("slogdet", x))


def logdet(x):
    """``log det x`` of a Hermitian positive-definite ``x`` (Keras: ``slogdet(x)[1]``).

    Args:
        x: A Hermitian positive-definite matrix (..., n, n).

    Returns:
        ``log det x``: ``x``'s shape without the last two axes.
    """
    return slogdet(x)[1]


@register_op
class PInv(Op):
    name = "pinv"

    def output_spec(self, x, rcond):
        return Spec(tuple(x.shape[:-2]) + (x.shape[-1], x.shape[-2]), x.dtype)

    def forward(self, backend, x, out=None, rcond=None):
        return backend.pinv(x, rcond)

    def gradient(self, ctx, g):
        (a,), (p,) = ctx.inputs, ctx.outputs
        pt = mT(p)
        term1 = negative(matmul(matmul(pt, g), pt))
        left = subtract(eye_like(matmul(a, p)), matmul(a, p))        # I - A A+
        right = subtract(eye_like(matmul(p, a)), matmul(p, a))       # I - A+ A
        term2 = matmul(matmul(left, mT(g)), matmul(p, pt))
        term3 = matmul(matmul(matmul(pt, p), mT(g)), right)
        return add(add(term1, term2), term3)


def pinv(x, rcond=None):
    """The Moore-Penrose pseudo-inverse (singular values below ``rcond`` times the
    largest are dropped; numpy's default when None).

    Args:
        x: A matrix (..., m, n), or a stack of them.
        rcond: Singular values below ``rcond`` times the largest are dropped; None uses
            numpy's default.

    Returns:
        The pseudo-inverse, shape (..., n, m).
    """
    return PInv(matrices("pinv", x), rcond=None if rcond is None else float(rcond))


def lstsq(a, b, rcond=None):
    """The least-squares solution of ``a @ x = b``: ``pinv(a) @ b``, numpy's ``lstsq``
    solution for a full-rank ``a``.

    Args:
        a: The coefficient matrix (m, n).
        b: The right-hand side: a vector (m,) or a matrix (m, k).
        rcond: The cut-off for small singular values of ``a``; None uses numpy's default.

    Returns:
        The solution ``x``: shape (n,) or (n, k).
    """
    a, b = as_tensors("lstsq", a, b)
    a = matrices("lstsq", a, "a")
    if a.ndim != 2 or b.ndim not in (1, 2):
        raise ShapeError(f"lstsq: argument 'a' must be a matrix and 'b' a vector or matrix "
                         f"(numpy's lstsq); received shapes {describe_shape(a.shape)} and "
                         f"{describe_shape(b.shape)}")
    if a.shape[0] is not None and b.shape[0] is not None and a.shape[0] != b.shape[0]:
        raise ShapeError(f"lstsq: 'a' and 'b' must have the same number of rows; received "
                         f"shapes {describe_shape(a.shape)} and {describe_shape(b.shape)}")
    return matmul(pinv(a, rcond=rcond), b)


def cholesky_inverse(x, upper=False):
    """The inverse of ``A`` from its Cholesky factor ``x`` (lower, or upper when
    ``upper``): ``(L L^T)^-1``.

    Args:
        x: A triangular Cholesky factor (..., n, n).
        upper: Whether ``x`` is the upper factor. Defaults to False (lower).

    Returns:
        The inverse of the factored matrix, of ``x``'s shape.
    """
    x = square_matrix("cholesky_inverse", x)
    inv_factor = SolveTriangular(x, eye_like(x), lower=not upper)
    if upper:
        return matmul(inv_factor, mT(inv_factor))
    return matmul(mT(inv_factor), inv_factor)


@register_op
class MatrixRank(Op):
    name = "matrix_rank"
    differentiable = False

    def output_spec(self, x, tol):
        return Spec(tuple(x.shape[:-2]), "int32")

    def forward(self, backend, x, out=None, tol=None):
        return backend.matrix_rank(x, tol)


def matrix_rank(x, tol=None):
    """The number of singular values above ``tol`` (numpy's default when None), int32.

    Args:
        x: A matrix (..., m, n), or a stack of them.
        tol: The threshold below which singular values count as zero; None uses numpy's
            default (``S.max() * max(m, n) * eps``).

    Returns:
        The rank, an int32 tensor of ``x``'s shape without the last two axes.
    """
    return MatrixRank(matrices("matrix_rank", x), tol=None if tol is None else float(tol))

