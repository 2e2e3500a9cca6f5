"""``pack_int4`` / ``unpack_int4``: two int4 values ([-8, 7]) per byte, as Keras 3 stores
int4 kernels: along ``axis``, element ``2i`` in the low nibble and ``2i + 1`` in the high
one (an odd length is padded with a zero)."""
from __future__ import annotations

from .. import ops


def _check_dtype(dtype) -> None:
    if dtype not in ("int8", "uint8"):
        raise ValueError(f"Expected dtype to be 'int8' or 'uint8', but got '{dtype}'.")


def pack_int4(arr, axis=0, dtype="int8"):
    """``(packed, packed_shape, orig_len)``: ``arr`` (int4 values held in ``dtype``)
    packed along ``axis``; ``orig_len`` is that axis's length before padding.

    Args:
        arr: an integer tensor of int4 values, in [-8, 7].
        axis: int, the axis along which pairs are packed into a byte (default 0).
        dtype: the dtype holding the values, ``"int8"`` (default) or ``"uint8"``.

    Returns:
        A tuple ``(packed, packed_shape, orig_len)``.
    """
    _check_dtype(dtype)
    arr = ops.convert_to_tensor(arr)
    if arr.dtype != dtype:
        raise TypeError(f"Expected {dtype} tensor for packing, got {arr.dtype}.")
    axis = axis % len(arr.shape)
    x = ops.moveaxis(arr, axis, 0)
    length = x.shape[0]
    if length % 2:
        x = ops.concatenate([x, ops.zeros((1,) + tuple(x.shape[1:]), dtype=dtype)], axis=0)
    x = ops.cast(x, "int32")         # the bit arithmetic in int32, the result cast back
    low = ops.bitwise_and(x[0::2], 15)
    high = ops.bitwise_and(x[1::2], 15)
    packed = ops.bitwise_or(low, ops.left_shift(high, 4))
    if dtype == "int8":              # bytes 128..255 are the negative int8s
        packed = ops.where(ops.greater(packed, 127), ops.subtract(packed, 256), packed)
    packed = ops.moveaxis(ops.cast(packed, dtype), 0, axis)
    return packed, tuple(packed.shape), length


def unpack_int4(packed, orig_len, axis=0, dtype="int8"):
    """The inverse of :func:`pack_int4`: ``packed`` unpacked along ``axis`` to its first
    ``orig_len`` values, in [-8, 7] for ``dtype="int8"`` (the nibbles 0..15 for uint8).

    Args:
        packed: the packed tensor from ``pack_int4``.
        orig_len: int, the length of ``axis`` before packing.
        axis: int, the packed axis (default 0).
        dtype: ``"int8"`` (default: values in [-8, 7]) or ``"uint8"`` (nibbles 0..15).

    Returns:
        The unpacked tensor.

    Example:

    >>> import lamina as keras
    >>> packed, shape, n = keras.quantizers.pack_int4(
    ...     keras.ops.convert_to_tensor([1, -2, 3], dtype="int8"))
    >>> keras.quantizers.unpack_int4(packed, n).numpy()
    array([ 1, -2,  3], dtype=int8)
    """
    _check_dtype(dtype)
    packed = ops.convert_to_tensor(packed)
    if packed.dtype not in ("int8", "uint8"):
        raise TypeError(f"Expected int8 or uint8 tensor for unpacking, got {packed.dtype}")
    axis = axis % len(packed.shape)
    x = ops.cast(ops.moveaxis(packed, axis, 0), "int32")
    low = ops.bitwise_and(x, 15)
    high = ops.bitwise_and(ops.right_shift(x, 4), 15)
    if dtype == "int8":              # nibble 8..15 -> -8..-1
        low = ops.subtract(ops.bitwise_xor(low, 8), 8)
        high = ops.subtract(ops.bitwise_xor(high, 8), 8)
    both = ops.reshape(ops.stack([low, high], axis=1),
                       (2 * x.shape[0],) + tuple(x.shape[1:]))[:orig_len]
    return ops.moveaxis(ops.cast(both, dtype), 0, axis)
