"""The base of the global pooling layers: reduce every spatial axis."""
from __future__ import annotations

from ..convolutional import conv_utils as cu
from ..input_spec import InputSpec
from ..layer import Layer


class BaseGlobalPooling(Layer):
    """Max or mean over all spatial axes (private; Keras's ``BaseGlobalPooling``).

    Output: (batch, channels), or with ``keepdims=True`` the input's rank with spatial
    sizes 1.
    """

    def __init__(self, pool_dimensions, data_format=None, keepdims=False, **kwargs):
        super().__init__(**kwargs)
        self.data_format = cu.standardize_data_format(self.name, data_format)
        if not isinstance(keepdims, bool):
            raise ValueError(f"{self.name}: argument 'keepdims' must be True or False; "
                             f"received {keepdims!r}")
        self.keepdims = keepdims
        self.rank = pool_dimensions
        self.input_spec = InputSpec.described(cu.layout(pool_dimensions, self.data_format),
                                              ndim=pool_dimensions + 2)
        self._build_at_init()           # stateless: built now unless a subclass builds

    @property
    def spatial_axes(self) -> tuple:
        first = 2 if self.data_format == "channels_first" else 1
        return tuple(range(first, first + self.rank))

    def compute_output_shape(self, input_shape):
        input_shape = tuple(input_shape)
        channels = input_shape[cu.channel_axis(self.data_format)]
        if self.keepdims:
            return cu.with_spatial(input_shape[0], (1,) * self.rank, channels,
                                   self.data_format)
        return (input_shape[0], channels)

    def get_config(self) -> dict:
        return {**super().get_config(), "data_format": self.data_format,
                "keepdims": self.keepdims}
