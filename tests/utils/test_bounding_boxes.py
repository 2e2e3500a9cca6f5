"""keras.utils.bounding_boxes against Keras 3.15.1's numbers (JAX backend), rounded to 5
decimals."""
import numpy as np
import pytest

from lamina.utils import bounding_boxes as B

BOXES = np.array([[[10, 20, 50, 60], [0, 5, 30, 15]], [[-5, 2, 70, 30], [40, 40, 45, 48]]],
                 "float32")
ANCHORS = np.array([[0, 0, 10, 10], [5, 5, 25, 15], [10, 0, 20, 40]], "float32")
TRUTH = np.array([[1, 2, 9, 12], [4, 6, 28, 16], [12, 1, 18, 30]], "float32")

KERAS_FORMATS = {
    "yxyx": [[[20, 10, 60, 50], [5, 0, 15, 30]], [[2, -5, 30, 70], [40, 40, 48, 45]]],
    "xywh": [[[10, 20, 40, 40], [0, 5, 30, 10]], [[-5, 2, 75, 28], [40, 40, 5, 8]]],
    "center_xywh": [[[30, 40, 40, 40], [15, 10, 30, 10]], [[32.5, 16, 75, 28],
                                                           [42.5, 44, 5, 8]]],
    "center_yxhw": [[[40, 30, 40, 40], [10, 15, 10, 30]], [[16, 32.5, 28, 75],
                                                           [44, 42.5, 8, 5]]],
    "rel_xyxy": [[[0.15625, 0.4, 0.78125, 1.2], [0.0, 0.1, 0.46875, 0.3]],
                 [[-0.07812, 0.04, 1.09375, 0.6], [0.625, 0.8, 0.70312, 0.96]]],
    "rel_yxyx": [[[0.4, 0.15625, 1.2, 0.78125], [0.1, 0.0, 0.3, 0.46875]],
                 [[0.04, -0.07812, 0.6, 1.09375], [0.8, 0.625, 0.96, 0.70312]]],
    "rel_xywh": [[[0.15625, 0.4, 0.625, 0.8], [0.0, 0.1, 0.46875, 0.2]],
                 [[-0.07812, 0.04, 1.17188, 0.56], [0.625, 0.8, 0.07812, 0.16]]],
    "rel_center_xywh": [[[0.46875, 0.8, 0.625, 0.8], [0.23438, 0.2, 0.46875, 0.2]],
                        [[0.50781, 0.32, 1.17188, 0.56], [0.66406, 0.88, 0.07812, 0.16]]],
}


def close(actual, expected):
    np.testing.assert_allclose(np.asarray(actual, "float64"), expected, atol=2e-5)


@pytest.mark.parametrize("target", sorted(KERAS_FORMATS))
def test_convert_format_matches_keras_and_round_trips(target):
    out = B.convert_format(BOXES, "xyxy", target, height=50, width=64)
    assert out.dtype == np.float32
    close(out, KERAS_FORMATS[target])
    close(B.convert_format(out, target, "xyxy", height=50, width=64), BOXES)


def test_convert_format_dicts_relative_pairs_and_errors():
    close(B.convert_format(np.array([[0.1, 0.2, 0.5, 0.6]]), "rel_xyxy", "rel_center_xywh",
                           height=50, width=64), [[0.3, 0.4, 0.4, 0.4]])
    boxes = {"boxes": BOXES[0], "labels": np.array([1, 2])}
    out = B.convert_format(boxes, "xyxy", "xywh")
    close(out["boxes"], KERAS_FORMATS["xywh"][0])
    assert list(out["labels"]) == [1, 2]
    with pytest.raises(ValueError, match="argument 'target' must be one of"):
        B.convert_format(BOXES, "xyxy", "xyzw")
    with pytest.raises(ValueError, match="relative and absolute formats needs 'height'"):
        B.convert_format(BOXES, "xyxy", "rel_xyxy")
    with pytest.raises(ValueError, match="boxes must have a last dimension of 4"):
        B.convert_format(np.zeros((2, 3)), "xyxy", "yxyx")


