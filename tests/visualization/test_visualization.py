"""keras.visualization: draw_segmentation_masks against Keras 3.15.1's numbers; boxes
drawn where their format puts them; the galleries' grids, titles and files."""
import sys

import numpy as np
import pytest

pytest.importorskip("PIL")
pytest.importorskip("matplotlib")

from lamina import visualization
from lamina.utils.box_formats import to_xyxy

IMAGES = (np.arange(2 * 3 * 3 * 3).reshape(2, 3, 3, 3) * 5 % 256).astype("float32")
MASKS = np.array([[0, 1, 2], [2, -1, 0], [1, 1, 3]] * 2).reshape(2, 3, 3, 1).astype("int32")
MASKS[1] = MASKS[1][::-1]

# keras.visualization.draw_segmentation_masks(IMAGES, MASKS, ...).ravel()
KERAS_4_CLASSES = [0, 1, 2, 3, 105, 29, 7, 210, 57, 10, 213, 60, 60, 65, 70, 15, 16, 17, 18,
                   120, 44, 21, 123, 47, 26, 125, 100, 27, 129, 53, 30, 132, 56, 35, 134, 109,
                   37, 240, 87, 195, 200, 205, 42, 43, 44, 45, 46, 47, 48, 150, 74, 52, 204,
                   51]
KERAS_DEFAULT_CLASSES = KERAS_4_CLASSES[:24] + [120, 125, 130] + KERAS_4_CLASSES[27:33] + \
    [165, 170, 175] + KERAS_4_CLASSES[36:]
KERAS_MAPPING_HALF = [127, 2, 5, 7, 137, 12, 15, 17, 147, 22, 25, 155, 60, 65, 70, 165, 40,
                      42, 45, 175, 50, 52, 182, 57, 64, 67, 69, 67, 197, 72, 75, 205, 80, 87,
                      89, 92, 90, 92, 222, 195, 200, 205, 232, 107, 110, 240, 115, 117, 120,
                      250, 125, 127, 2, 132]
KERAS_NO_BLEND = [0, 0, 0, 1, 127, 31, 2, 254, 62, 2, 254, 62, 60, 65, 70, 0, 0, 0, 1, 127,
                  31, 1, 127, 31, 3, 126, 93, 1, 127, 31, 1, 127, 31, 3, 126, 93, 2, 254, 62,
                  195, 200, 205, 0, 0, 0, 0, 0, 0, 1, 127, 31, 2, 254, 62]


def test_draw_segmentation_masks_matches_keras():
    draw = visualization.draw_segmentation_masks
    out = draw(IMAGES, MASKS, num_classes=4)
    assert out.dtype == np.uint8 and out.shape == (2, 3, 3, 3)
    np.testing.assert_array_equal(out.ravel(), KERAS_4_CLASSES)
    np.testing.assert_array_equal(draw(IMAGES, MASKS).ravel(), KERAS_DEFAULT_CLASSES)
    mapping = {0: (255, 0, 0), 1: (0, 255, 0), 2: (0, 0, 255), 3: (9, 9, 9)}
    np.testing.assert_array_equal(draw(IMAGES, MASKS, num_classes=4, color_mapping=mapping,
                                       alpha=0.5).ravel(), KERAS_MAPPING_HALF)
    np.testing.assert_array_equal(draw(IMAGES, MASKS, num_classes=4, blend=False).ravel(),
                                  KERAS_NO_BLEND)
    first = draw(IMAGES.transpose(0, 3, 1, 2), MASKS.transpose(0, 3, 1, 2), num_classes=4,
                 data_format="channels_first")
    np.testing.assert_array_equal(first.ravel(), KERAS_4_CLASSES)
    with pytest.raises(TypeError, match="'segmentation_masks' must have an integer dtype"):
        draw(IMAGES, MASKS.astype("float32"))
    with pytest.raises(ValueError, match="'images' must be a batch of rank 4"):
        draw(IMAGES[0], MASKS[0])


