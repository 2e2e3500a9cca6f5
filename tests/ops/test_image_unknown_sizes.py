"""Image ops on symbolic images whose sizes are unknown: the shapes Keras 3.15.1 gives
(ImageOpsDynamicShapeTest), and functional models that run them with eager's numbers."""
import numpy as np
import pytest

import lamina
from lamina import ops
from lamina.errors import ShapeError

KT = lamina.KerasTensor


def test_pad_images_shapes_match_keras():
    x = KT((None, None, 3))
    assert ops.image.pad_images(x, 2, 3, target_height=20, target_width=30).shape == (20, 30, 3)
    assert ops.image.pad_images(x, 2, 3, 2, 3).shape == (None, None, 3)
    assert ops.image.pad_images(KT((3, None, None)), 2, 3, target_height=20, target_width=30,
                                data_format="channels_first").shape == (3, 20, 30)
    assert ops.image.pad_images(KT((None, 15, 25, 3)), 2, 3, target_height=20,
                                target_width=30).shape == (None, 20, 30, 3)


@pytest.mark.parametrize("sides", [dict(top_padding=1, left_padding=3),
                                   dict(bottom_padding=2, right_padding=0)])
def test_pad_images_of_unknown_size_runs_with_eagers_numbers(sides):
    inputs = lamina.Input(batch_shape=(None, None, None, 2))
    model = lamina.Model(inputs, ops.image.pad_images(inputs, target_height=8, target_width=9,
                                                      **sides))
    assert model.output.shape == (None, 8, 9, 2)
    for height, width in ((3, 4), (6, 6), (1, 6)):
        x = np.random.RandomState(height).rand(2, height, width, 2).astype("float32")
        expected = ops.image.pad_images(x, target_height=8, target_width=9, **sides).numpy()
        np.testing.assert_array_equal(model(x).numpy(), expected)
        np.testing.assert_array_equal(lamina.jit(model)(x).numpy(), expected)


def test_pad_images_of_unknown_size_refuses_an_image_larger_than_the_target():
    inputs = lamina.Input(batch_shape=(None, None, 4, 1))
    model = lamina.Model(inputs, ops.image.pad_images(inputs, 2, 0, target_height=8,
                                                      target_width=4))
    x = np.ones((1, 7, 4, 1), "float32")
    with pytest.raises(ValueError, match=r"pad_images: bottom_padding must be >= 0"):
        ops.image.pad_images(x, 2, 0, target_height=8, target_width=4)
    with pytest.raises(ShapeError, match=r"pad_images: bottom_padding must be >= 0 \(the target "
                                         r"is smaller than the image\): an image of size 7"):
        model(x)
    with pytest.raises(ShapeError, match=r"an image of size 7 on axis 1 does not fit "
                                         r"target_height=8 with top_padding=2"):
        lamina.jit(model)(x)


def test_elastic_transform_of_an_unknown_batch_size_draws_eagers_field():
    # Keras 3.15.1: ImageOpsDynamicShapeTest.test_elastic_transform
    assert ops.image.elastic_transform(KT((None, 20, 20, 3))).shape == (None, 20, 20, 3)
    assert ops.image.elastic_transform(KT((None, 3, 20, 20)),
                                       data_format="channels_first").shape == (None, 3, 20, 20)
    inputs = lamina.Input((8, 8, 3))
    model = lamina.Model(inputs, ops.image.elastic_transform(inputs, 5.0, 1.0, seed=3))
    x = np.random.RandomState(0).rand(2, 8, 8, 3).astype("float32")
    expected = ops.image.elastic_transform(x, 5.0, 1.0, seed=3).numpy()
    assert np.abs(expected - x).max() > 0.1
    np.testing.assert_array_equal(model(x).numpy(), expected)
    np.testing.assert_array_equal(model.predict(x, verbose=0), expected)


# Keras 3.15.1 (JAX): resize / map_coordinates of X = arange(12).reshape(1, 3, 4, 1)
X = np.arange(12, dtype="float32").reshape(1, 3, 4, 1)
RESIZED = [
    (dict(size=(2, 3)), [1.1666667, 2.5, 3.8333335, 7.1666665, 8.5, 9.833334]),
    (dict(size=(2, 3), crop_to_aspect_ratio=True),
     [0.16666669, 1.5, 2.8333335, 4.1666665, 5.5, 6.8333335]),
    (dict(size=(4, 2), pad_to_aspect_ratio=True, fill_value=-1.0),
     [-1.0, -1.0, 1.0, 3.0, 8.0, 10.0, -1.0, -1.0]),
    (dict(size=(5, 2), interpolation="nearest"), [1, 3, 1, 3, 5, 7, 9, 11, 9, 11]),
]


