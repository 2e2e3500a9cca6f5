"""The Orthogonal initializer (recurrent kernels' default), and the QR factorization it
needs, written with ops.

Keras takes the Q factor of a normal matrix, with each column's sign chosen so the
diagonal of R is positive; that Q is uniformly (Haar) distributed. Gram-Schmidt gives that
very Q, since it makes R's diagonal positive by construction. We orthogonalize
"twice is enough" (CGS2): block against block with matmuls, then column by column inside a
block, which matches LAPACK's Q to float32 rounding in tests. A 4096 x 1024 matrix takes
about half a second on a CPU; initializers run once.
"""
from __future__ import annotations

from .. import ops
from .. import random as lamina_random
from ..core.tensor import Tensor
from ..errors import ShapeError, describe_shape
from ..registry import register_builtin
from .initializer import check_number
from .random_initializers import RandomInitializer

_BLOCK = 32


def _remove_projection(vectors, basis):
    """``vectors`` minus their projection on the orthonormal columns of ``basis``, done
    twice, which restores the orthogonality the first pass loses to rounding."""
    basis_t = ops.transpose(basis)
    for _ in range(2):
        vectors = ops.subtract(vectors, ops.matmul(basis, ops.matmul(basis_t, vectors)))
    return vectors


def orthonormal_columns(a: Tensor) -> Tensor:
    """The Q of ``a = QR`` (``a`` of shape (m, n), m >= n) with R's diagonal positive."""
    # Small matrices (a Dense kernel of a deep model) pay per op, not per flop: no slice
    # of a single block and no concatenation of a single column (the same numbers).
    basis = None
    for start in range(0, a.shape[1], _BLOCK):
        block = a if a.shape[1] <= _BLOCK else a[:, start:start + _BLOCK]
        if basis is not None:
            block = _remove_projection(block, basis)
        columns = []
        for i in range(block.shape[1]):
            v = block[:, i:i + 1]
            if columns:
                v = _remove_projection(v, _side_by_side(columns))
            columns.append(ops.divide(v, ops.sqrt(ops.sum(ops.square(v)))))
        q = _side_by_side(columns)
        basis = q if basis is None else ops.concatenate([basis, q], axis=1)
    return basis


def _side_by_side(columns: list) -> Tensor:
    return columns[0] if len(columns) == 1 else ops.concatenate(columns, axis=1)


@register_builtin
class Orthogonal(RandomInitializer):
    """Initializer that makes a (scaled) matrix with orthonormal rows or columns.

    After Saxe et al., 2014. The shape is read as a matrix of ``prod(shape[:-1])`` rows
    and ``shape[-1]`` columns; the taller side gets orthonormal vectors: columns when there
    are at least as many rows, else rows. The result is multiplied by ``gain``.

    Args:
        gain: The factor applied to the orthogonal matrix. Defaults to ``1.0``.
        seed: An int (every call gives the same values, as in Keras 3), a
            ``lamina.random.SeedGenerator`` (each call draws new values from it) or
            ``None`` (default: each call draws from Lamina's global generator, which
            ``lamina.utils.set_random_seed`` makes reproducible).

    Example:

    >>> q = lamina.initializers.Orthogonal(seed=0)((3, 3)).numpy()
    >>> bool(np.allclose(q @ q.T, np.eye(3), atol=1e-5))
    True
    """

    def __init__(self, gain: float = 1.0, seed=None) -> None:
        self.gain = check_number("Orthogonal", "gain", gain)
        super().__init__(seed)

    def __call__(self, shape, dtype=None) -> Tensor:
        shape, dtype = self._args(shape, dtype)
        if len(shape) < 2:
            raise ShapeError(f"Orthogonal: the shape must have rank >= 2 (it is read as a "
                             f"matrix); received shape {describe_shape(shape)} of rank "
                             f"{len(shape)}")
        rows = 1
        for dim in shape[:-1]:
            rows *= dim
        cols = shape[-1]
        if rows == 0 or cols == 0:
            return ops.zeros(shape, dtype)
        # float16 has too few digits for Gram-Schmidt: work in float32, round at the end.
        work = "float32" if dtype == "float16" else dtype
        a = lamina_random.normal((max(rows, cols), min(rows, cols)), dtype=work,
                                 seed=self.seed)
        q = orthonormal_columns(a)
        if rows < cols:
            q = ops.transpose(q)
        q = ops.reshape(q, shape)
        if self.gain != 1.0:
            q = ops.multiply(q, self.gain)
        return ops.cast(q, dtype) if work != dtype else q

    def get_config(self) -> dict:
        return {**super().get_config(), "gain": self.gain}
