"""Contractions: matmul (numpy semantics, batched and broadcasting), dot, tensordot, outer.

``matmul`` is the primitive; the others are compositions of it with transposes and
reshapes. A matrix on the right of a batch of matrices (a dense layer applied to a sequence)
is computed as one big GEMM over the flattened batch, forwards and backwards: measured
here, (64, 8, 128) @ (128, 256) takes 155 us that way against 662 us batched.
"""
from __future__ import annotations

from ..errors import DTypeError, ShapeError, describe_shape
from .reshaping import expand_dims, reshape, squeeze, swapaxes, transpose
from .core import as_tensors
from .elementwise import unbroadcast
from .math import multiply
from ..core.op import Op, Spec, broadcast_shapes, register_op

__all__ = ["matmul", "dot", "tensordot", "outer"]


def _shapes(a, b) -> str:
    return f"received shapes {describe_shape(a.shape)} and {describe_shape(b.shape)}"


@register_op
class MatMul(Op):
    name = "matmul"
    writes_out = True

    def output_spec(self, a, b):
        if a.dtype != b.dtype:
            raise DTypeError(f"matmul: arguments 'x1' and 'x2' must have one dtype "
                             f"(lamina.ops.matmul promotes them); received {a.dtype} and "
                             f"{b.dtype}")
        if not a.shape or not b.shape:
            raise ShapeError(f"matmul: arguments 'x1' and 'x2' must have rank >= 1 (use "
                             f"lamina.ops.multiply for scalars); {_shapes(a, b)}")
        a_shape = (1,) + tuple(a.shape) if len(a.shape) == 1 else tuple(a.shape)
        b_shape = tuple(b.shape) + (1,) if len(b.shape) == 1 else tuple(b.shape)
        k1, k2 = a_shape[-1], b_shape[-2]
        if k1 is not None and k2 is not None and k1 != k2:
            raise ShapeError(f"matmul: arguments 'x1' and 'x2' have mismatched inner "
                             f"dimensions ({k1} and {k2}); {_shapes(a, b)}")
        try:
            batch = broadcast_shapes(self.name, a_shape[:-2], b_shape[:-2])
        except ShapeError:
            raise ShapeError(f"matmul: the batch dimensions of 'x1' and 'x2' do not "
                             f"broadcast; {_shapes(a, b)}") from None
        rows = (a_shape[-2],) if len(a.shape) > 1 else ()
        cols = (b_shape[-1],) if len(b.shape) > 1 else ()
        return Spec(batch + rows + cols, a.dtype)

    def forward(self, backend, a, b, out=None):
        return backend.matmul(a, b, out=out)

    def gradient(self, ctx, g):
        a, b = ctx.inputs
        # promote 1-D operands as numpy does, and the gradient with them
        a2 = expand_dims(a, 0) if a.ndim == 1 else a
        b2 = expand_dims(b, 1) if b.ndim == 1 else b
        if a.ndim == 1:
            g = expand_dims(g, g.ndim - (b.ndim > 1))
        if b.ndim == 1:
            g = expand_dims(g, g.ndim)
        ga = gb = None
        if ctx.needs_grad[0]:
            ga = unbroadcast(matmul(g, swapaxes(b2, -1, -2)), a2)
            ga = squeeze(ga, 0) if a.ndim == 1 else ga
        if ctx.needs_grad[1]:
            if b2.ndim == 2 and a2.ndim > 2:
                # the batch sum inside one GEMM: (prod(batch), k)^T @ (prod(batch), n)
                k, n = a2.shape[-1], g.shape[-1]
                gb = matmul(transpose(reshape(a2, (-1, k))), reshape(g, (-1, n)))
            else:
                gb = unbroadcast(matmul(swapaxes(a2, -1, -2), g), b2)
            gb = squeeze(gb, 1) if b.ndim == 1 else gb
        return ga, gb


def matmul(x1, x2):
    """The matrix product of ``x1`` and ``x2`` with numpy's rules: batch dimensions
    broadcast, and a 1-D operand is a row (left) or column (right) vector that is
    removed from the result.

    Args:
        x1: First input tensor.
        x2: Second input tensor; broadcasts with ``x1``.

    Returns:
        The product: the broadcast batch shape of the operands, then ``(n, p)`` for operands
        ``(..., n, m)`` and ``(..., m, p)``.

    Example:

    >>> a = np.ones((2, 3))
    >>> b = np.ones((3, 4))
    >>> lamina.ops.matmul(a, b).shape
    (2, 4)
    """
    a, b = as_tensors("matmul", x1, x2)
    return MatMul(a, b)