def test_clip_crop_pad_match_keras():
    out = B.clip_to_image_size({"boxes": BOXES, "labels": np.array([[1, 2], [3, 4]])},
                               height=50, width=64)
    close(out["boxes"], [[[10, 20, 50, 50], [0, 5, 30, 15]], [[0, 2, 64, 30],
                                                              [40, 40, 45, 48]]])
    np.testing.assert_array_equal(out["labels"], [[1, 2], [3, 4]])
    out = B.clip_to_image_size({"boxes": np.array([[1.2, 0.5, 1.5, 0.9],
                                                   [0.1, -0.2, 0.5, 0.5]], "float32"),
                                "labels": np.array([1, 2])}, bounding_box_format="rel_xyxy")
    close(out["boxes"], [[1.0, 0.5, 1.0, 0.9], [0.1, 0.0, 0.5, 0.5]])
    np.testing.assert_array_equal(out["labels"], [-1, 2])      # no area left: label -1
    close(B.crop(BOXES, 5, 8, 40, 32), [[[2, 15, 32, 40], [0, 0, 22, 10]],
                                        [[0, 0, 32, 25], [32, 35, 32, 40]]])
    close(B.pad(BOXES, 5, 8), [[[18, 25, 58, 65], [8, 10, 38, 20]],
                               [[3, 7, 78, 35], [48, 45, 53, 53]]])
    with pytest.raises(ValueError, match="'height' and 'width' must be set"):
        B.clip_to_image_size({"boxes": BOXES})
    with pytest.raises(NotImplementedError, match="must be 'xyxy' or 'rel_xyxy'"):
        B.clip_to_image_size({"boxes": BOXES}, 5, 5, bounding_box_format="xywh")
    for fn, args in ((B.crop, (0, 0, 5, 5)), (B.pad, (0, 0))):
        with pytest.raises(NotImplementedError, match="only bounding_box_format='xyxy'"):
            fn(BOXES, *args, bounding_box_format="yxyx")


def test_affine_transform_matches_keras():
    out = B.affine_transform(BOXES, np.array([30., -10.]), np.array([0.1, 0.]),
                             np.array([0., -0.2]), np.array([1.2, 0.9]), np.array([5., 0.]),
                             np.array([0., 10.]), 50, 64)
    np.testing.assert_allclose(out, [[[11.79665, 4.94346, 83.10244, 70.51268],
                                      [-9.4844, 1.35501, 30.17652, 29.74731]],
                                     [[-0.17891, -14.64695, 70.67154, 32.84111],
                                      [36.89269, 32.05181, 42.5746, 40.4848]]], atol=1e-3)
    out = B.affine_transform(BOXES, np.array([90., 0.]), np.zeros(2), np.zeros(2), np.ones(2),
                             np.zeros(2), np.zeros(2), 50, 64, center_x=0.25, center_y=0.75)
    np.testing.assert_allclose(out, [[[-1, 2.5, 39, 42.5], [-16, 22.5, -6, 52.5]],
                                     [[-5, 2, 70, 30], [40, 40, 45, 48]]], atol=1e-3)
    with pytest.raises(NotImplementedError, match="affine_transform: only"):
        B.affine_transform(BOXES, *[np.zeros(2)] * 6, 5, 5, bounding_box_format="xywh")