@pytest.mark.parametrize("fmt,box", [
    ("xyxy", [10, 5, 40, 30]), ("yxyx", [5, 10, 30, 40]), ("xywh", [10, 5, 30, 25]),
    ("center_xywh", [25, 17.5, 30, 25]), ("center_yxhw", [17.5, 25, 25, 30]),
    ("rel_xyxy", [10 / 60, 5 / 40, 40 / 60, 30 / 40]),
    ("rel_yxyx", [5 / 40, 10 / 60, 30 / 40, 40 / 60]),
    ("rel_xywh", [10 / 60, 5 / 40, 30 / 60, 25 / 40]),
    ("rel_center_xywh", [25 / 60, 17.5 / 40, 30 / 60, 25 / 40])])
def test_box_formats_become_the_same_corners(fmt, box):
    np.testing.assert_allclose(to_xyxy("t", [box], fmt, height=40, width=60),
                               [[10, 5, 40, 30]], rtol=1e-6)


def test_draw_bounding_boxes_outlines_each_box():
    images = np.zeros((2, 40, 60, 3), "float32")
    boxes = {"boxes": np.array([[[10, 5, 40, 30], [0, 0, 5, 5]],
                                [[0.1, 0.1, 0.5, 0.5], [0, 0, 0, 0]]], "float32"),
             "labels": np.array([[0, -1], [1, -1]])}
    out = visualization.draw_bounding_boxes(images, boxes, "xyxy", color=(255, 0, 0),
                                            line_thickness=1)
    assert out.dtype == np.uint8 and out.shape == images.shape
    edge = out[0, 5, 10:41]                                   # the top edge, x 10..40
    np.testing.assert_array_equal(edge, [[255, 0, 0]] * 31)
    np.testing.assert_array_equal(out[0, 5:31, 40], [[255, 0, 0]] * 26)   # right edge
    assert out[0, 6:30, 11:40].max() == 0                     # inside untouched
    assert out[0, :, :, 1:].max() == 0 and out[0, 0:5, 0:6].max() == 0    # -1 is padding
    np.testing.assert_array_equal(out[1, 0, 0], [255, 0, 0])   # 0.1..0.5 px: pixel (0, 0)
    labelled = visualization.draw_bounding_boxes(
        images, {**boxes, "confidences": np.ones((2, 2))}, "xyxy",
        class_mapping={0: "cat"}, color=(0, 255, 0))
    outline_only = visualization.draw_bounding_boxes(images, boxes, "xyxy",
                                                     color=(0, 255, 0))
    assert (labelled[0] != outline_only[0]).any()            # the text "cat | 1.00"
    np.testing.assert_array_equal(labelled[1], outline_only[1])   # no mapping for 1
    gray = visualization.draw_bounding_boxes(np.ones((1, 20, 20, 1)), {
        "boxes": [[[2, 2, 10, 10]]], "labels": [[0]]}, "xyxy", color=(200, 0, 0))
    assert gray.shape == (1, 20, 20, 1) and gray[0, 2, 5, 0] == 200 and gray[0, 5, 5, 0] == 255


def test_draw_bounding_boxes_errors():
    images = np.zeros((1, 8, 8, 3))
    draw = visualization.draw_bounding_boxes
    with pytest.raises(TypeError, match="'bounding_boxes' must be a dict"):
        draw(images, [[0, 0, 1, 1]], "xyxy")
    with pytest.raises(ValueError, match="must have the keys 'boxes' and 'labels'"):
        draw(images, {"boxes": [[[0, 0, 1, 1]]]}, "xyxy")
    with pytest.raises(ValueError, match="'bounding_box_format' must be one of"):
        draw(images, {"boxes": [[[0, 0, 1, 1]]], "labels": [[0]]}, "xyzw")
    with pytest.raises(ValueError, match="boxes must have a last dimension of 4"):
        draw(images, {"boxes": [[[0, 0, 1]]], "labels": [[0]]}, "xyxy")
    with pytest.raises(ValueError, match="relative format 'rel_xyxy' needs the image"):
        to_xyxy("t", [[0, 0, 1, 1]], "rel_xyxy")


