"""Random draws by global row position: the draw of a data-parallel process's rows.

``random_global_rows(counter, offset, [like], base=..., shape=..., key=..., ...)`` gives
rows ``[offset, offset + shape[0])`` of the draw ``base`` (a random op's name:
``random_bernoulli``, ``random_normal``, ...) would make for ``offset + shape[0]`` rows.
Counter-based draws are prefix-stable (a draw of n values is the first n values of any
larger draw), so a process holding rows ``[lo, hi)`` of a global batch draws the same mask
for them as one process drawing for the whole batch. ``offset`` is an int64 scalar input
(a Variable that ``lamina.distribution`` sets before each step); the process draws the
rows before its own too, a cost of up to the global batch's draw.

Stateful and not differentiable, like the random ops. No public function:
``lamina.ops.random``'s draws route through it (``draw_by_rows``) while a data-parallel
step runs (``rows_of_step``, entered by ``lamina.distribution``), so Dropout,
GaussianNoise and the others give each row the values one process would give it.
"""
from __future__ import annotations

import contextlib

from ..errors import DTypeError, ShapeError, describe_shape
from ..core.op import OP_REGISTRY, Op, register_op

__all__: list = []


@register_op
class RandomGlobalRows(Op):
    name = "random_global_rows"
    differentiable = False
    stateful = True
    writes_out = True

    def output_spec(self, counter, offset, *like, base, **attrs):
        if offset.dtype != "int64" or offset.shape != ():
            raise DTypeError(f"{self.name}: argument 'offset' must be an int64 scalar; "
                             f"received {offset.dtype} of shape "
                             f"{describe_shape(offset.shape)}")
        spec = OP_REGISTRY[base].output_spec(counter, *like, **attrs)
        if not spec.shape:
            raise ShapeError(f"{self.name}: a draw by rows needs at least one dimension; "
                             f"received shape ()")
        return spec

    def forward(self, backend, counter, offset, *like, out=None, base, shape, dtype, key,
                **attrs):
        if like:
            shape = tuple(t if d is None else d for d, t in zip(shape, like[0].shape))
        lo, rows = int(backend.to_host(offset)), shape[0]
        whole = OP_REGISTRY[base].draw(backend, (lo + rows, *shape[1:]), dtype, key,
                                       int(backend.to_host(counter)), **attrs)
        value = whole[lo:lo + rows]
        if out is None:
            out = backend.empty(tuple(value.shape), dtype)
        backend.copy_(out, value)
        return out


def random_global_rows(counter, offset, *like, base, shape, dtype, key, **attrs):
    return RandomGlobalRows(counter, offset, *like, base=base, shape=shape, dtype=dtype,
                            key=key, **attrs)


# (offset Variable, local rows) while a data-parallel step runs on this process.
_ACTIVE = None


@contextlib.contextmanager
def rows_of_step(offset_variable, rows: int):
    """While open, a draw over the batch's rows takes rows ``[offset, offset + rows)`` of
    the global draw (``offset_variable`` is set per step by lamina.distribution)."""
    global _ACTIVE
    previous, _ACTIVE = _ACTIVE, (offset_variable, int(rows))
    try:
        yield
    finally:
        _ACTIVE = previous


def in_data_parallel_step() -> bool:
    return _ACTIVE is not None


def draw_by_rows(op, inputs, shape, key, attrs):
    """The draw as rows of the global one, or None where no data-parallel step runs or the
    draw is not over the batch."""
    if _ACTIVE is None or not shape:
        return None
    offset, rows = _ACTIVE
    if shape[0] is not None and shape[0] != rows:
        return None
    counter, *like = inputs
    return random_global_rows(counter, offset, *like, base=op.name, shape=tuple(shape),
                              key=key, **attrs)
