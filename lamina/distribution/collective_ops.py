"""Collective ops: the gradient exchange of data parallelism as graph nodes.

``allreduce_start(x)`` copies ``x`` into its output buffer and starts summing that buffer
across the processes of the MPI world in place (a non-blocking allreduce: MPI Iallreduce,
or NCCL on GPUs); ``allreduce_wait(y)`` waits until the sum for ``y`` (the output of an
``allreduce_start``) has arrived and returns it. Between the two the process goes on
computing, so in a traced train step the exchange of a bucket of gradients overlaps the
rest of the backward pass (``lamina.graph.passes.schedule_collectives`` places each start
right after the bucket's last gradient). In a one-process world both are the identity.

Both are stateful (never merged, folded or removed while something reads them) and not
differentiable. They are not public ``lamina.ops`` functions: ``lamina.distribution``
calls them.
"""
from __future__ import annotations

from .strategies import data_parallel
from .world import world
from ..ops.core import cast
from ..ops.math import divide, multiply
from ..core.op import Op, Spec, register_op

__all__: list = []


def _world():
    return world()


@register_op
class AllreduceStart(Op):
    name = "allreduce_start"
    differentiable = False
    stateful = True
    writes_out = True

    def output_spec(self, x, bucket=0):
        return Spec(tuple(x.shape), x.dtype)

    def forward(self, backend, x, out=None, bucket=0):
        if out is None:
            out = backend.empty(tuple(x.shape), str(x.dtype))
        backend.copy_(out, x)
        _world().iallreduce_(out)
        return out


@register_op
class AllreduceWait(Op):
    name = "allreduce_wait"
    differentiable = False
    stateful = True

    def output_spec(self, x):
        return Spec(tuple(x.shape), x.dtype)

    def forward(self, backend, x, out=None):
        _world().wait_(x)
        if out is None:
            return x
        backend.copy_(out, x)
        return out


def allreduce_start(x, bucket=0):
    """Start the sum of ``x`` over all processes; pass the result to ``allreduce_wait``.
    ``bucket``: the exchange's index in the step (the scheduling pass issues lower first)."""
    return AllreduceStart(x, bucket=int(bucket))


def allreduce_wait(x):
    """The finished sum started by ``allreduce_start`` (its output ``x``)."""
    return AllreduceWait(x)


@register_op
class AllreduceSum(Op):
    """The sum of ``x`` over all processes, at once (a blocking allreduce), differentiable:
    the statistics of a synchronized BatchNormalization. Each process's loss is its share
    of the global mean loss, so the gradient is the share-weighted sum of the processes'
    gradients over this process's share: ``allreduce_sum(g * share) / share``."""
    name = "allreduce_sum"
    writes_out = True

    def output_spec(self, x):
        return Spec(tuple(x.shape), x.dtype)

    def forward(self, backend, x, out=None):
        if out is None:
            out = backend.empty(tuple(x.shape), str(x.dtype))
        backend.copy_(out, x)
        world = _world()
        world.iallreduce_(out)
        world.wait_(out)
        return out

    def gradient(self, ctx, g):
        dist = data_parallel()
        if dist is None:
            return (allreduce_sum(g),)
        share = cast(dist.share_variable(), g.dtype)
        return (divide(allreduce_sum(multiply(g, share)), share),)


def allreduce_sum(x):
    """``x`` summed over all processes (blocking; differentiable)."""
    return AllreduceSum(x)
