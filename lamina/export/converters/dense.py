"""Matrix products: ``matmul`` and the fused ``dense_bias_act`` (Dense + bias + activation)."""
from __future__ import annotations

from ..registry import register_onnx_converter
from .activations import apply_activation


@register_onnx_converter("matmul")
def _matmul(ctx, node):
    return [ctx.add_node("MatMul", ctx.inputs(node))]


@register_onnx_converter("dense_bias_act")
def _dense_bias_act(ctx, node):
    x, kernel = node.inputs[:2]
    names = ctx.inputs(node)
    if node.attrs.get("save_mask"):
        ctx.fail(node, "save_mask=True is a training-only output")
    if len(x.shape) == 2 and len(kernel.shape) == 2 and len(names) == 3:
        y = ctx.add_node("Gemm", names)
    else:
        y = ctx.add_node("MatMul", names[:2])
        if len(names) == 3:
            y = ctx.add_node("Add", [y, names[2]])
    return [apply_activation(ctx, node, y, node.attrs.get("activation", "linear"))]
