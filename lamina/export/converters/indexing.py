"""Gathers and encodings: ``take`` (Embedding), ``one_hot``, ``repeat``."""
from __future__ import annotations

from ..context import onnx_dtype
from ..registry import register_onnx_converter


@register_onnx_converter("take")
def _take(ctx, node):
    x, indices = node.inputs
    axis = int(node.attrs.get("axis", 0))
    return [ctx.add_node("Gather", [ctx.name_of(x), ctx.name_of(indices)], axis=axis)]


@register_onnx_converter("one_hot")
def _one_hot(ctx, node):
    """Labels outside [0, num_classes) give zeros in Lamina; ONNX's OneHot counts negative
    labels from the end, so those are sent past the end first."""
    x = node.inputs[0]
    n = int(node.attrs["num_classes"])
    labels = ctx.name_of(x)
    zero = ctx.constant(ctx.backend.asarray(0, x.dtype), "zero")
    past = ctx.constant(ctx.backend.asarray(n, x.dtype), "past_end")
    labels = ctx.add_node("Where", [ctx.add_node("Less", [labels, zero]), past, labels])
    labels = ctx.add_node("Cast", [labels], to=onnx_dtype("int64"))
    values = ctx.constant(ctx.backend.asarray([0, 1], "float32"), "off_on")
    axis = int(node.attrs.get("axis", -1))
    y = ctx.add_node("OneHot", [labels, ctx.ints([n]), values], axis=axis)
    out = node.outputs[0].dtype
    return [y if out == "float32" else ctx.add_node("Cast", [y], to=onnx_dtype(out))]


@register_onnx_converter("repeat")
def _repeat(ctx, node):
    """Each element ``repeats`` times along ``axis``: a new axis after it, tiled, merged."""
    x = node.inputs[0]
    repeats, axis = int(node.attrs["repeats"]), int(node.attrs["axis"])
    rank = len(x.shape)
    axis = axis + rank if axis < 0 else axis
    y = ctx.add_node("Unsqueeze", [ctx.name_of(x), ctx.ints([axis + 1])])
    tiles = [1] * (rank + 1)
    tiles[axis + 1] = repeats
    y = ctx.add_node("Tile", [y, ctx.ints(tiles)])
    if None in x.shape[axis + 1:]:
        ctx.fail(node, f"repeat along axis {axis} before axes of unknown size")
    shape = [0] * axis + [-1] + [int(d) for d in x.shape[axis + 1:]]
    return [ctx.add_node("Reshape", [y, ctx.ints(shape)])]
