"""Activations: the fused epilogues' names and the activation ops."""
from __future__ import annotations

from ..registry import register_onnx_converter

_SIMPLE = {"relu": "Relu", "sigmoid": "Sigmoid", "tanh": "Tanh"}


def apply_activation(ctx, node, y: str, activation: str) -> str:
    """``y`` through a fused op's ``activation`` ("linear", "relu", "sigmoid", "tanh")."""
    if activation == "linear":
        return y
    if activation not in _SIMPLE:
        ctx.fail(node, f"activation {activation!r} is not one of {['linear', *_SIMPLE]}")
    return ctx.add_node(_SIMPLE[activation], [y])


def _axis(ctx, node, rank: int) -> int:
    axis = node.attrs.get("axis", -1)
    if isinstance(axis, (tuple, list)):
        if len(axis) != 1:
            ctx.fail(node, f"softmax over several axes {axis}")
        axis = axis[0]
    return axis + rank if axis < 0 else axis


@register_onnx_converter("softmax", "log_softmax")
def _softmax(ctx, node):
    x = node.inputs[0]
    op = "Softmax" if node.op.name == "softmax" else "LogSoftmax"
    return [ctx.add_node(op, ctx.inputs(node)[:1], axis=_axis(ctx, node, len(x.shape)))]