def test_resize_shapes_match_keras():
    # Keras 3.15.1: ImageOpsDynamicShapeTest.test_resize / _with_crop_and_pad_dynamic_shape
    assert ops.image.resize(KT((None, None, 3)), (15, 15)).shape == (15, 15, 3)
    assert ops.image.resize(KT((3, None, None)), (15, 15),
                            data_format="channels_first").shape == (3, 15, 15)
    for option in ("crop_to_aspect_ratio", "pad_to_aspect_ratio"):
        assert ops.image.resize(KT((None, None, None, 3)), (15, 10),
                                **{option: True}).shape == (None, 15, 10, 3)
        assert ops.image.resize(KT((None, 3, None, None)), (15, 10), data_format="channels_first",
                                **{option: True}).shape == (None, 3, 15, 10)


@pytest.mark.parametrize("index", range(len(RESIZED)))
def test_resize_of_unknown_size_gives_keras_numbers_in_both_modes(index):
    kwargs, expected = RESIZED[index]
    inputs = lamina.Input(batch_shape=(None, None, None, 1))
    model = lamina.Model(inputs, ops.image.resize(inputs, **kwargs))
    eager = ops.image.resize(X, **kwargs).numpy()
    np.testing.assert_allclose(eager.ravel(), expected, rtol=1e-6, atol=1e-6)
    np.testing.assert_array_equal(model(X).numpy(), eager)
    np.testing.assert_array_equal(lamina.jit(model)(X).numpy(), eager)
    other = np.random.RandomState(index).rand(2, 5, 3, 1).astype("float32")  # another size
    np.testing.assert_array_equal(lamina.jit(model)(other).numpy(),
                                  ops.image.resize(other, **kwargs).numpy())


def test_resize_of_unknown_size_keeps_integer_images_rounding():
    inputs = lamina.Input(batch_shape=(None, None, None, 1), dtype="uint8")
    model = lamina.Model(inputs, ops.image.resize(inputs, (4, 2), pad_to_aspect_ratio=True,
                                                  fill_value=0.5))
    x = (X * 20).astype("uint8")
    eager = ops.image.resize(x, (4, 2), pad_to_aspect_ratio=True, fill_value=0.5).numpy()
    assert eager.dtype == np.uint8 and model.output.dtype == "uint8"
    np.testing.assert_array_equal(lamina.jit(model)(x).numpy(), eager)


def test_map_coordinates_of_unknown_sizes():
    # Keras 3.15.1: ImageOpsDynamicShapeTest.test_map_coordinates
    assert ops.image.map_coordinates(KT((20, 20, None)), KT((3, 15, 15, None)),
                                     0).shape == (15, 15, None)
    image, coords = lamina.Input(batch_shape=(None, None)), lamina.Input(batch_shape=(2, 2, 2))
    model = lamina.Model([image, coords], ops.image.map_coordinates(image, coords, 1,
                                                                    fill_mode="reflect"))
    c = np.array([[[0.5, 2.2], [1.0, -0.7]], [[1.5, 3.9], [0.2, 2.6]]], "float32")
    expected = [3.5, 11.0, 4.2000003, 2.6]        # Keras 3.15.1 (JAX)
    np.testing.assert_allclose(model([X[0, :, :, 0], c]).numpy().ravel(), expected, rtol=1e-6)
    np.testing.assert_allclose(lamina.jit(model)([X[0, :, :, 0], c]).numpy().ravel(), expected,
                               rtol=1e-6)
    for fill_mode in ("constant", "nearest", "wrap", "mirror", "reflect"):
        model = lamina.Model([image, coords], ops.image.map_coordinates(
            image, coords, 1, fill_mode=fill_mode, fill_value=-1.0))
        for shape in ((4, 6), (1, 3), (3, 1)):
            x = np.random.RandomState(len(fill_mode)).rand(*shape).astype("float32")
            points = (np.random.RandomState(shape[0]).rand(2, 2, 2) * 14 - 4).astype("float32")
            eager = ops.image.map_coordinates(x, points, 1, fill_mode=fill_mode,
                                              fill_value=-1.0).numpy()
            np.testing.assert_array_equal(lamina.jit(model)([x, points]).numpy(), eager)
