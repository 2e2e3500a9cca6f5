"""int8 products (``model.quantize("int8")``): ``int8_matmul`` as ONNX ``MatMulInteger``,
so onnxruntime multiplies the int8 inputs by the int8 kernels in int8 with int32 sums --
the exact integers Lamina computes. The abs-max input quantization around it (ReduceMax,
Div, Round, Clip, Cast) and the rescaling are ordinary ops with converters of their own,
so the ONNX model's numbers are Lamina's."""
from __future__ import annotations

from ..context import onnx_dtype
from ..registry import register_onnx_converter


@register_onnx_converter("int8_matmul")
def _int8_matmul(ctx, node):
    # onnxruntime's fast MatMulInteger kernels take uint8 rows: a + 128 as uint8 with the
    # zero point 128 is the same product, and the int8 path is ~15x slower at batch 1.
    a, b = ctx.inputs(node)
    wide = ctx.add_node("Cast", [a], to=onnx_dtype("int32"))
    shifted = ctx.add_node("Add", [wide, ctx.constant(128, dtype="int32")])
    rows = ctx.add_node("Cast", [shifted], to=onnx_dtype("uint8"))
    zero = ctx.constant(128, hint="zero_point", dtype="uint8")
    return [ctx.add_node("MatMulInteger", [rows, b, zero])]


@register_onnx_converter("custom_gradient")
def _custom_gradient(ctx, node):
    # At inference a custom gradient (the int8 layers' route for the inputs' gradient) only
    # passes its function's outputs on: they are its last inputs.
    # Only those are named: naming the others would write the kernels a second time.
    outputs = node.inputs[len(node.inputs) - len(node.outputs):]
    return [ctx.add_node("Identity", [ctx.name_of(value)]) for value in outputs]
