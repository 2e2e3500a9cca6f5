"""``RandomFlip``: images mirrored at random while training."""
from __future__ import annotations

from ... import ops, random
from .base_image_layer import RandomImageLayer
from .image_utils import check_choice

HORIZONTAL, VERTICAL = "horizontal", "vertical"
HORIZONTAL_AND_VERTICAL = "horizontal_and_vertical"


class RandomFlip(RandomImageLayer):
    """Keras 3's ``RandomFlip``: when ``training``, each image is flipped with probability
    1/2 (a uniform draw ``<= 0.5``), left-right ("horizontal"), top-bottom ("vertical") or
    both at once ("horizontal_and_vertical": one draw decides both, as in Keras).

    Args:
        mode: 'horizontal', 'vertical' or 'horizontal_and_vertical'.
        seed: Integer seed of the layer's random draws; None draws a random seed.
        data_format: 'channels_last' (inputs shaped ``(batch, ..., channels)``) or
            'channels_first' (``(batch, channels, ...)``); None uses
            ``keras.config.image_data_format()``.
    """

    def __init__(self, mode=HORIZONTAL_AND_VERTICAL, seed=None, data_format=None, **kwargs):
        super().__init__(seed=seed, data_format=data_format, **kwargs)
        self.mode = check_choice(self.name, "mode", mode,
                                 (HORIZONTAL, VERTICAL, HORIZONTAL_AND_VERTICAL))

    def augment(self, images):
        flips = ops.less_equal(random.uniform((images.shape[0], 1, 1, 1),
                                              seed=self.seed_generator), 0.5)
        if self.mode in (HORIZONTAL, HORIZONTAL_AND_VERTICAL):
            images = ops.where(flips, ops.flip(images, axis=2), images)
        if self.mode in (VERTICAL, HORIZONTAL_AND_VERTICAL):
            images = ops.where(flips, ops.flip(images, axis=1), images)
        return images

    def get_config(self) -> dict:
        return {**super().get_config(), "mode": self.mode}