def test_deltas_match_keras_and_invert():
    deltas = B.encode_box_to_deltas(ANCHORS, TRUTH, "xyxy", "xyxy")
    close(deltas, [[0.2, 0.0, 0.0, -0.22314], [0.1, 0.05, 0.0, 0.18232],
                   [-0.1125, 0.0, -0.32158, -0.51083]])
    close(B.encode_box_to_deltas(ANCHORS, TRUTH, "xyxy", "xywh", encoding_format="center_xywh",
                                 variance=[0.1, 0.1, 0.2, 0.2]),
          [[0.5, 3.0, -0.5268, 0.91161], [1.5, 4.0, 1.68236, 2.35002],
           [6.0, -1.0, 2.93893, -1.43841]])
    np.testing.assert_allclose(
        B.encode_box_to_deltas(ANCHORS, TRUTH, "xyxy", "rel_xyxy", image_shape=(40, 50, 3)),
        [[27.5, 24.5, 3.68888, 3.68888], [43.0, 39.25, 3.68888, 4.09434],
         [15.0, 73.5, 3.3673, 3.4012]], atol=1e-4)
    close(B.decode_deltas_to_boxes(ANCHORS, deltas, "xyxy", "xyxy"), TRUTH)
    levels = B.decode_deltas_to_boxes({"p3": ANCHORS}, {"p3": deltas}, "xyxy", "yxyx",
                                      variance=[0.1, 0.1, 0.2, 0.2])
    close(levels["p3"], [[0.2, 0.21824, 10.2, 9.78176], [5.1, 4.72863, 15.1, 25.47137],
                         [0.79584, 10.4856, 38.30416, 19.5144]])
    with pytest.raises(ValueError, match="'variance' must have length 4"):
        B.encode_box_to_deltas(ANCHORS, TRUTH, "xyxy", "xyxy", variance=[1, 1])
    with pytest.raises(ValueError, match="argument 'encoding_format' must be 'center_xywh'"):
        B.encode_box_to_deltas(ANCHORS, TRUTH, "xyxy", "xyxy", encoding_format="xyxy")
    with pytest.raises(ValueError, match="argument 'encoded_format' must be 'center_xywh'"):
        B.decode_deltas_to_boxes(ANCHORS, deltas, "xyxy", "xyxy", encoded_format="xywh")


def test_iou_matches_keras():
    close(B.compute_iou(ANCHORS, TRUTH, "xyxy"), [[0.55172, 0.07595, 0.0],
                                                  [0.11111, 0.69231, 0.19108],
                                                  [0.0, 0.18519, 0.435]])
    close(B.compute_iou(BOXES, BOXES[:, ::-1], "xyxy"), [[[0, 1], [1, 0]], [[0, 1], [1, 0]]])
    close(B.compute_iou(np.array([[0, 0, 10, 10], [-1, -1, -1, -1]], "float32"), TRUTH,
                        "xyxy", use_masking=True, mask_val=-7),
          [[0.55172, 0.07595, 0.0], [-7, -7, -7]])
    close(B.compute_iou(np.array([[0, 0, 0.5, 0.5]]), np.array([[0.25, 0.25, 0.75, 0.75]]),
                        "rel_xyxy", image_shape=(20, 40, 3)), [[0.14286]])
    close(B.compute_iou(ANCHORS, BOXES, "xyxy"),
          [[[0.0, 0.14286], [0.0, 0.66667], [0.11111, 0.16667]],
           [[0.03774, 0.0], [0.09524, 0.0], [0.12613, 0.0]]])
    close(B.compute_ciou(ANCHORS, TRUTH, "xyxy"), [0.53528, 0.68943, 0.42309])
    close(B.compute_ciou(ANCHORS, TRUTH, "center_xywh"), [0.56369, 0.78529, 0.61199])
    with pytest.raises(ValueError, match="'boxes1' must have rank 2"):
        B.compute_iou(ANCHORS[0], TRUTH, "xyxy")
    with pytest.raises(ValueError, match="relative format 'rel_xyxy' needs 'image_shape'"):
        B.compute_iou(ANCHORS, TRUTH, "rel_xyxy")
    with pytest.raises(ValueError, match="compute_ciou: relative formats are not supported"):
        B.compute_ciou(ANCHORS, TRUTH, "rel_xyxy")