def test_image_gallery_grid_titles_and_file(tmp_path):
    images = np.random.RandomState(0).rand(5, 8, 8, 3)
    path = tmp_path / "gallery.png"
    figure = visualization.plot_image_gallery(images, y_true=np.array([0, 1, 0, 1, 0]),
                                              y_pred=[1, 1, 0, 0, 0],
                                              label_map={0: "cat", 1: "dog"},
                                              value_range=(0, 1), path=str(path))
    assert path.read_bytes()[:4] == b"\x89PNG"
    assert len(figure.axes) == 3        # Keras: rows = ceil(sqrt(5)) = 3, cols = 5 // 3
    assert [ax.get_title() for ax in figure.axes] == [
        "Label: cat  Pred: dog", "Label: dog  Pred: dog", "Label: cat  Pred: cat"]
    shown = figure.axes[0].get_images()[0].get_array()
    np.testing.assert_array_equal(shown, (images[0] * 255).astype("uint8"))
    figure = visualization.plot_image_gallery(np.zeros((4, 3, 8, 8)), rows=2, cols=2,
                                              data_format="channels_first", path=str(path))
    assert len(figure.axes) == 4 and figure.axes[0].get_images()[0].get_array().shape == \
        (8, 8, 3)
    with pytest.raises(ValueError, match="pass either 'path' or show=True"):
        visualization.plot_image_gallery(images, path="a.png", show=True)
    with pytest.raises(ValueError, match="'y_true' or 'y_pred' needs a 'label_map'"):
        visualization.plot_image_gallery(images, y_true=[0], path="a.png")
    with pytest.raises(ValueError, match="a 3x3 gallery needs 9 images; received 5"):
        visualization.plot_image_gallery(images, rows=3, cols=3, path="a.png")


def test_box_and_mask_galleries(tmp_path):
    images = np.zeros((2, 16, 16, 3))
    truth = {"boxes": [[[1, 1, 8, 8]], [[2, 2, 9, 9]]], "labels": [[0], [0]]}
    figure = visualization.plot_bounding_box_gallery(
        images, "xyxy", y_true=truth, y_pred=truth, legend=True, rows=1, cols=2,
        path=str(tmp_path / "boxes.png"), true_color=(0, 188, 212))
    assert len(figure.axes) == 2 and (tmp_path / "boxes.png").exists()
    assert [t.get_text() for t in figure.legends[0].get_texts()] == ["Ground Truth",
                                                                     "Prediction"]
    drawn = figure.axes[0].get_images()[0].get_array()
    np.testing.assert_array_equal(drawn[1, 4], [255, 235, 59])     # prediction on top
    with pytest.raises(ValueError, match="pass 'legend' or 'legend_handles', not both"):
        visualization.plot_bounding_box_gallery(images, "xyxy", legend=True,
                                                legend_handles=[1], path="a.png")
    masks = np.zeros((2, 16, 16, 1), "int32")
    masks[:, 4:, 4:] = 2
    figure = visualization.plot_segmentation_mask_gallery(
        images, 3, y_true=masks, y_pred=masks, path=str(tmp_path / "masks.png"))
    assert len(figure.axes) == 6                         # 2 rows: image, truth, prediction
    truth_drawn = figure.axes[1].get_images()[0].get_array()
    np.testing.assert_array_equal(truth_drawn[8, 8],
                                  (np.array([2 ** 25 - 1, 2 ** 15 - 1, 2 ** 21 - 1]) * 2
                                   % 255 * 0.8).astype("uint8"))


def test_missing_extras_are_named(monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    monkeypatch.setitem(sys.modules, "matplotlib.figure", None)
    with pytest.raises(ImportError, match=r"plot_image_gallery needs .*lamina\[plots\]"):
        visualization.plot_image_gallery(np.zeros((1, 2, 2, 3)), path="a.png")
    monkeypatch.setitem(sys.modules, "PIL", None)
    monkeypatch.setitem(sys.modules, "PIL.ImageDraw", None)
    with pytest.raises(ImportError, match=r"draw_bounding_boxes needs .*lamina\[images\]"):
        visualization.draw_bounding_boxes(np.zeros((1, 2, 2, 3)), {}, "xyxy")
