"""Shape inference on a traced graph for concrete input shapes.

A batch-polymorphic graph is traced once with ``None`` for the batch size; before it runs a
batch of a new size, this walk re-runs each node's ``op.output_spec`` on the concrete shapes
of its inputs, so the memory plan can size every buffer (``function.py`` caches one plan per
batch size). Nodes whose traced outputs are fully known and whose inputs are unchanged keep
their traced shapes without calling the op.

The walk is also the check that the graph is valid for that size: an op that raises, or a
result that leaves a size unknown or contradicts a size fixed while tracing (a batch size
baked into an attribute), makes it raise :class:`ShapeMismatch`, and the caller traces the
function again at the concrete size.
"""
from __future__ import annotations

from ..core.tensor import TensorBase
from ..core.symbolic import SymbolicTensor


class ShapeMismatch(Exception):
    """The traced graph cannot run inputs of these shapes without retracing."""


def _fits(traced: tuple, concrete: tuple) -> bool:
    return len(traced) == len(concrete) and \
        all(t is None or t == c for t, c in zip(traced, concrete)) and \
        all(isinstance(c, int) for c in concrete)


def concrete_shapes(graph, input_shapes) -> dict:
    """``id(value) -> shape`` for every graph input and node output whose traced shape has
    unknown sizes, given the concrete shapes of ``graph.inputs``."""
    shapes: dict[int, tuple] = {}
    for x, shape in zip(graph.inputs, input_shapes):
        shape = tuple(shape)
        if not _fits(tuple(x.shape), shape):
            raise ShapeMismatch(f"input {x.name}: traced for {x.shape}, received {shape}")
        if shape != tuple(x.shape):
            shapes[id(x)] = shape
    for node in graph.nodes:
        changed = any(id(x) in shapes for x in node.inputs if isinstance(x, TensorBase))
        if not changed and all(None not in tuple(o.shape) for o in node.outputs):
            continue
        stand_ins = [SymbolicTensor(shapes[id(x)], x.dtype)
                     if isinstance(x, TensorBase) and id(x) in shapes else x
                     for x in node.inputs]
        try:
            spec = node.op.output_spec(*stand_ins, **node.attrs)
        except Exception as error:
            raise ShapeMismatch(str(error)) from error
        specs = spec if isinstance(spec, tuple) and not hasattr(spec, "dtype") else (spec,)
        for out, s in zip(node.outputs, specs):
            shape = tuple(s.shape)
            if not _fits(tuple(out.shape), shape):
                raise ShapeMismatch(f"{node.op.name}: traced output {out.shape}, "
                                    f"{shape} for these inputs")
            if shape != tuple(out.shape):
                shapes[id(out)] = shape
    return shapes


def batch_size_of(tensors) -> int | None:
    """The leading size every tensor shares (each of rank >= 1), or None."""
    sizes = {tuple(t.shape)[0] if len(t.shape) else None for t in tensors}
    if len(sizes) != 1:
        return None
    (size,) = sizes
    return size


def relax_batch(shape) -> tuple:
    """``shape`` with the batch size unknown."""
    return (None, *tuple(shape)[1:])
