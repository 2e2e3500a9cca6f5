"""``AdaptiveAveragePooling1D/2D/3D``: the mean over adaptive windows to a fixed size."""
from __future__ import annotations

from ... import ops
from .base_adaptive_pooling import BaseAdaptivePooling


class _AdaptiveAverage(BaseAdaptivePooling):
    pool = staticmethod(ops.adaptive_average_pool)


class AdaptiveAveragePooling1D(_AdaptiveAverage):
    """Average-pools ``(batch, length, channels)`` to ``output_size`` steps (Keras's
    ``AdaptiveAveragePooling1D``; windows as :func:`lamina.ops.adaptive_average_pool`).

    Args:
        output_size: Number of output steps (an int).
        data_format: 'channels_last' (inputs shaped ``(batch, ..., channels)``) or
            'channels_first' (``(batch, channels, ...)``); None uses
            ``keras.config.image_data_format()``.
    """
    rank = 1


class AdaptiveAveragePooling2D(_AdaptiveAverage):
    """Average-pools images to ``output_size`` = (height, width) (Keras's
    ``AdaptiveAveragePooling2D``).

    Args:
        output_size: Output ``(height, width)``, or an int for both.
        data_format: 'channels_last' (inputs shaped ``(batch, ..., channels)``) or
            'channels_first' (``(batch, channels, ...)``); None uses
            ``keras.config.image_data_format()``.
    """
    rank = 2


class AdaptiveAveragePooling3D(_AdaptiveAverage):
    """Average-pools volumes to ``output_size`` = (depth, height, width) (Keras's
    ``AdaptiveAveragePooling3D``).

    Args:
        output_size: Output ``(depth, height, width)``, or an int for all three.
        data_format: 'channels_last' (inputs shaped ``(batch, ..., channels)``) or
            'channels_first' (``(batch, channels, ...)``); None uses
            ``keras.config.image_data_format()``.
    """
    rank = 3
