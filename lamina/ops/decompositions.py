"""Matrix decompositions: cholesky, qr, svd, eigh, eig, lu_factor (Keras's ``ops.linalg``).

Each is a primitive over stacks of matrices (the leading axes are a batch) calling one
backend kernel. The gradients are the standard matrix-calculus rules, written with ops, for
real inputs: Cholesky (Murray 2016), QR for square and tall matrices, SVD (Townsend 2016,
distinct singular values), eigh (distinct eigenvalues). numpy reads only the lower triangle
of a symmetric input (cholesky, eigh); their gradients are the symmetric ones, correct for
symmetric perturbations as JAX's are. ``eig`` and ``lu_factor`` have no gradient.
"""
from __future__ import annotations

from ..errors import GradientError, ShapeError, describe_shape
from .reshaping import expand_dims, swapaxes
from .core import as_tensor, ones_like, require_float
from .linalg import matmul
from .complex_numbers import MakeComplex
from .math import add, divide, multiply, subtract
from ..core.op import OP_REGISTRY, Op, Spec, register_op

__all__ = ["cholesky", "qr", "svd", "eigh", "eig", "lu_factor"]


def mT(x):
    return swapaxes(x, -1, -2)


def square_matrix(op: str, x, arg: str = "x"):
    x = as_tensor(op, x)
    require_float(op, arg, x)
    # As Keras: a known and an unknown size (None) do not make a square either.
    if x.ndim < 2 or x.shape[-1] != x.shape[-2]:
        raise ShapeError(f"{op}: argument '{arg}' must be a square matrix or a stack of them "
                         f"(shape (..., n, n), both sizes known or both unknown); received "
                         f"shape {describe_shape(x.shape)}")
    return x


def matrices(op: str, x, arg: str = "x"):
    x = as_tensor(op, x)
    require_float(op, arg, x)
    if x.ndim < 2:
        raise ShapeError(f"{op}: argument '{arg}' must have rank >= 2 (a matrix or a stack "
                         f"of them); received shape {describe_shape(x.shape)}")
    return x


@register_op
class Triangle(Op):
    """The lower (``tril``, diagonals <= k) or upper (``triu``, >= k) part of matrices."""
    name = "linalg_triangle"

    def output_spec(self, x, lower, k):
        return Spec(tuple(x.shape), x.dtype)

    def forward(self, backend, x, out=None, lower=True, k=0):
        return backend.triangle(x, lower, k)

    def gradient(self, ctx, g):
        return Triangle(g, **ctx.attrs)


def tril(x, k=0):
    return Triangle(x, lower=True, k=k)


def triu(x, k=0):
    return Triangle(x, lower=False, k=k)


def eye_like(x):
    """The identity matrix, broadcast like the (..., n, n) tensor ``x``."""
    return triu(tril(ones_like(x)))


def diag_embed(d):
    """(..., n) -> (..., n, n) with ``d`` on the diagonal."""
    return multiply(expand_dims(d, -1), eye_like(multiply(expand_dims(d, -1),
                                                          expand_dims(d, -2))))


def solve_tri(a, b, lower):
    """The ``solve_triangular`` op (``solves.py``, which builds on this module) by name."""
    return OP_REGISTRY["solve_triangular"](a, b, lower=lower)


@register_op
class Cholesky(Op):
    name = "cholesky"

    def output_spec(self, x):
        return Spec(tuple(x.shape), x.dtype)

    def forward(self, backend, x, out=None):
        return backend.cholesky(x)

    def gradient(self, ctx, g):
        (l,) = ctx.outputs
        p = tril(matmul(mT(l), g))
        p = multiply(add(p, tril(p, -1)), 0.5)             # Phi: the diagonal halved
        x = solve_tri(mT(l), p, lower=False)               # L^-T Phi
        s = mT(solve_tri(mT(l), mT(x), lower=False))       # L^-T Phi L^-1
        return multiply(add(s, mT(s)), 0.5)


