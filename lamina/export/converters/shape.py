"""Movement ops: reshape, transpose, axes added/removed, concatenation, slicing, tiling,
padding, and the ops that only pass a value on (reads, copies, gradient stops)."""
from __future__ import annotations

from ..context import onnx_dtype
from ..registry import register_onnx_converter

INT64_MAX = 2 ** 63 - 1
INT64_MIN = -2 ** 63


@register_onnx_converter("read_value", "copy", "stop_gradient", "recompute_barrier")
def _identity(ctx, node):
    return [ctx.add_node("Identity", ctx.inputs(node)[:1])]


def _positive(axis: int, rank: int) -> int:
    return axis + rank if axis < 0 else axis


def _axes(value, rank: int) -> list:
    values = value if isinstance(value, (tuple, list)) else (value,)
    return [_positive(int(a), rank) for a in values]


@register_onnx_converter("reshape")
def _reshape(ctx, node):
    x, = node.inputs[:1]
    target = list(node.attrs["shape"])
    dims = [-1 if d is None else int(d) for d in target]
    if dims.count(-1) > 1:         # the input's leading unknown sizes, copied (0) as they are
        for i, d in enumerate(target):
            if d is not None or i >= len(x.shape) or x.shape[i] is not None or \
                    dims.count(-1) == 1:
                break
            dims[i] = 0
    if dims.count(-1) > 1:
        ctx.fail(node, f"reshape to {tuple(target)} has several unknown sizes that are not "
                       f"the input's leading ones")
    return [ctx.add_node("Reshape", [ctx.name_of(x), ctx.ints(dims)])]


@register_onnx_converter("transpose")
def _transpose(ctx, node):
    return [ctx.add_node("Transpose", ctx.inputs(node)[:1], perm=list(node.attrs["axes"]))]


@register_onnx_converter("expand_dims")
def _expand_dims(ctx, node):
    rank = len(node.outputs[0].shape)
    return [ctx.add_node("Unsqueeze", [ctx.name_of(node.inputs[0]),
                                       ctx.ints(_axes(node.attrs["axis"], rank))])]


@register_onnx_converter("squeeze")
def _squeeze(ctx, node):
    x = node.inputs[0]
    axis = node.attrs.get("axis")
    axes = [i for i, d in enumerate(x.shape) if d == 1] if axis is None else \
        _axes(axis, len(x.shape))
    return [ctx.add_node("Squeeze", [ctx.name_of(x), ctx.ints(axes)])]


@register_onnx_converter("concatenate")
def _concatenate(ctx, node):
    rank = len(node.outputs[0].shape)
    return [ctx.add_node("Concat", ctx.inputs(node),
                         axis=_positive(int(node.attrs.get("axis", 0)), rank))]


@register_onnx_converter("split")
def _split(ctx, node):
    x = node.inputs[0]
    axis = _positive(int(node.attrs["axis"]), len(x.shape))
    sizes = [o.shape[axis] for o in node.outputs]
    if any(s is None for s in sizes):
        ctx.fail(node, "split along an axis of unknown size")
    return list(ctx.add_node("Split", [ctx.name_of(x), ctx.ints(sizes)],
                             outputs=[ctx.fresh("split") for _ in node.outputs], axis=axis))


@register_onnx_converter("getitem")
def _getitem(ctx, node):
    x = node.inputs[0]
    starts, ends, axes, steps, squeeze, unsqueeze = [], [], [], [], [], []
    axis, out_axis = 0, 0
    for k in node.attrs["key"]:
        if k is None:
            unsqueeze.append(out_axis)
            out_axis += 1
            continue
        if isinstance(k, tuple):
            start, stop, step = (tuple(k) + (None, None, None))[:3]
            step = 1 if step is None else int(step)
            if start is None:
                start = 0 if step > 0 else INT64_MAX
            if stop is None:
                stop = INT64_MAX if step > 0 else INT64_MIN
            if (start, stop, step) != (0, INT64_MAX, 1):
                starts.append(start), ends.append(stop), axes.append(axis), steps.append(step)
            out_axis += 1
        elif isinstance(k, int):
            starts.append(k), ends.append(k + 1 if k != -1 else INT64_MAX)
            axes.append(axis), steps.append(1)
            squeeze.append(axis)
        else:
            ctx.fail(node, f"index {k!r} in key {node.attrs['key']!r}")
        axis += 1
    y = ctx.name_of(x)
    if axes:
        y = ctx.add_node("Slice", [y, ctx.ints(starts), ctx.ints(ends), ctx.ints(axes),
                                   ctx.ints(steps)])
    if squeeze:
        y = ctx.add_node("Squeeze", [y, ctx.ints(squeeze)])
    if unsqueeze:
        y = ctx.add_node("Unsqueeze", [y, ctx.ints(unsqueeze)])
    if y == ctx.name_of(x):
        y = ctx.add_node("Identity", [y])
    return [y]


@register_onnx_converter("tile")
def _tile(ctx, node):
    return [ctx.add_node("Tile", [ctx.name_of(node.inputs[0]),
                                  ctx.ints(node.attrs["repeats"])])]


@register_onnx_converter("broadcast_to")
def _broadcast_to(ctx, node):
    x = ctx.name_of(node.inputs[0])
    if len(node.inputs) > 1:         # sizes None come from the 'like' input
        shape = ctx.add_node("Shape", [ctx.name_of(node.inputs[1])])
    else:
        if None in node.attrs["shape"]:
            ctx.fail(node, f"broadcast to {node.attrs['shape']} with unknown sizes")
        shape = ctx.ints(node.attrs["shape"])
    return [ctx.add_node("Expand", [x, shape])]


@register_onnx_converter("fill_like")
def _fill_like(ctx, node):
    out = node.outputs[0]
    shape = ctx.add_node("Shape", [ctx.name_of(node.inputs[0])])
    value = ctx.backend.asarray([node.attrs["value"]], out.dtype)
    from onnx import numpy_helper
    return [ctx.add_node("ConstantOfShape", [shape],
                         value=numpy_helper.from_array(value, "value"))]


@register_onnx_converter("pad")
def _pad(ctx, node):
    pads = node.attrs["pads"]
    befores, afters = [int(a) for a, _ in pads], [int(b) for _, b in pads]
    value = ctx.constant(ctx.backend.asarray(node.attrs.get("value", 0),
                                             node.inputs[0].dtype), "pad_value")
    return [ctx.add_node("Pad", [ctx.name_of(node.inputs[0]), ctx.ints(befores + afters),
                                 value], mode="constant")]


@register_onnx_converter("flip")
def _flip(ctx, node):
    x = node.inputs[0]
    axis = node.attrs.get("axis")
    axes = list(range(len(x.shape))) if axis is None else _axes(axis, len(x.shape))
    n = len(axes)
    return [ctx.add_node("Slice", [ctx.name_of(x), ctx.ints([-1] * n),
                                   ctx.ints([INT64_MIN] * n), ctx.ints(axes),
                                   ctx.ints([-1] * n)])]


@register_onnx_converter("cast")
def _cast(ctx, node):
    return [ctx.add_node("Cast", ctx.inputs(node)[:1],
                         to=onnx_dtype(node.outputs[0].dtype, f"op '{node.op.name}'"))]
