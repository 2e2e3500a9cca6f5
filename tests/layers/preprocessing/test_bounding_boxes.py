"""Bounding boxes (and segmentation masks) through the image layers: Keras 3.15.1's box
formats and each layer's ``transform_bounding_boxes``, checked against Keras's numbers
(computed with Keras 3.15.1, JAX backend, or taken from Keras's own tests)."""
import numpy as np
import pytest

import lamina
from lamina import layers
from lamina.layers.preprocessing.bounding_boxes.formats import (
    clip_to_image_size, convert_format
)

BOXES = {"boxes": np.array([[2, 1, 4, 3], [6, 4, 8, 6]]), "labels": np.array([[1, 2]])}
IMAGE = np.random.default_rng(0).random((10, 8, 3)).astype("float32")


def _boxes(out):
    return out["bounding_boxes"]["boxes"].numpy()


# keras.utils.bounding_boxes.convert_format([[2, 1, 6, 4]], "xyxy", f, height=10, width=8)
KERAS_FORMATS = {
    "yxyx": [1.0, 2.0, 4.0, 6.0], "xywh": [2.0, 1.0, 4.0, 3.0],
    "center_xywh": [4.0, 2.5, 4.0, 3.0], "center_yxhw": [2.5, 4.0, 3.0, 4.0],
    "rel_xyxy": [0.25, 0.1, 0.75, 0.4], "rel_yxyx": [0.1, 0.25, 0.4, 0.75],
    "rel_xywh": [0.25, 0.1, 0.5, 0.3], "rel_center_xywh": [0.5, 0.25, 0.5, 0.3]}


@pytest.mark.parametrize("target", sorted(KERAS_FORMATS))
def test_convert_format_matches_keras_and_round_trips(target):
    box = np.array([[2.0, 1.0, 6.0, 4.0]], "float32")
    got = convert_format(box, "xyxy", target, height=10, width=8).numpy()
    np.testing.assert_allclose(got, [KERAS_FORMATS[target]], rtol=1e-6)
    back = convert_format(got, target, "xyxy", height=10, width=8).numpy()
    np.testing.assert_allclose(back, box, rtol=1e-6)


def test_convert_format_between_relative_formats_and_clip_match_keras():
    got = convert_format(np.array([[0.25, 0.1, 0.5, 0.3]], "float32"), "rel_xywh",
                         "center_yxhw", height=10, width=8)
    np.testing.assert_allclose(got.numpy(), [[2.5, 4.0, 3.0, 4.0]], rtol=1e-6)
    clipped = clip_to_image_size({"boxes": np.array([[-2., 1., 6., 14.], [9., 9., 12., 12.]],
                                                    "float32"), "labels": np.array([3, 4])},
                                 height=10, width=8)
    np.testing.assert_allclose(clipped["boxes"].numpy(), [[0, 1, 6, 10], [8, 9, 8, 10]])
    np.testing.assert_array_equal(clipped["labels"].numpy(), [3, -1])


def test_format_errors_name_the_argument():
    with pytest.raises(ValueError, match=r"r: argument 'bounding_box_format' must be one of "
                       r"xyxy, .*received 'xy'"):
        layers.Resizing(4, 4, bounding_box_format="xy", name="r")
    with pytest.raises(ValueError, match="must receive `height` and `width`"):
        convert_format(np.zeros((1, 4)), "xyxy", "rel_xyxy")
    with pytest.raises(ValueError, match=r"c: you passed an input with a 'bounding_boxes' "
                       r"key, but you didn't specify a bounding box format"):
        layers.CenterCrop(4, 4, name="c")({"images": IMAGE, "bounding_boxes": BOXES})
    with pytest.raises(ValueError, match=r"c2: expected `bounding_boxes` to be a dict with "
                       r"keys 'boxes' and 'labels'"):
        layers.CenterCrop(4, 4, bounding_box_format="xyxy", name="c2")(
            {"images": IMAGE, "bounding_boxes": {"boxes": BOXES["boxes"]}})
    with pytest.raises(NotImplementedError, match=r"rr: RandomRotation does not transform "
                       r"bounding boxes"):
        layers.RandomRotation(0.2, bounding_box_format="xyxy", name="rr")(
            {"images": IMAGE, "bounding_boxes": BOXES})


