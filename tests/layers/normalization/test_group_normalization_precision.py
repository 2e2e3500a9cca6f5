"""GroupNormalization in mixed precision: inputs past float16's range are normalized in
float32 (the layer does not autocast them), as in Keras 3.15.1 (issue #22586)."""
import numpy as np
import pytest

from lamina import layers

# Keras 3.15.1, GroupNormalization(groups=2, dtype="mixed_float16") on the input below
KERAS_OUTPUT = [[[-1.32421875, -1.0830078125, -0.8427734375, -0.60205078125, -1.32421875,
                  -1.0830078125, -0.8427734375, -0.60205078125],
                 [0.60205078125, 0.8427734375, 1.0830078125, 1.32421875, 0.60205078125,
                  0.8427734375, 1.0830078125, 1.32421875]]]


def test_large_inputs_do_not_overflow_in_float16():
    x = (np.arange(16, dtype="float32").reshape(1, 2, 8) - 4) * 9000.0   # up to 99000
    layer = layers.GroupNormalization(groups=2, dtype="mixed_float16")
    y = layer(x)
    assert y.dtype == "float16"
    np.testing.assert_allclose(np.asarray(y, "float32"), KERAS_OUTPUT, atol=1e-3)
    constant = layer(np.full((2, 4, 8), 70000.0, "float32"))
    assert not np.isnan(np.asarray(constant, "float32")).any()


def test_groups_not_dividing_the_channels_names_both_wordings():
    layer = layers.GroupNormalization(groups=3, name="gn")
    with pytest.raises(ValueError, match=r"gn: the number of channels \(4\) must be a multiple "
                                         r"of argument 'groups'.*must be a multiple of the "
                                         r"number of channels \(4\)"):
        layer(np.ones((2, 2, 2, 4), "float32"))
