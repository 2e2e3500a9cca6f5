"""The arguments of the convolutions: strides, dilations and paddings as tuples, TensorFlow's
'same' padding, output sizes, and the operand checks that name what each layout means.
"""
from __future__ import annotations

from ..errors import DTypeError, ShapeError, describe_shape
from ..core.op import check_rank

IMAGE = "(batch, height, width, channels)"
SEQUENCE = "(batch, steps, channels)"
KERNEL_2D = "(kernel_height, kernel_width, in_channels / groups, out_channels)"
VOLUME = "(batch, depth, height, width, channels)"
KERNEL_3D = "(kernel_depth, kernel_height, kernel_width, in_channels / groups, out_channels)"
MEANINGS = {3: (SEQUENCE, "(kernel_size, in_channels / groups, out_channels)"),
             4: (IMAGE, KERNEL_2D), 5: (VOLUME, KERNEL_3D)}


def normalize_tuple(op: str, arg: str, value, rank: int, minimum: int = 1) -> tuple:
    """An int or a sequence of ``rank`` ints >= ``minimum`` -> a tuple of ``rank`` ints."""
    items = (value,) * rank if isinstance(value, int) else value
    try:
        items = tuple(items)
    except TypeError:
        items = ()
    if len(items) != rank or not all(
            isinstance(v, int) and not isinstance(v, bool) and v >= minimum for v in items):
        kind = "positive" if minimum == 1 else f">= {minimum}"
        raise ValueError(f"{op}: argument '{arg}' must be an int or a tuple of {rank} ints, "
                         f"all {kind}; received {value!r}")
    return items


def normalize_padding(op: str, padding, allowed=("valid", "same")) -> str:
    mode = padding.lower() if isinstance(padding, str) else padding
    if mode not in allowed:
        names = " or ".join(repr(a) for a in allowed)
        raise ValueError(f"{op}: argument 'padding' must be {names}; received {padding!r}")
    return mode


def same_pads(size: int, k: int, stride: int, dilation: int) -> tuple[int, int]:
    """TensorFlow's 'same' padding of one axis: the extra element goes after."""
    out = -(-size // stride)
    total = max((out - 1) * stride + (k - 1) * dilation + 1 - size, 0)
    return total // 2, total - total // 2


def resolve_pads(padding, in_hw, kernel_hw, strides, dilation) -> tuple:
    """'valid' / 'same' / explicit ((top, bottom), (left, right)) -> explicit pads (a pair
    per spatial axis)."""
    if padding == "valid":
        return tuple((0, 0) for _ in in_hw)
    if padding == "same":
        return tuple(same_pads(*args) for args in zip(in_hw, kernel_hw, strides, dilation))
    return padding


def output_length(size, k: int, stride: int, dilation: int, padding_axis) -> int | None:
    """Output length along one axis; ``padding_axis`` is 'same', 'valid' or (before, after)."""
    if size is None:
        return None
    if padding_axis == "same":
        return -(-size // stride)
    before, after = (0, 0) if padding_axis == "valid" else padding_axis
    return (size + before + after - (k - 1) * dilation - 1) // stride + 1


def spatial_output(op: str, what: str, in_hw, kernel_hw, strides, dilation, padding):
    """Output (height, width), with an error when the window does not fit the input."""
    per_axis = (padding,) * len(in_hw) if isinstance(padding, str) else padding
    out = tuple(output_length(*args) for args in
                zip(in_hw, kernel_hw, strides, dilation, per_axis))
    if any(o is not None and o < 1 for o in out):
        span = tuple((k - 1) * d + 1 for k, d in zip(kernel_hw, dilation))
        mode = repr(padding) if isinstance(padding, str) else f"pads {padding}"
        raise ShapeError(f"{op}: the {what} {describe_shape(span)} is larger than the "
                         f"input's spatial size {describe_shape(in_hw)} with padding {mode} "
                         f"(Computed output size would be zero or negative.)")
    return out


def check_same_dtype(op: str, a, b, names: tuple[str, str]) -> None:
    if a.dtype != b.dtype:
        raise DTypeError(f"{op}: arguments '{names[0]}' and '{names[1]}' must have one dtype; "
                         f"received {a.dtype} and {b.dtype}")


def check_conv_operands(op: str, x, kernel, groups: int, x_rank: int = 4) -> None:
    """Ranks, and channels that agree between the input, the kernel and ``groups``."""
    meaning, kernel_meaning = MEANINGS[x_rank]
    check_rank(op, "x", x, x_rank, meaning)
    check_rank(op, "kernel", kernel, x_rank, kernel_meaning)
    channels, group_in, out_channels = x.shape[-1], kernel.shape[-2], kernel.shape[-1]
    if channels is not None and channels % groups:
        raise ShapeError(f"{op}: argument 'groups' ({groups}) must divide the input's "
                         f"{channels} channels; received 'x' of shape {describe_shape(x.shape)}")
    if out_channels % groups:
        raise ShapeError(f"{op}: argument 'groups' ({groups}) must divide the kernel's "
                         f"{out_channels} output channels; received 'kernel' of shape "
                         f"{describe_shape(kernel.shape)}")
    if channels is not None and group_in * groups != channels:
        raise ShapeError(f"{op}: the input has {channels} channels but the kernel expects "
                         f"{group_in * groups} ({groups} group(s) of {group_in}): input channels "
                         f"must match the kernel's; received "
                         f"'x' of shape {describe_shape(x.shape)} and 'kernel' of shape "
                         f"{describe_shape(kernel.shape)}")
