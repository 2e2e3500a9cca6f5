"""``Flatten``: every non-batch axis folded into one, in channels-last C order."""
from __future__ import annotations

from ... import ops
from ..input_spec import InputSpec
from ..layer import Layer
from .spatial import standardize_data_format


class Flatten(Layer):
    """Flattens the input to ``(batch, features)`` (Keras 3's ``Flatten``).

    With ``data_format="channels_first"`` the channels axis is moved last before
    flattening, so a channels-first model feeds a following ``Dense`` the features in the
    order a channels-last one would. A rank-1 input becomes ``(batch, 1)``.

    Args:
        data_format: With 'channels_first', the channels axis is moved last before flattening;
            None: the global setting.

    Example:

    >>> lamina.layers.Flatten()(np.zeros((2, 3, 4))).shape
    (2, 12)
    """

    def __init__(self, data_format=None, **kwargs):
        super().__init__(**kwargs)
        self.data_format = standardize_data_format(self.name, data_format)
        self.input_spec = InputSpec.described("(batch, ...)", min_ndim=1)

    def call(self, inputs):
        rank = len(inputs.shape)
        if self.data_format == "channels_first" and rank > 2:
            inputs = ops.transpose(inputs, (0, *range(2, rank), 1))
        features = self.compute_output_shape(inputs.shape)[1]
        batch = inputs.shape[0]
        if features is None and batch is None:
            # Only a symbolic input leaves both unknown: its output is (None, None).
            return ops.reshape(inputs, (ops.shape(inputs)[0], -1))
        if features is None:
            return ops.reshape(inputs, (batch, -1))
        return ops.reshape(inputs, (-1 if batch is None else batch, features))

    def compute_output_shape(self, input_shape):
        features = 1
        for size in tuple(input_shape)[1:]:
            features = None if size is None or features is None else features * size
        return (input_shape[0], features)

    def get_config(self) -> dict:
        return {**super().get_config(), "data_format": self.data_format}
