"""Activations: the fused epilogues' names and the activation ops."""
from __future__ import annotations

from ..registry import register_onnx_converter
from .reductions import reduce

_SIMPLE = {"relu": "Relu", "sigmoid": "Sigmoid", "tanh": "Tanh"}


def apply_activation(ctx, node, y: str, activation: str) -> str:
    """``y`` through a fused op's ``activation`` ("linear", "relu", "sigmoid", "tanh")."""
    if activation == "linear":
        return y
    if activation not in _SIMPLE:
        ctx.fail(node, f"activation {activation!r} is not one of {['linear', *_SIMPLE]}")
    return ctx.add_node(_SIMPLE[activation], [y])


def _axes(node, rank: int) -> list:
    axis = node.attrs.get("axis", -1)
    axis = list(axis) if isinstance(axis, (tuple, list)) else [axis]
    return sorted(a + rank if a < 0 else a for a in axis)


@register_onnx_converter("softmax", "log_softmax")
def _softmax(ctx, node):
    """One axis: ONNX's Softmax/LogSoftmax; several: x - max, exp, sum over the axes."""
    x = node.inputs[0]
    axes = _axes(node, len(x.shape))
    soft = node.op.name == "softmax"
    if len(axes) == 1:
        return [ctx.add_node("Softmax" if soft else "LogSoftmax", [ctx.name_of(x)],
                             axis=axes[0])]
    shifted = ctx.add_node("Sub", [ctx.name_of(x), reduce(ctx, "ReduceMax", ctx.name_of(x),
                                                          axes, True)])
    e = ctx.add_node("Exp", [shifted])
    total = reduce(ctx, "ReduceSum", e, axes, True)
    if soft:
        return [ctx.add_node("Div", [e, total])]
    return [ctx.add_node("Sub", [shifted, ctx.add_node("Log", [total])])]
