"""Dense linear algebra and FFT kernels, written once against ``self.xp``.

numpy and cupy share ``xp.linalg`` and ``xp.fft``; what cupy lacks (``eig``) runs on the
host and comes back, which the cupy backend says in its override. Every kernel works on
stacks of matrices (the leading axes are a batch). Complex results never leave the backend:
they come back as (real, imaginary) pairs, Keras's convention for FFTs.
"""
from __future__ import annotations


class LinalgKernels:
    """Mixed into Backend: decompositions, solves and FFTs."""

    def cholesky(self, x):
        return self.xp.linalg.cholesky(x)

    def solve(self, a, b):
        # b is a stack of matrices with a's batch shape (the ops broadcast and reshape)
        return self.xp.linalg.solve(a, b)

    def solve_triangular(self, a, b, lower: bool):
        xp = self.xp
        mask = xp.tril(xp.ones(a.shape[-2:], dtype=bool)) if lower else \
            xp.triu(xp.ones(a.shape[-2:], dtype=bool))
        return xp.linalg.solve(xp.where(mask, a, xp.zeros((), a.dtype)), b)

    def triangle(self, x, lower: bool, k: int):
        """The lower (``tril``) or upper (``triu``) part of a stack of matrices."""
        return self.xp.tril(x, k) if lower else self.xp.triu(x, k)

    def inv(self, x):
        return self.xp.linalg.inv(x)

    def det(self, x):
        return self.xp.linalg.det(x)

    def slogdet(self, x):
        sign, logabs = self.xp.linalg.slogdet(x)
        return sign.astype(x.dtype), logabs.astype(x.dtype)

    def eigh(self, x):
        w, v = self.xp.linalg.eigh(x)
        return w, v

    def eig(self, x):
        w, v = self.xp.linalg.eig(x)
        return self._split_complex(w, x.dtype) + self._split_complex(v, x.dtype)

    def svd(self, x, full_matrices: bool, compute_uv: bool):
        if not compute_uv:
            return self.xp.linalg.svd(x, compute_uv=False)
        return tuple(self.xp.linalg.svd(x, full_matrices=full_matrices))

    def qr(self, x, mode: str):
        return tuple(self.xp.linalg.qr(x, mode=mode))

    def pinv(self, x, rcond):
        if rcond is None:
            return self.xp.linalg.pinv(x)
        return self.xp.linalg.pinv(x, rcond=rcond)

    def matrix_rank(self, x, tol):
        return self.xp.linalg.matrix_rank(x, tol=tol).astype("int32")

    def lu_factor(self, x):
        """LU with partial pivoting as LAPACK's getrf (scipy's ``lu_factor``): the packed
        factors and 0-based row interchanges, int32. One column at a time over the batch."""
        xp = self.xp
        lu = xp.array(x, copy=True)
        m, n = lu.shape[-2:]
        k = min(m, n)
        batch = lu.shape[:-2]
        lu = lu.reshape((-1, m, n))
        piv = xp.zeros((lu.shape[0], k), dtype="int32")
        rows = xp.arange(lu.shape[0])
        for j in range(k):
            p = j + xp.argmax(xp.abs(lu[:, j:, j]), axis=1)
            piv[:, j] = p
            top, chosen = lu[rows, j].copy(), lu[rows, p].copy()
            lu[rows, j], lu[rows, p] = chosen, top
            pivot = lu[:, j, j]
            safe = xp.where(pivot == 0, xp.ones((), lu.dtype), pivot)
            lu[:, j + 1:, j] /= safe[:, None]
            lu[:, j + 1:, j + 1:] -= lu[:, j + 1:, j:j + 1] * lu[:, j:j + 1, j + 1:]
        return lu.reshape(batch + (m, n)), piv.reshape(batch + (k,))

    # ------------------------------------------------------------------ FFT
    def fft(self, real, imag, kind: str):
        """``kind`` is fft, ifft (last axis), fft2 or ifft2 (last two axes)."""
        xp = self.xp
        z = real + 1j * imag
        axes = (-2, -1)
        result = {"fft": lambda: xp.fft.fft(z, axis=-1),
                  "ifft": lambda: xp.fft.ifft(z, axis=-1),
                  "fft2": lambda: xp.fft.fft2(z, axes=axes),
                  "ifft2": lambda: xp.fft.ifft2(z, axes=axes)}[kind]()
        return self._split_complex(result, real.dtype)

    def _split_complex(self, z, dtype):
        xp = self.xp
        return (xp.ascontiguousarray(z.real).astype(dtype, copy=False),
                xp.ascontiguousarray(z.imag).astype(dtype, copy=False))
