"""Less common elementwise and scan ops written with ONNX primitives: cumsum, exp2, erfc,
isfinite, trunc, hypot, logaddexp, mod / fmod / floor_divide (Python's floor semantics),
take_along_axis."""
from __future__ import annotations

from ...dtypes import is_float
from ..registry import register_onnx_converter
from .elementwise import _same_dtype


def _const(ctx, value, dtype: str) -> str:
    return ctx.constant(ctx.backend.asarray(value, dtype), "c")


@register_onnx_converter("cumsum")
def _cumsum(ctx, node):
    x = node.inputs[0]
    axis = int(node.attrs.get("axis", 0))
    axis = axis + len(x.shape) if axis < 0 else axis
    return [ctx.add_node("CumSum", [ctx.name_of(x), ctx.constant(
        ctx.backend.asarray(axis, "int64"), "axis")])]


@register_onnx_converter("exp2")
def _exp2(ctx, node):
    x = node.inputs[0]
    return [ctx.add_node("Pow", [_const(ctx, 2, x.dtype), ctx.name_of(x)])]


@register_onnx_converter("erfc")
def _erfc(ctx, node):
    x = node.inputs[0]
    return [ctx.add_node("Sub", [_const(ctx, 1, x.dtype),
                                 ctx.add_node("Erf", [ctx.name_of(x)])])]


@register_onnx_converter("isfinite")
def _isfinite(ctx, node):
    x = ctx.name_of(node.inputs[0])
    if not is_float(node.inputs[0].dtype):              # integers are always finite
        return [ctx.add_node("Equal", [x, x])]
    bad = ctx.add_node("Or", [ctx.add_node("IsNaN", [x]), ctx.add_node("IsInf", [x])])
    return [ctx.add_node("Not", [bad])]


@register_onnx_converter("trunc")
def _trunc(ctx, node):
    x = node.inputs[0]
    name = ctx.name_of(x)
    if not is_float(x.dtype):
        return [ctx.add_node("Identity", [name])]
    negative = ctx.add_node("Less", [name, _const(ctx, 0, x.dtype)])
    return [ctx.add_node("Where", [negative, ctx.add_node("Ceil", [name]),
                                   ctx.add_node("Floor", [name])])]


@register_onnx_converter("hypot")
def _hypot(ctx, node):
    a, b = _same_dtype(ctx, node, *ctx.inputs(node))
    total = ctx.add_node("Add", [ctx.add_node("Mul", [a, a]), ctx.add_node("Mul", [b, b])])
    return [ctx.add_node("Sqrt", [total])]


@register_onnx_converter("logaddexp")
def _logaddexp(ctx, node):
    """max(a, b) + log1p(exp(-|a - b|)), stable for large inputs."""
    a, b = _same_dtype(ctx, node, *ctx.inputs(node))
    dtype = node.outputs[0].dtype
    gap = ctx.add_node("Neg", [ctx.add_node("Abs", [ctx.add_node("Sub", [a, b])])])
    tail = ctx.add_node("Log", [ctx.add_node("Add", [_const(ctx, 1, dtype),
                                                     ctx.add_node("Exp", [gap])])])
    return [ctx.add_node("Add", [ctx.add_node("Max", [a, b]), tail])]


def _python_mod(ctx, node, a: str, b: str) -> str:
    """``a - floor(a / b) * b`` for floats; ONNX's Mod (fmod=0: the sign of ``b``) for ints."""
    if not is_float(node.outputs[0].dtype):
        return ctx.add_node("Mod", [a, b], fmod=0)
    quotient = ctx.add_node("Floor", [ctx.add_node("Div", [a, b])])
    return ctx.add_node("Sub", [a, ctx.add_node("Mul", [quotient, b])])


@register_onnx_converter("mod")
def _mod(ctx, node):
    a, b = _same_dtype(ctx, node, *ctx.inputs(node))
    return [_python_mod(ctx, node, a, b)]


@register_onnx_converter("fmod")
def _fmod(ctx, node):
    a, b = _same_dtype(ctx, node, *ctx.inputs(node))
    return [ctx.add_node("Mod", [a, b], fmod=1)]


@register_onnx_converter("floor_divide")
def _floor_divide(ctx, node):
    a, b = _same_dtype(ctx, node, *ctx.inputs(node))
    if is_float(node.outputs[0].dtype):
        return [ctx.add_node("Floor", [ctx.add_node("Div", [a, b])])]
    exact = ctx.add_node("Sub", [a, _python_mod(ctx, node, a, b)])   # a - a mod b, exact
    return [ctx.add_node("Div", [exact, b])]


@register_onnx_converter("take_along_axis")
def _take_along_axis(ctx, node):
    x, indices = node.inputs
    axis = int(node.attrs.get("axis", 0))
    axis = axis + len(x.shape) if axis < 0 else axis
    # lamina.ops.take_along_axis broadcasts the indices first: the shapes agree off the axis
    size = x.shape[axis]
    idx = ctx.name_of(indices)
    if size is not None:                      # negative indices count from the end
        negative = ctx.add_node("Less", [idx, _const(ctx, 0, indices.dtype)])
        idx = ctx.add_node("Where", [negative, ctx.add_node(
            "Add", [idx, _const(ctx, size, indices.dtype)]), idx])
    return [ctx.add_node("GatherElements", [ctx.name_of(x), idx], axis=axis)]