@pytest.mark.parametrize("kwargs, expected", [       # Keras's resizing_test numbers
    (dict(pad_to_aspect_ratio=True), [[6.0, 2.0, 10.0, 6.0], [14.0, 8.0, 18.0, 12.0]]),
    (dict(crop_to_aspect_ratio=True), [[5.0, 0.5, 10.0, 5.5], [15.0, 8.0, 20.0, 13.0]]),
    (dict(), [[5.0, 2.0, 10.0, 6.0], [15.0, 8.0, 20.0, 12.0]]),
])
def test_resizing_moves_boxes_like_keras(kwargs, expected):
    layer = layers.Resizing(20, 20, bounding_box_format="xyxy", **kwargs)
    out = layer({"images": IMAGE, "bounding_boxes": dict(BOXES)})
    np.testing.assert_allclose(_boxes(out), expected, rtol=1e-6)
    assert tuple(out["images"].shape) == (20, 20, 3)


def test_resizing_converts_other_formats_and_resizes_masks_nearest():
    # Keras: Resizing(20, 20, bounding_box_format="center_xywh") on a (10, 8, 3) image
    layer = layers.Resizing(20, 20, bounding_box_format="center_xywh")
    masks = np.arange(80, dtype="float32").reshape(10, 8, 1)
    out = layer({"images": IMAGE, "segmentation_masks": masks, "bounding_boxes": {
        "boxes": np.array([[3., 2., 2., 2.], [7., 5., 2., 2.]]), "labels": np.array([1, 2])}})
    np.testing.assert_allclose(_boxes(out), [[7.5, 4.0, 5.0, 4.0], [17.5, 10.0, 5.0, 4.0]])
    mask = out["segmentation_masks"].numpy()
    assert mask.shape == (20, 20, 1) and set(np.unique(mask)) <= set(masks.ravel())


@pytest.mark.parametrize("size, expected", [         # Keras's center_crop_test numbers
    (5, [[1.0, 0.0, 3.0, 1.0], [5.0, 2.0, 5.0, 4.0]]),
    (20, [[5.0, 0.0, 10.0, 5.0], [15.0, 7.5, 20.0, 12.5]]),
])
def test_center_crop_moves_boxes_like_keras(size, expected):
    layer = layers.CenterCrop(size, size, bounding_box_format="xyxy")
    out = layer({"images": IMAGE, "bounding_boxes": dict(BOXES)})
    np.testing.assert_allclose(_boxes(out), expected, rtol=1e-6)


def test_random_flip_boxes_follow_the_drawn_flips():
    layer = layers.RandomFlip("horizontal", bounding_box_format="xyxy")
    t = {"flips": np.array([[[[True]]], [[[False]]]]), "input_shape": (2, 10, 8, 3)}
    boxes = {"boxes": np.array([[[2., 1., 4., 3.]], [[2., 1., 4., 3.]]]),
             "labels": np.array([[1], [2]])}
    got = layer.transform_bounding_boxes(boxes, t, training=True)["boxes"].numpy()
    np.testing.assert_allclose(got, [[[4, 1, 6, 3]], [[2, 1, 4, 3]]])      # Keras's numbers
    # through a call: the boxes and masks move with the images they belong to
    images = np.stack([IMAGE] * 4)
    out = layers.RandomFlip("horizontal", seed=3, bounding_box_format="xyxy")(
        {"images": images, "segmentation_masks": images,
         "bounding_boxes": {"boxes": np.tile([[[2., 1., 4., 3.]]], (4, 1, 1)),
                            "labels": np.ones((4, 1))}})
    flipped = np.all(out["images"].numpy() == images[:, :, ::-1], axis=(1, 2, 3))
    assert flipped.any() and not flipped.all()
    np.testing.assert_array_equal(out["segmentation_masks"].numpy(), out["images"].numpy())
    np.testing.assert_allclose(_boxes(out)[:, 0],
                               np.where(flipped[:, None], [4, 1, 6, 3], [2, 1, 4, 3]))


def test_translation_boxes_match_keras():
    layer = layers.RandomTranslation(0.5, 0.5, bounding_box_format="xyxy")
    boxes = {"boxes": np.array([[[2., 1., 4., 3.]], [[6., 4., 8., 6.]]]),
             "labels": np.array([[1], [2]])}
    t = {"translations": np.array([[1.0, 2.0], [-7.0, 0.0]]), "input_shape": (2, 10, 8, 3)}
    got = layer.transform_bounding_boxes(boxes, t)
    np.testing.assert_allclose(got["boxes"].numpy(), [[[3, 3, 5, 5]], [[0, 4, 1, 6]]])
    np.testing.assert_array_equal(got["labels"].numpy(), [[1], [2]])


@pytest.mark.parametrize("zoom, expected", [          # Keras's random_zoom_test numbers
    (0.1, [[[0.0, 0.0, 8.0, 0.0], [8.0, 0.0, 8.0, 10.0]]]),
    (1.9, [[[2.710526, 2.657895, 3.763158, 3.710526],
            [4.815789, 4.236842, 5.868421, 5.289474]]]),
])
def test_zoom_boxes_match_keras(zoom, expected):
    layer = layers.RandomZoom((0.5, 0.5), bounding_box_format="xyxy")
    t = {"height_zoom": np.array([[zoom]]), "width_zoom": np.array([[zoom]]),
         "input_shape": (10, 8, 3)}
    got = layer.transform_bounding_boxes(dict(BOXES), t)["boxes"].numpy()
    np.testing.assert_allclose(got, expected, rtol=1e-5)


