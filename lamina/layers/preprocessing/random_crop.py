"""``RandomCrop``: a random (height, width) window while training."""
from __future__ import annotations

from ... import ops, random
from ...graph.trace import runs_for_real
from .base_image_layer import RandomImageLayer
from .image_utils import check_size, hw_axes, smart_resize


class RandomCrop(RandomImageLayer):
    """Keras 3's ``RandomCrop``: when ``training``, every image of the batch is cropped at
    one random offset (drawn uniformly, rows then columns). Otherwise, and when an image
    is not larger than the target on both axes, the largest centered window with the
    target aspect ratio is resized (bilinear) to ``(height, width)``.

    Args:
        height: Output height in pixels.
        width: Output width in pixels.
        seed: Integer seed of the layer's random draws; None draws a random seed.
        data_format: 'channels_last' (inputs shaped ``(batch, ..., channels)``) or
            'channels_first' (``(batch, channels, ...)``); None uses
            ``keras.config.image_data_format()``.
        name: Name of the layer; None derives a unique one from the class name.
    """

    def __init__(self, height, width, seed=None, data_format=None, name=None, **kwargs):
        super().__init__(seed=seed, data_format=data_format, name=name, **kwargs)
        self.height = check_size(self.name, "height", height)
        self.width = check_size(self.name, "width", width)

    def call(self, inputs, training=True):
        if isinstance(inputs, dict):
            raise NotImplementedError(f"{self.name}: dict inputs are not supported by "
                                      f"RandomCrop in Lamina; pass the images tensor")
        h_axis, w_axis = hw_axes(self.data_format, len(inputs.shape))
        height, width = inputs.shape[h_axis], inputs.shape[w_axis]
        if height is None or width is None:
            raise ValueError(f"{self.name}: the input height and width must be known; "
                             f"received shape {tuple(inputs.shape)}")
        if training and height > self.height and width > self.width and runs_for_real(inputs):
            return self._apply(inputs, self.augment)
        return self._apply(inputs, lambda x: smart_resize(x, self.height, self.width))

    def augment(self, images):
        height, width = images.shape[1:3]
        top = self._offset(height - self.height)
        left = self._offset(width - self.width)
        rows = ops.add(ops.arange(self.height, dtype="int32"), top)
        cols = ops.add(ops.arange(self.width, dtype="int32"), left)
        return ops.take(ops.take(images, rows, axis=1), cols, axis=2)

    def _offset(self, room: int):
        draw = random.uniform((), 0.0, float(room + 1), seed=self.seed_generator)
        return ops.minimum(ops.cast(draw, "int32"), room)

    def compute_output_shape(self, input_shape):
        shape = list(input_shape)
        h_axis, w_axis = hw_axes(self.data_format, len(shape))
        shape[h_axis], shape[w_axis] = self.height, self.width
        return tuple(shape)

    def get_config(self) -> dict:
        return {**super().get_config(), "height": self.height, "width": self.width}
