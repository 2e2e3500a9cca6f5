import numpy as np
import pytest

from lamina import layers
from tests.layers.harness import LayerCase, case_id, run_layer_case
from tests.layers.preprocessing import image_reference as ref

CASES = [
    LayerCase(layers.Resizing, dict(height=4, width=5), (2, 6, 8, 3), (2, 4, 5, 3),
              trainable_weights=0, weight_shapes={}, params=0),
    LayerCase(layers.Resizing, dict(height=9, width=7, interpolation="nearest"),
              (2, 6, 8, 3), (2, 9, 7, 3), params=0),
    LayerCase(layers.Resizing, dict(height=4, width=4, crop_to_aspect_ratio=True),
              (2, 6, 8, 1), (2, 4, 4, 1), params=0),
    LayerCase(layers.Resizing, dict(height=4, width=4, pad_to_aspect_ratio=True,
                                    fill_value=1.5), (2, 6, 8, 1), (2, 4, 4, 1), params=0),
    LayerCase(layers.Resizing, dict(height=3, width=3, data_format="channels_first"),
              (2, 2, 5, 6), (2, 2, 3, 3), params=0),
]


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_resizing_harness(case, backend):
    run_layer_case(case)


def _images(shape=(2, 6, 8, 3)):
    return np.random.default_rng(0).uniform(0, 255, shape).astype("float32")


@pytest.mark.parametrize("interpolation", ["bilinear", "nearest"])
@pytest.mark.parametrize("size", [(4, 5), (9, 13), (6, 3), (1, 1)])
def test_resizing_matches_half_pixel_reference(backend, interpolation, size):
    x = _images()
    y = layers.Resizing(*size, interpolation=interpolation)(x).numpy()
    np.testing.assert_allclose(y, ref.resize(x, *size, interpolation), rtol=1e-5, atol=1e-3)


def test_resizing_upsample_by_two_known_values(backend):
    x = np.array([0.0, 10.0], "float32").reshape(1, 1, 2, 1)
    y = layers.Resizing(1, 4)(x).numpy().ravel()
    np.testing.assert_allclose(y, [0.0, 2.5, 7.5, 10.0])      # half-pixel centers


def test_crop_to_aspect_ratio_crops_the_center_first(backend):
    x = _images((1, 6, 8, 2))
    y = layers.Resizing(3, 3, crop_to_aspect_ratio=True)(x).numpy()
    np.testing.assert_allclose(y, ref.resize(x[:, :, 1:7], 3, 3), rtol=1e-5, atol=1e-3)


def test_pad_to_aspect_ratio_pads_both_sides_with_fill_value(backend):
    x = _images((1, 4, 8, 1))
    y = layers.Resizing(8, 8, pad_to_aspect_ratio=True, fill_value=7.0,
                        interpolation="nearest")(x).numpy()
    padded = np.pad(x, ((0, 0), (2, 2), (0, 0), (0, 0)), constant_values=7.0)
    np.testing.assert_allclose(y, padded)


def test_channels_first_equals_transposed_channels_last(backend):
    x = _images()
    first = layers.Resizing(4, 5, data_format="channels_first")(x.transpose(0, 3, 1, 2))
    last = layers.Resizing(4, 5)(x)
    np.testing.assert_allclose(first.numpy().transpose(0, 2, 3, 1), last.numpy(), rtol=1e-6)


def test_unbatched_image_equals_batch_of_one(backend):
    x = _images((1, 6, 8, 2))
    y = layers.Resizing(3, 5)(x[0]).numpy()
    np.testing.assert_allclose(y, ref.resize(x, 3, 5)[0], rtol=1e-5, atol=1e-3)


def test_integer_images_come_out_float(backend):
    x = np.arange(2 * 4 * 4 * 1, dtype="uint8").reshape(2, 4, 4, 1)
    assert layers.Resizing(2, 2)(x).dtype == "float32"


@pytest.mark.parametrize("kwargs, match", [
    (dict(height=0, width=3), r"resize_x: argument 'height' must be a positive int; "
                              r"received 0"),
    (dict(height=3, width=2.5), r"argument 'width' must be a positive int; received 2.5"),
    (dict(height=3, width=3, interpolation="bicubic"),
     r"argument 'interpolation' must be one of 'bilinear', 'nearest'; received 'bicubic'"),
    (dict(height=3, width=3, fill_mode="reflect"),
     r"argument 'fill_mode' must be one of 'constant'; received 'reflect'"),
    (dict(height=3, width=3, crop_to_aspect_ratio=True, pad_to_aspect_ratio=True),
     r"only one of 'crop_to_aspect_ratio' and 'pad_to_aspect_ratio' can be True"),
    (dict(height=3, width=3, antialias=True), r"argument 'antialias' must be False"),
    (dict(height=3, width=3, fill_value="x"), r"argument 'fill_value' must be a number"),
    (dict(height=3, width=3, data_format="nhwc"), r"argument 'data_format' must be"),
])
def test_resizing_rejects_bad_arguments(kwargs, match):
    with pytest.raises(ValueError, match=match):
        layers.Resizing(name="resize_x", **kwargs)


def test_resizing_rejects_rank_2():
    with pytest.raises(ValueError, match=r"resize_y expects input of rank at least 3"):
        layers.Resizing(2, 2, name="resize_y")(np.ones((4, 4), "float32"))