def cholesky(x, upper=False):
    """The Cholesky factor of a symmetric positive-definite ``x``: lower ``L`` with
    ``x = L L^T``, or its transpose when ``upper``.

    Args:
        x: A symmetric positive-definite matrix (..., n, n), or a stack of them.
        upper: Whether to return the upper factor ``L^T`` instead of ``L``. Defaults to
            False.

    Returns:
        The triangular factor, of ``x``'s shape.

    Example:

    >>> lamina.ops.cholesky(np.array([[4.0, 2.0], [2.0, 2.0]])).numpy()
    array([[2., 0.],
           [1., 1.]])
    """
    l = Cholesky(square_matrix("cholesky", x))
    return mT(l) if upper else l


@register_op
class EigH(Op):
    name = "eigh"

    def output_spec(self, x):
        return Spec(tuple(x.shape[:-1]), x.dtype), Spec(tuple(x.shape), x.dtype)

    def forward(self, backend, x, out=None):
        return backend.eigh(x)

    def gradient(self, ctx, gw, gv):
        w, v = ctx.outputs
        diff = subtract(expand_dims(w, -2), expand_dims(w, -1))   # w_j - w_i
        eye = eye_like(diff)
        f = divide(subtract(1.0, eye), add(diff, eye))
        inner = add(diag_embed(gw), multiply(f, matmul(mT(v), gv)))
        gx = matmul(matmul(v, inner), mT(v))
        return multiply(add(gx, mT(gx)), 0.5)


def eigh(x):
    """Eigenvalues (ascending) and eigenvectors (columns) of a symmetric ``x``.

    Args:
        x: A symmetric (Hermitian) matrix (..., n, n), or a stack of them.

    Returns:
        A pair ``(w, v)``: the eigenvalues (..., n) in ascending order and the eigenvectors
        as the columns of (..., n, n).
    """
    return EigH(square_matrix("eigh", x))


@register_op
class Eig(Op):
    name = "eig"
    differentiable = False

    def output_spec(self, x):
        w, v = Spec(tuple(x.shape[:-1]), x.dtype), Spec(tuple(x.shape), x.dtype)
        return w, w, v, v

    def forward(self, backend, x, out=None):
        return backend.eig(x)


def eig(x):
    """Eigenvalues ``w`` and right eigenvectors ``v`` (columns) of a general square ``x``,
    as numpy computes them, as complex tensors (Keras: complex64 from float32; complex128
    from float64).

    Args:
        x: A square matrix (..., n, n), or a stack of them.

    Returns:
        A pair ``(w, v)``: the eigenvalues (..., n) and the eigenvectors as the columns of
        (..., n, n), both complex.
    """
    wr, wi, vr, vi = Eig(square_matrix("eig", x))
    return MakeComplex(wr, wi), MakeComplex(vr, vi)


@register_op
class SVD(Op):
    name = "svd"

    def output_spec(self, x, full_matrices, compute_uv):
        *batch, m, n = x.shape
        k = None if m is None or n is None else min(m, n)
        s = Spec(tuple(batch) + (k,), x.dtype)
        if not compute_uv:
            return s
        rows, cols = (m, n) if full_matrices else (k, k)
        return (Spec(tuple(batch) + (m, rows), x.dtype), s,
                Spec(tuple(batch) + (cols, n), x.dtype))

    def forward(self, backend, x, out=None, full_matrices=True, compute_uv=True):
        return backend.svd(x, full_matrices, compute_uv)

    def gradient(self, ctx, *grads):
        (x,) = ctx.inputs
        m, n = x.shape[-2:]
        if not ctx.attrs["compute_uv"]:
            u, _, vh = SVD(x, full_matrices=False, compute_uv=True)
            return matmul(multiply(u, expand_dims(grads[0], -2)), vh)
        if ctx.attrs["full_matrices"] and m != n:
            raise GradientError(f"svd: the gradient with full_matrices=True is defined for "
                                f"square matrices only; received shape {describe_shape(x.shape)}"
                                f" (use full_matrices=False)")
        u, s, vh = ctx.outputs
        gu, gs, gvh = grads
        if m >= n:
            return _svd_tall_grad(u, s, mT(vh), gu, gs, mT(gvh))
        return mT(_svd_tall_grad(mT(vh), s, u, mT(gvh), gs, gu))