def dot(x1, x2):
    """numpy's ``dot``: a product with scalars, matmul for 1-D and 2-D operands, and for
    N-D operands a sum over the last axis of ``x1`` and the second-to-last of ``x2``.

    Args:
        x1: First input tensor.
        x2: Second input tensor; broadcasts with ``x1``.

    Returns:
        The product (see above).
    """
    a, b = as_tensors("dot", x1, x2)
    if a.ndim == 0 or b.ndim == 0:
        return multiply(a, b)
    if b.ndim <= 2:
        return matmul(a, b)
    return tensordot(a, b, axes=((a.ndim - 1,), (b.ndim - 2,)))


def _axes_list(op: str, arg: str, axes, ndim: int) -> list:
    axes = [axes] if isinstance(axes, int) else list(axes)
    out = []
    for ax in axes:
        if not -ndim <= ax < ndim:
            raise ShapeError(f"{op}: axis {ax} in '{arg}' is out of range for rank {ndim}")
        out.append(ax % ndim)
    if len(set(out)) != len(out):
        raise ShapeError(f"{op}: '{arg}' repeats an axis; received {axes}")
    return out


def tensordot(x1, x2, axes=2):
    """Sum of products over ``axes``: an int N (the last N axes of ``x1`` with the first N
    of ``x2``) or a pair of axis lists; the free axes of ``x1`` then of ``x2`` remain.

    Args:
        x1: First input tensor.
        x2: Second input tensor; broadcasts with ``x1``.
        axes: An int N, or a pair of axis lists (see above). Defaults to 2.

    Returns:
        The contraction.
    """
    a, b = as_tensors("tensordot", x1, x2)
    if isinstance(axes, int):
        if axes < 0 or axes > min(a.ndim, b.ndim):
            raise ShapeError(f"tensordot: argument 'axes' ({axes}) exceeds the rank of an "
                             f"input; {_shapes(a, b)}")
        a_axes, b_axes = list(range(a.ndim - axes, a.ndim)), list(range(axes))
    else:
        if len(axes) != 2:
            raise ValueError(f"tensordot: argument 'axes' must be an int or a pair of axis "
                             f"lists; received {axes!r}")
        a_axes = _axes_list("tensordot", "axes[0]", axes[0], a.ndim)
        b_axes = _axes_list("tensordot", "axes[1]", axes[1], b.ndim)
        if len(a_axes) != len(b_axes):
            raise ShapeError(f"tensordot: 'axes' pairs {len(a_axes)} axes of 'x1' with "
                             f"{len(b_axes)} of 'x2'; {_shapes(a, b)}")
    for i, j in zip(a_axes, b_axes):
        if a.shape[i] is not None and b.shape[j] is not None and a.shape[i] != b.shape[j]:
            raise ShapeError(f"tensordot: axis {i} of 'x1' (size {a.shape[i]}) and axis {j} "
                             f"of 'x2' (size {b.shape[j]}) must match; {_shapes(a, b)}")
    a_free = [i for i in range(a.ndim) if i not in a_axes]
    b_free = [j for j in range(b.ndim) if j not in b_axes]
    contracted = 1
    for i in a_axes:
        contracted *= a.shape[i]
    a2 = reshape(transpose(a, tuple(a_free + a_axes)), (-1, contracted))
    b2 = reshape(transpose(b, tuple(b_axes + b_free)), (contracted, -1))
    result_shape = tuple(a.shape[i] for i in a_free) + tuple(b.shape[j] for j in b_free)
    return reshape(matmul(a2, b2), result_shape)


def outer(x1, x2):
    """The outer product of the flattened ``x1`` and ``x2``: shape (x1.size, x2.size).

    Args:
        x1: First input tensor.
        x2: Second input tensor; broadcasts with ``x1``.

    Returns:
        A 2-D tensor (x1.size, x2.size).
    """
    a, b = as_tensors("outer", x1, x2)
    return multiply(reshape(a, (-1, 1)), reshape(b, (1, -1)))


# ``lamina.ops.linalg`` is also Keras's ``keras.ops.linalg`` namespace: the decompositions,
# solves, norms and jvp live in their own modules (which import matmul from here, so they
# come in last) and are re-exported under this module's name.
from . import decompositions as _decompositions, jvp as _jvp  # noqa: E402
from . import norms as _norms, solves as _solves  # noqa: E402
from .decompositions import *  # noqa: E402,F401,F403
from .jvp import jvp  # noqa: E402,F401
from .norms import norm  # noqa: E402,F401
from .solves import *  # noqa: E402,F401,F403

__all__ = __all__ + _decompositions.__all__ + _solves.__all__ + _norms.__all__ + _jvp.__all__
