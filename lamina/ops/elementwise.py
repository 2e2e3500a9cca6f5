"""Base classes for elementwise ops and the broadcasting helper their gradients share."""
from __future__ import annotations

from ..errors import DTypeError
from ..core.op import Op, Spec, broadcast_shapes


class Unary(Op):
    """``y = f(x)`` via ``backend.unary(kernel, x)``; ``kernel`` defaults to ``name``."""
    kernel: str = ""
    result_dtype: str | None = None      # e.g. "bool" for predicates
    writes_out = inplace = True

    def output_spec(self, x):
        return Spec(x.shape, self.result_dtype or x.dtype)

    def forward(self, backend, x, out=None):
        return backend.unary(self.kernel or self.name, x, out=out)


class Binary(Op):
    """``y = f(a, b)`` with numpy broadcasting, via ``backend.binary(kernel, a, b)``."""
    kernel: str = ""
    result_dtype: str | None = None
    writes_out = inplace = True

    def output_spec(self, a, b):
        if a.dtype != b.dtype:
            raise DTypeError(f"{self.name}: arguments 'x1' and 'x2' must have one dtype "
                             f"(lamina.ops.{self.name} promotes them); received {a.dtype} "
                             f"and {b.dtype}")
        shape = broadcast_shapes(self.name, a.shape, b.shape, args=("x1", "x2"))
        return Spec(shape, self.result_dtype or a.dtype)

    def forward(self, backend, a, b, out=None):
        return backend.binary(self.kernel or self.name, a, b, out=out)


def unbroadcast(g, x):
    """Sum ``g`` down to ``x``'s shape: the gradient of numpy broadcasting."""
    if g.shape == x.shape:
        return g
    from .reshaping import reshape            # both build on elementwise.py's ops
    from .reduction import sum as reduce_sum  # (a circle inside ops/)
    lead = len(g.shape) - len(x.shape)
    axes = tuple(range(lead)) + tuple(
        lead + i for i, d in enumerate(x.shape) if d == 1 and g.shape[lead + i] != 1)
    if axes:
        g = reduce_sum(g, axis=axes)
    if g.shape != x.shape:
        g = reshape(g, x.shape)
    return g
