"""The op that marks where rematerialization recomputes a function (``lamina.remat``).

``recompute_barrier(x, *after)`` is ``x``, with ``after`` (the upstream gradients of the
remat'd function) as extra inputs that it ignores. Feeding the recomputation through it
gives each recomputed node an input that no forward node has, so common-subexpression
elimination cannot merge the recomputation back into the forward pass (which would keep
the activations alive after all), and makes the recomputation wait for the backward pass
to reach it. Eagerly it is a no-op that returns ``x``.
"""
from __future__ import annotations

from ..core.op import Op, Spec, register_op

__all__: list = []


@register_op
class RecomputeBarrier(Op):
    name = "recompute_barrier"

    def output_spec(self, x, *after):
        return Spec(tuple(x.shape), x.dtype)

    def forward(self, backend, x, *after, out=None):
        return x

    def gradient(self, ctx, g):
        return (g,) + (None,) * (len(ctx.inputs) - 1)


def recompute_barrier(x, *after):
    """``x``, ordered after ``after`` and distinct from every other value of a graph."""
    return RecomputeBarrier(x, *after)
