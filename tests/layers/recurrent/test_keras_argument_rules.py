"""Keras's argument rules for ConvLSTM (strides and dilation together) and TimeDistributed
(the mask's leading axes), with Keras's phrases in Lamina's messages."""
import numpy as np
import pytest

import lamina
from lamina import layers


@pytest.mark.parametrize("layer", [layers.ConvLSTM1D, layers.ConvLSTM2D, layers.ConvLSTM3D])
def test_conv_lstm_refuses_strides_with_dilation(layer):
    with pytest.raises(ValueError, match=r"Specifying `strides > 1` is not compatible with "
                                         r"`dilation_rate > 1`.*received strides=\(2"):
        layer(filters=1, kernel_size=1, strides=2, dilation_rate=3)
    layer(filters=1, kernel_size=1, strides=1, dilation_rate=3)      # either alone is fine


def test_time_distributed_mask_of_the_wrong_steps_names_both_shapes():
    layer = layers.TimeDistributed(layers.Dense(2))
    x = np.ones((2, 3, 4), "float32")
    with pytest.raises(ValueError, match=r"argument 'mask' must have shape \(batch, "
                                         r"timesteps, \.\.\.\) = \(2, 3\); received shape "
                                         r"\(2, 4\) \(The `mask` passed to the "
                                         r"`TimeDistributed` layer has a shape"):
        layer(x, mask=np.ones((2, 4), bool))
