"""Elementwise math: binary and unary ops, comparisons, logic, ``where``, ``clip`` and the
fused ``elementwise_chain`` (a tree of them, written back out as ONNX nodes)."""
from __future__ import annotations

from ..context import onnx_dtype
from ..registry import register_onnx_converter

BINARY = {"add": "Add", "subtract": "Sub", "multiply": "Mul", "divide": "Div",
          "power": "Pow", "maximum": "Max", "minimum": "Min", "equal": "Equal",
          "greater": "Greater", "greater_equal": "GreaterOrEqual", "less": "Less",
          "less_equal": "LessOrEqual", "logical_and": "And", "logical_or": "Or",
          "logical_xor": "Xor"}
UNARY = {"negative": "Neg", "abs": "Abs", "sign": "Sign", "exp": "Exp", "log": "Log",
         "sqrt": "Sqrt", "reciprocal": "Reciprocal", "erf": "Erf", "sin": "Sin",
         "cos": "Cos", "tan": "Tan", "floor": "Floor", "ceil": "Ceil", "round": "Round",
         "logical_not": "Not", "sinh": "Sinh", "cosh": "Cosh", "arcsin": "Asin",
         "arccos": "Acos", "arctan": "Atan", "arcsinh": "Asinh", "arccosh": "Acosh",
         "arctanh": "Atanh", "isnan": "IsNaN", "isinf": "IsInf",
         "relu": "Relu", "sigmoid": "Sigmoid", "tanh": "Tanh"}


def _scalar(ctx, value, dtype: str) -> str:
    return ctx.constant(ctx.backend.asarray(value, dtype), "c")


def unary(ctx, name: str, x: str, dtype: str) -> str:
    """The ONNX form of Lamina's unary step ``name`` (also the chain's steps)."""
    if name in UNARY:
        return ctx.add_node(UNARY[name], [x])
    if name == "square":
        return ctx.add_node("Mul", [x, x])
    if name == "rsqrt":
        return ctx.add_node("Reciprocal", [ctx.add_node("Sqrt", [x])])
    if name == "log1p":
        return ctx.add_node("Log", [ctx.add_node("Add", [x, _scalar(ctx, 1, dtype)])])
    if name == "expm1":
        return ctx.add_node("Sub", [ctx.add_node("Exp", [x]), _scalar(ctx, 1, dtype)])
    return None


def _binary_op(ctx, node):
    a, b = ctx.inputs(node)[:2]
    a, b = _same_dtype(ctx, node, a, b)
    return [ctx.add_node(BINARY[node.op.name], [a, b])]


def _same_dtype(ctx, node, a, b):
    """ONNX's binary ops take one dtype: a constant of another dtype is cast."""
    x, y = node.inputs[:2]
    dx, dy = getattr(x, "dtype", None), getattr(y, "dtype", None)
    if dx and dy and dx != dy:
        if ctx.is_constant(y):
            b = ctx.add_node("Cast", [b], to=onnx_dtype(dx))
        elif ctx.is_constant(x):
            a = ctx.add_node("Cast", [a], to=onnx_dtype(dy))
    return a, b


for _name in BINARY:
    register_onnx_converter(_name, replace=True)(_binary_op)


def _unary_op(ctx, node):
    y = unary(ctx, node.op.name, ctx.name_of(node.inputs[0]), node.inputs[0].dtype)
    return [y]


for _name in [*UNARY, "square", "rsqrt", "log1p", "expm1"]:
    register_onnx_converter(_name, replace=True)(_unary_op)


@register_onnx_converter("not_equal")
def _not_equal(ctx, node):
    a, b = _same_dtype(ctx, node, *ctx.inputs(node)[:2])
    return [ctx.add_node("Not", [ctx.add_node("Equal", [a, b])])]


@register_onnx_converter("where")
def _where(ctx, node):
    return [ctx.add_node("Where", ctx.inputs(node))]


@register_onnx_converter("clip")
def _clip(ctx, node):
    x, low, high = node.inputs
    dtype = x.dtype
    names = [ctx.name_of(x)]
    for bound in (low, high):
        value = ctx.value(bound)
        if value is None:
            ctx.fail(node, "clip bounds that are not constants")
        names.append(ctx.constant(ctx.backend.asarray(value, dtype), "clip"))
    return [ctx.add_node("Clip", names)]


@register_onnx_converter("elementwise_chain")
def _chain(ctx, node):
    dtype = node.attrs.get("dtype", node.outputs[0].dtype)
    inputs = ctx.inputs(node)
    steps = []

    def ref(r):
        kind, v = r
        if kind == "x":
            return inputs[v]
        if kind == "t":
            return steps[v]
        return _scalar(ctx, v, dtype)

    for name, refs in node.attrs["program"]:
        args = [ref(r) for r in refs]
        if len(args) == 2:
            if name not in BINARY:
                ctx.fail(node, f"chain step {name!r}")
            steps.append(ctx.add_node(BINARY[name], args))
        else:
            y = unary(ctx, name, args[0], dtype)
            if y is None:
                ctx.fail(node, f"chain step {name!r}")
            steps.append(y)
    return [steps[-1]]
