"""Reductions over axes (sum, mean, max, min, prod, any, all) and argmax/argmin."""
from __future__ import annotations

from ..context import onnx_dtype
from ..registry import register_onnx_converter

_REDUCE = {"sum": "ReduceSum", "mean": "ReduceMean", "max": "ReduceMax", "min": "ReduceMin",
           "prod": "ReduceProd"}
_AXES_AS_INPUT = {"ReduceSum": 13, "ReduceMean": 18, "ReduceMax": 18, "ReduceMin": 18,
                  "ReduceProd": 18}


def _axes(node, rank: int) -> list:
    axis = node.attrs.get("axis")
    if axis is None:
        return list(range(rank))
    axis = axis if isinstance(axis, (tuple, list)) else (axis,)
    return sorted(a + rank if a < 0 else a for a in axis)


def reduce(ctx, op: str, x: str, axes: list, keepdims: bool) -> str:
    if ctx.opset >= _AXES_AS_INPUT[op]:
        return ctx.add_node(op, [x, ctx.ints(axes)], keepdims=int(keepdims))
    return ctx.add_node(op, [x], axes=axes, keepdims=int(keepdims))


@register_onnx_converter(*_REDUCE)
def _reduce(ctx, node):
    x = node.inputs[0]
    return [reduce(ctx, _REDUCE[node.op.name], ctx.name_of(x), _axes(node, len(x.shape)),
                   bool(node.attrs.get("keepdims", False)))]


@register_onnx_converter("any", "all")
def _any_all(ctx, node):
    """any: max of the booleans as int32; all: min."""
    x = node.inputs[0]
    as_int = ctx.add_node("Cast", [ctx.name_of(x)], to=onnx_dtype("int32"))
    op = "ReduceMax" if node.op.name == "any" else "ReduceMin"
    y = reduce(ctx, op, as_int, _axes(node, len(x.shape)), bool(node.attrs.get("keepdims")))
    return [ctx.add_node("Cast", [y], to=onnx_dtype("bool"))]


@register_onnx_converter("argmax", "argmin")
def _arg(ctx, node):
    x = node.inputs[0]
    axis = node.attrs.get("axis")
    name = ctx.name_of(x)
    if axis is None:
        name, axis = ctx.add_node("Reshape", [name, ctx.ints([-1])]), 0
    axis = axis + len(x.shape) if axis < 0 else axis
    op = "ArgMax" if node.op.name == "argmax" else "ArgMin"
    y = ctx.add_node(op, [name], axis=int(axis), keepdims=int(bool(node.attrs.get("keepdims"))),
                     select_last_index=0)
    out = node.outputs[0].dtype
    return [y if out == "int64" else ctx.add_node("Cast", [y], to=onnx_dtype(out))]