@pytest.mark.parametrize("shear, expected", [         # Keras's random_shear_test numbers
    ([[1.0, 0.0]], [[[0.0, 1.0, 3.2, 3.0], [1.2, 4.0, 4.8, 6.0]]]),
    ([[0.0, 1.0]], [[[2.0, 0.0, 4.0, 0.5], [6.0, 0.0, 8.0, 0.0]]]),
    ([[1.0, 1.0]], [[[0.0, 0.0, 3.2, 3.5], [1.2, 0.0, 4.8, 4.5]]]),
])
def test_shear_boxes_match_keras(shear, expected):
    layer = layers.RandomShear(0.5, 0.5, bounding_box_format="xyxy")
    t = {"shear_factor": np.array(shear), "input_shape": (10, 8, 3)}
    got = layer.transform_bounding_boxes(dict(BOXES), t)["boxes"].numpy()
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)


def test_perspective_boxes_match_keras():
    layer = layers.RandomPerspective(bounding_box_format="xyxy")
    t = {"apply_perspective": np.array([True]), "input_shape": np.array((10, 8, 3)),
         "start_points": np.array([[[0.0, 0.0], [7.0, 0.0], [0.0, 9.0], [7.0, 9.0]]]),
         "end_points": np.array([[[0.0, 0.0], [8.151311, 0.0], [0.0, 12.695701],
                                  [9.2712054, 10.524198]]])}
    boxes = {"boxes": np.array([[[2, 1, 4, 3], [6, 4, 8, 6]]]), "labels": np.array([[1, 2]])}
    got = layer.transform_bounding_boxes(boxes, t)["boxes"].numpy()
    np.testing.assert_allclose(got, [[[2.6490488, 1.1149256, 5.2026834, 3.6187303],
                                      [7.5547166, 4.2492595, 8.0, 6.869391]]], atol=1e-3)


def test_mix_up_boxes_and_a_call_with_boxes():
    layer = layers.MixUp(seed=1, bounding_box_format="xyxy")
    t = {"mix_weight": np.array([0.5, 0.5]), "permutation_order": np.array([1, 0])}
    got = layer.transform_bounding_boxes({"boxes": BOXES["boxes"],
                                          "labels": np.array([1, 2])}, t)
    np.testing.assert_allclose(got["boxes"].numpy(), [[2, 1, 4, 3, 6, 4, 8, 6],
                                                      [6, 4, 8, 6, 2, 1, 4, 3]])
    out = layer({"images": np.stack([IMAGE] * 2), "bounding_boxes": {
        "boxes": np.zeros((2, 3, 4)), "labels": np.zeros((2, 3))}})
    assert tuple(_boxes(out).shape) == (2, 6, 4)


def test_colour_layers_keep_boxes_and_masks_and_the_config_keeps_the_format():
    data = {"images": np.random.default_rng(1).random((2, 4, 5, 3)),
            "labels": np.arange(2.0), "segmentation_masks": np.ones((2, 4, 5, 7)),
            "bounding_boxes": {"boxes": np.array([[1, 2, 2, 3]]), "labels": np.array([0])}}
    for layer in (layers.RandomBrightness(0.1, bounding_box_format="xyxy"),
                  layers.RandomContrast(0.1, bounding_box_format="xyxy")):
        out = layer(dict(data))
        np.testing.assert_array_equal(_boxes(out), [[1, 2, 2, 3]])
        np.testing.assert_array_equal(out["segmentation_masks"].numpy(), np.ones((2, 4, 5, 7)))
        np.testing.assert_array_equal(out["labels"].numpy(), np.arange(2.0))
        config = layer.get_config()
        assert config["bounding_box_format"] == "xyxy"
        assert type(layer).from_config(config).bounding_box_format == "xyxy"


def test_layer_backend_is_the_op_namespaces():
    layer = layers.RandomFlip()
    assert layer.backend.random is lamina.random and layer.backend.numpy is lamina.ops
    assert tuple(layer.backend.shape(IMAGE)) == (10, 8, 3)


def test_random_crop_refuses_dict_inputs_by_name():
    with pytest.raises(NotImplementedError, match=r"rc: dict inputs are not supported by "
                       r"RandomCrop in Lamina"):
        layers.RandomCrop(3, 3, name="rc")({"images": IMAGE})

