"""What the adaptive pooling layers share: a fixed output size per spatial axis."""
from __future__ import annotations

from ...settings import image_data_format
from ..input_spec import InputSpec
from ..layer import Layer


class BaseAdaptivePooling(Layer):
    """Pools any spatial size to ``output_size`` (private; Keras's ``BaseAdaptivePooling``).

    Subclasses set ``rank`` and ``pool`` (``ops.adaptive_average_pool`` or
    ``ops.adaptive_max_pool``); the windows are the op's.
    """

    rank = 2
    pool = None
    _axes_names = {1: "(length,)", 2: "(height, width)", 3: "(depth, height, width)"}

    def __init__(self, output_size, data_format=None, **kwargs):
        super().__init__(**kwargs)
        rank = self.rank
        if isinstance(output_size, int) and not isinstance(output_size, bool):
            output_size = (output_size,) * rank
        elif not (isinstance(output_size, (tuple, list)) and len(output_size) == rank):
            raise TypeError(f"{self.name}: argument 'output_size' must be an int or a "
                            f"{self._axes_names[rank]} tuple; received {output_size!r}")
        if not all(isinstance(s, int) and not isinstance(s, bool) and s > 0
                   for s in output_size):
            raise ValueError(f"{self.name}: argument 'output_size' must hold positive ints; "
                             f"received {tuple(output_size)!r}")
        self.output_size = tuple(output_size)
        self.data_format = data_format or image_data_format()
        if self.data_format not in ("channels_first", "channels_last"):
            raise ValueError(f"{self.name}: argument 'data_format' must be 'channels_last' "
                             f"or 'channels_first'; received {data_format!r}")
        self.input_spec = InputSpec(ndim=rank + 2)

    def call(self, inputs):
        return type(self).pool(inputs, self.output_size, data_format=self.data_format)

    def compute_output_shape(self, input_shape):
        if self.data_format == "channels_last":
            return (input_shape[0], *self.output_size, input_shape[-1])
        return (input_shape[0], input_shape[1], *self.output_size)

    def get_config(self) -> dict:
        return {**super().get_config(), "output_size": self.output_size,
                "data_format": self.data_format}