def _svd_tall_grad(u, s, v, gu, gs, gv):
    """Townsend's rule for A = U S V^T with U (m, k), V (n, k), m >= n = k."""
    s_row, s_col = expand_dims(s, -2), expand_dims(s, -1)
    diff = subtract(multiply(s_row, s_row), multiply(s_col, s_col))    # s_j^2 - s_i^2
    eye = eye_like(diff)
    f = divide(subtract(1.0, eye), add(diff, eye))
    ut_gu, vt_gv = matmul(mT(u), gu), matmul(mT(v), gv)
    j = multiply(multiply(f, subtract(ut_gu, mT(ut_gu))), s_row)
    k = multiply(s_col, multiply(f, subtract(vt_gv, mT(vt_gv))))
    core = matmul(matmul(u, add(add(j, diag_embed(gs)), k)), mT(v))
    # the part of gU outside U's span (tall matrices; zero for square ones)
    gu_perp = subtract(gu, matmul(u, ut_gu))
    return add(core, matmul(divide(gu_perp, s_row), mT(v)))


def svd(x, full_matrices=True, compute_uv=True):
    """Singular value decomposition ``x = u @ diag(s) @ vh``: ``(u, s, vh)``, or ``s``
    alone when ``compute_uv`` is False (numpy's conventions).

    Args:
        x: A matrix (..., m, n), or a stack of them.
        full_matrices: Whether ``u`` and ``vh`` are square (True, the default) or reduced to
            ``min(m, n)`` columns / rows.
        compute_uv: Whether to return ``u`` and ``vh`` too (True, the default) or only
            ``s``.

    Returns:
        ``(u, s, vh)`` with ``s`` the singular values in descending order, or ``s`` alone.
    """
    return SVD(matrices("svd", x), full_matrices=bool(full_matrices),
               compute_uv=bool(compute_uv))


@register_op
class QR(Op):
    name = "qr"

    def output_spec(self, x, mode):
        *batch, m, n = x.shape
        k = None if m is None or n is None else min(m, n)
        cols = m if mode == "complete" else k
        return Spec(tuple(batch) + (m, cols), x.dtype), Spec(tuple(batch) + (cols, n), x.dtype)

    def forward(self, backend, x, out=None, mode="reduced"):
        return backend.qr(x, mode)

    def gradient(self, ctx, gq, gr):
        (x,) = ctx.inputs
        m, n = x.shape[-2:]
        if m < n or (ctx.attrs["mode"] == "complete" and m != n):
            raise GradientError(f"qr: the gradient is defined for square and tall matrices "
                                f"in mode 'reduced'; received shape "
                                f"{describe_shape(x.shape)} and mode {ctx.attrs['mode']!r}")
        q, r = ctx.outputs
        mm = subtract(matmul(r, mT(gr)), matmul(mT(gq), q))
        copyltu = add(tril(mm), mT(tril(mm, -1)))
        b = add(gq, matmul(q, copyltu))
        return mT(solve_tri(r, mT(b), lower=False))        # b R^-T


def qr(x, mode="reduced"):
    """The QR decomposition ``x = q @ r``; ``mode`` is 'reduced' or 'complete'.

    Args:
        x: A matrix (..., m, n), or a stack of them.
        mode: "reduced" (the default: q is (..., m, k), r is (..., k, n), k = min(m, n)) or
            "complete" (q is (..., m, m)).

    Returns:
        A pair ``(q, r)``.

    Raises:
        ValueError: For another ``mode``.
    """
    if mode not in ("reduced", "complete"):
        raise ValueError(f"qr: argument 'mode' must be 'reduced' or 'complete' "
                         f"(Expected one of {{'reduced', 'complete'}}.); received {mode!r}")
    return QR(matrices("qr", x), mode=mode)


@register_op
class LUFactor(Op):
    name = "lu_factor"
    differentiable = False

    def output_spec(self, x):
        *batch, m, n = x.shape
        k = None if m is None or n is None else min(m, n)
        return Spec(tuple(x.shape), x.dtype), Spec(tuple(batch) + (k,), "int32")

    def forward(self, backend, x, out=None):
        return backend.lu_factor(x)


def lu_factor(x):
    """LU decomposition with partial pivoting, as scipy's ``lu_factor``: the packed
    ``lu`` (unit-lower L below the diagonal, U on and above) and the 0-based pivots.

    Args:
        x: A matrix (..., m, n), or a stack of them.

    Returns:
        A pair ``(lu, pivots)``: the packed factors, of ``x``'s shape, and the 0-based int32
        pivot indices.
    """
    return LUFactor(matrices("lu_factor", x))
