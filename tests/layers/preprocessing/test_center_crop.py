import numpy as np
import pytest

from lamina import layers
from tests.layers.harness import LayerCase, case_id, run_layer_case
from tests.layers.preprocessing import image_reference as ref

CASES = [
    LayerCase(layers.CenterCrop, dict(height=3, width=4), (2, 6, 7, 3), (2, 3, 4, 3),
              trainable_weights=0, weight_shapes={}, params=0),
    LayerCase(layers.CenterCrop, dict(height=8, width=4), (2, 6, 7, 1), (2, 8, 4, 1),
              params=0),
    LayerCase(layers.CenterCrop, dict(height=2, width=2, data_format="channels_first"),
              (2, 3, 5, 5), (2, 3, 2, 2), params=0),
]


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_center_crop_harness(case, backend):
    run_layer_case(case)


def test_center_crop_takes_the_middle_window(backend):
    x = np.random.default_rng(0).standard_normal((2, 6, 7, 3)).astype("float32")
    np.testing.assert_array_equal(layers.CenterCrop(3, 4)(x).numpy(), x[:, 1:4, 1:5])
    np.testing.assert_array_equal(layers.CenterCrop(3, 4)(x[0]).numpy(), x[0, 1:4, 1:5])


def test_smaller_images_are_aspect_cropped_and_resized(backend):
    x = np.random.default_rng(0).standard_normal((1, 6, 7, 2)).astype("float32")
    y = layers.CenterCrop(8, 4)(x).numpy()          # window 6 x 3 at column 2, then resize
    np.testing.assert_allclose(y, ref.resize(x[:, :, 2:5], 8, 4), rtol=1e-5, atol=1e-5)


def test_center_crop_rejects_bad_sizes():
    with pytest.raises(ValueError, match=r"crop_x: argument 'height' must be a positive "
                                         r"int; received -1"):
        layers.CenterCrop(-1, 2, name="crop_x")
