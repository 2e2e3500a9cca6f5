"""Convolutions and pooling (Lamina's NHWC images, HWIO kernels) as ONNX's NCHW ``Conv`` /
``MaxPool`` / ``AveragePool`` between two transposes. Padding 'same' becomes explicit pads
(the extra row/column at the end, as Keras pads) where the image size is known, else
``auto_pad="SAME_UPPER"``."""
from __future__ import annotations

from ...ops.conv_arguments import resolve_pads
from ..registry import register_onnx_converter
from .activations import apply_activation

TO_NCHW, TO_NHWC = [0, 3, 1, 2], [0, 2, 3, 1]


def _padding(padding, in_hw, window, strides, dilation) -> dict:
    """Explicit ONNX pads where the spatial sizes are known (onnxruntime has no dilated
    SAME_UPPER); ``auto_pad`` for unknown sizes."""
    if padding == "valid":
        return {"auto_pad": "VALID"}
    if padding == "same" and None in tuple(in_hw):
        return {"auto_pad": "SAME_UPPER"}
    pairs = resolve_pads(padding, tuple(in_hw), tuple(window), tuple(strides),
                         tuple(dilation))
    return {"pads": [int(p[0]) for p in pairs] + [int(p[1]) for p in pairs]}


def _layouts(rank: int) -> tuple:
    """Transposes from channels-last to ONNX's channels-first and back, for ``rank``
    spatial axes, and the kernel's (spatial..., I, O) -> (O, I, spatial...)."""
    return ([0, rank + 1, *range(1, rank + 1)], [0, *range(2, rank + 2), 1],
            [rank + 1, rank, *range(rank)])


def _conv(ctx, node, bias: bool):
    x, w = node.inputs[:2]
    rank = len(x.shape) - 2
    to_first, to_last, kernel_perm = _layouts(rank)
    kernel = ctx.value(w)
    a = node.attrs
    if kernel is not None:                    # HWIO -> OIHW, written as a constant
        w_name = ctx.constant(kernel.transpose(*kernel_perm).copy(), "kernel")
    else:
        w_name = ctx.add_node("Transpose", [ctx.name_of(w)], perm=kernel_perm)
    inputs = [ctx.add_node("Transpose", [ctx.name_of(x)], perm=to_first), w_name]
    if bias and len(node.inputs) > 2:
        inputs.append(ctx.name_of(node.inputs[2]))
    y = ctx.add_node("Conv", inputs, kernel_shape=list(w.shape[:rank]),
                     strides=list(a["strides"]), dilations=list(a["dilation"]),
                     group=int(a.get("groups", 1)),
                     **_padding(a["padding"], x.shape[1:1 + rank], w.shape[:rank],
                                a["strides"], a["dilation"]))
    y = ctx.add_node("Transpose", [y], perm=to_last)
    if bias:
        if a.get("save_mask"):
            ctx.fail(node, "save_mask=True is a training-only output")
        y = apply_activation(ctx, node, y, a.get("activation", "linear"))
    return [y]


@register_onnx_converter("conv2d", "conv3d")
def _conv2d(ctx, node):
    return _conv(ctx, node, bias=False)


@register_onnx_converter("conv2d_bias_act")
def _conv2d_bias_act(ctx, node):
    return _conv(ctx, node, bias=True)


@register_onnx_converter("max_pool2d", "avg_pool2d")
def _pool(ctx, node):
    a = node.attrs
    op = "MaxPool" if node.op.name == "max_pool2d" else "AveragePool"
    image = node.inputs[0]
    x = ctx.add_node("Transpose", [ctx.name_of(image)], perm=TO_NCHW)
    y = ctx.add_node(op, [x], kernel_shape=list(a["pool_size"]), strides=list(a["strides"]),
                     **_padding(a["padding"], image.shape[1:3], a["pool_size"], a["strides"],
                                (1, 1)))
    return [ctx.add_node("Transpose", [y], perm=TO_NHWC)]


@register_onnx_converter("conv2d_backprop_input", "conv3d_backprop_input")
def _conv_transpose(ctx, node):
    """A transposed convolution: ONNX ``ConvTranspose`` with the explicit pads of the
    forward convolution and the output padding that gives ``input_shape``."""
    dy, w = node.inputs[:2]
    rank = len(dy.shape) - 2
    to_first, to_last, kernel_perm = _layouts(rank)
    a = node.attrs
    target = tuple(a["input_shape"])[1:1 + rank]
    kernel = ctx.value(w)
    if kernel is None or None in target or None in tuple(dy.shape[1:1 + rank]):
        ctx.fail(node, "a transposed convolution needs a constant kernel and known spatial "
                       "sizes")
    strides, dilation = tuple(a["strides"]), tuple(a["dilation"])
    pads = resolve_pads(a["padding"], target, w.shape[:rank], strides, dilation)
    extra = [t - (s * (i - 1) + (k - 1) * d + 1 - p0 - p1)
             for t, i, k, s, d, (p0, p1) in zip(target, dy.shape[1:1 + rank], w.shape[:rank],
                                                 strides, dilation, pads)]
    x = ctx.add_node("Transpose", [ctx.name_of(dy)], perm=to_first)
    y = ctx.add_node("ConvTranspose",
                     [x, ctx.constant(kernel.transpose(*kernel_perm).copy(), "kernel")],
                     kernel_shape=list(w.shape[:rank]), strides=list(strides),
                     dilations=list(dilation), group=int(a.get("groups", 1)),
                     pads=[int(p[0]) for p in pads] + [int(p[1]) for p in pads],
                     output_padding=[int(e) for e in extra])
    return [ctx.add_node("Transpose", [y], perm=to_last)]
