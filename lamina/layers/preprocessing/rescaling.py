"""``Rescaling``: ``inputs * scale + offset``, e.g. pixel values from [0, 255] to [0, 1]."""
from __future__ import annotations

from ... import backend, ops
from ..layer import Layer


class Rescaling(Layer):
    """Computes ``inputs * scale + offset`` in the compute dtype (Keras 3's ``Rescaling``).

    ``scale`` and ``offset`` are numbers or per-channel sequences (broadcast against the
    last axis; a sequence ``scale`` against the channel axis -3 when the image data format
    is 'channels_first', as in Keras). Integer inputs (uint8 images) are cast to the
    compute dtype first.

    Args:
        scale: Factor multiplying the inputs (a number or a per-channel sequence).
        offset: Value added after scaling (a number or a per-channel sequence).

    Example:

    >>> lamina.layers.Rescaling(1 / 255)(np.array([[0.0, 255.0]])).numpy()
    array([[0., 1.]], dtype=float32)
    """

    def __init__(self, scale, offset=0.0, **kwargs):
        super().__init__(**kwargs)
        self.scale = _plain(self.name, "scale", scale)
        self.offset = _plain(self.name, "offset", offset)
        self.supports_masking = True

    def call(self, inputs):
        dtype = self.compute_dtype
        x = ops.cast(inputs, dtype) if inputs.dtype != dtype else inputs
        scale = ops.convert_to_tensor(self.scale, dtype=dtype)
        if 0 < scale.ndim < 3 and backend.image_data_format() == "channels_first":
            # As Keras: a per-channel scale lines up with axis -3 of (..., C, H, W) images.
            scale = ops.reshape(scale, tuple(scale.shape) + (1,) * (3 - scale.ndim))
        offset = ops.convert_to_tensor(self.offset, dtype=dtype)
        return ops.add(ops.multiply(x, scale), offset)

    def compute_output_shape(self, input_shape):
        return tuple(input_shape)

    def get_config(self) -> dict:
        return {**super().get_config(), "scale": self.scale, "offset": self.offset}


def _plain(name: str, arg: str, value):
    """A number or a (nested) list of numbers: what a config can store."""
    if hasattr(value, "tolist"):                  # numpy arrays and scalars, tensors
        value = value.tolist()
    if isinstance(value, tuple):
        value = list(value)
    if _is_numbers(value):
        return value
    raise TypeError(f"{name}: argument '{arg}' must be a number or a sequence of numbers; "
                    f"received {value!r}")


def _is_numbers(value) -> bool:
    if isinstance(value, list):
        return all(_is_numbers(v) for v in value)
    return isinstance(value, (int, float)) and not isinstance(value, bool)
