"""``AdaptiveMaxPooling1D/2D/3D``: the maximum over adaptive windows to a fixed size."""
from __future__ import annotations

from ... import ops
from .base_adaptive_pooling import BaseAdaptivePooling


class _AdaptiveMax(BaseAdaptivePooling):
    pool = staticmethod(ops.adaptive_max_pool)


class AdaptiveMaxPooling1D(_AdaptiveMax):
    """Max-pools ``(batch, length, channels)`` to ``output_size`` steps (Keras's
    ``AdaptiveMaxPooling1D``; windows as :func:`lamina.ops.adaptive_max_pool`)."""
    rank = 1


class AdaptiveMaxPooling2D(_AdaptiveMax):
    """Max-pools images to ``output_size`` = (height, width) (Keras's
    ``AdaptiveMaxPooling2D``)."""
    rank = 2


class AdaptiveMaxPooling3D(_AdaptiveMax):
    """Max-pools volumes to ``output_size`` = (depth, height, width) (Keras's
    ``AdaptiveMaxPooling3D``)."""
    rank = 3
