"""keras.utils.load_img / img_to_array / array_to_img / save_img / smart_resize against
numbers Keras 3.15.1 gave for the same image (Pillow underneath, as Keras's)."""
import io
import sys

import numpy as np
import pytest

pytest.importorskip("PIL")

from lamina.preprocessing import image as preprocessing_image
from lamina.utils import array_to_img, img_to_array, load_img, save_img
from lamina.utils.image_utils import smart_resize

SMALL = (np.arange(4 * 6 * 3).reshape(4, 6, 3) * 7 % 256).astype("uint8")

# keras.utils.img_to_array(keras.utils.load_img("small.png", **kwargs)).ravel()
KERAS_LOADS = [
    (dict(target_size=(3, 3)), (3, 3, 3),
     [21, 28, 35, 63, 70, 77, 105, 112, 119, 17, 24, 31, 59, 66, 73, 101, 108, 115, 143, 150,
      157, 185, 192, 199, 227, 234, 241]),
    (dict(target_size=(3, 3), interpolation="bilinear"), (3, 3, 3),
     [53, 60, 67, 91, 98, 105, 128, 135, 142, 131, 83, 90, 114, 121, 128, 151, 158, 165, 132,
      106, 113, 137, 144, 151, 174, 181, 188]),
    (dict(target_size=(2, 2), keep_aspect_ratio=True, interpolation="bilinear"), (2, 2, 3),
     [90, 92, 99, 127, 134, 141, 114, 108, 115, 143, 150, 157]),
    (dict(color_mode="grayscale"), (4, 6, 1),
     [6, 27, 48, 69, 90, 111, 132, 153, 174, 195, 216, 237, 78, 23, 44, 65, 86, 107, 128,
      149, 170, 191, 212, 233]),
]


@pytest.fixture
def small_png(tmp_path):
    path = tmp_path / "small.png"
    save_img(str(path), SMALL, scale=False)
    return path


def test_save_then_load_round_trips_the_pixels(small_png):
    img = load_img(str(small_png))
    assert img.mode == "RGB" and img.size == (6, 4)
    x = img_to_array(img)
    assert x.dtype == np.float32 and x.shape == (4, 6, 3)
    np.testing.assert_array_equal(x, SMALL)


@pytest.mark.parametrize("kwargs,shape,expected", KERAS_LOADS)
def test_load_img_matches_keras(small_png, kwargs, shape, expected):
    x = img_to_array(load_img(small_png, **kwargs))     # a pathlib.Path works too
    assert x.shape == shape
    np.testing.assert_array_equal(x.ravel(), expected)


def test_load_img_rgba_and_bytesio(small_png):
    x = img_to_array(load_img(io.BytesIO(small_png.read_bytes()), color_mode="rgba"))
    assert x.shape == (4, 6, 4)
    np.testing.assert_array_equal(x[..., 3], 255)
    np.testing.assert_array_equal(x[..., :3], SMALL)


def test_array_to_img_scales_as_keras():
    img = array_to_img(np.array([[[-1.0], [0.0]], [[1.0], [3.0]]]))
    assert img.mode == "L"
    np.testing.assert_array_equal(np.asarray(img), [[0, 63], [127, 255]])  # Keras's
    img = array_to_img(np.array([[[1.0, 2.0, 3.0]]]), scale=False)
    np.testing.assert_array_equal(np.asarray(img), [[[1, 2, 3]]])
    assert array_to_img(np.full((2, 2, 1), 1000.0), scale=False).mode == "I"
    assert array_to_img(np.zeros((3, 2, 2)), data_format="channels_first").size == (2, 2)
    assert array_to_img(np.zeros((2, 2, 4))).mode == "RGBA"


def test_img_to_array_layouts():
    assert img_to_array(np.ones((2, 3)), data_format="channels_first").shape == (1, 2, 3)
    assert img_to_array(np.ones((2, 3))).shape == (2, 3, 1)
    x = img_to_array(np.ones((2, 3, 4)), data_format="channels_first", dtype="float64")
    assert x.shape == (4, 2, 3) and x.dtype == np.float64


def test_save_img_jpeg_drops_alpha_with_a_warning(tmp_path):
    with pytest.warns(UserWarning, match="JPEG format does not support RGBA"):
        save_img(str(tmp_path / "a.jpg"), np.zeros((3, 3, 4)))
    assert load_img(str(tmp_path / "a.jpg")).size == (3, 3)
    save_img(str(tmp_path / "noext"), np.zeros((3, 3, 3)), file_format="png")
    assert load_img(str(tmp_path / "noext")).size == (3, 3)


def test_smart_resize_matches_keras():
    x = np.arange(5 * 7).reshape(5, 7, 1).astype("float32")
    expected = [3.6666665, 5.333333, 6.9999995, 15.333333, 17.0, 18.666666, 27.0,
                28.666666, 30.333332]   # keras.preprocessing.image.smart_resize(x, (3, 3))
    np.testing.assert_allclose(smart_resize(x, (3, 3)).ravel(), expected, rtol=1e-5)
    assert preprocessing_image.smart_resize is smart_resize
    assert smart_resize(np.zeros((2, 5, 7, 1)), (3, 3)).shape == (2, 3, 3, 1)


def test_errors_name_the_argument(small_png):
    with pytest.raises(ValueError, match="array_to_img: expected an image array of rank 3"):
        array_to_img(np.zeros((2, 2)))
    with pytest.raises(ValueError, match="must have 1, 3 or 4 channels; received 2"):
        array_to_img(np.zeros((2, 2, 2)))
    with pytest.raises(ValueError, match="img_to_array: expected an image of rank 2 or 3"):
        img_to_array(np.zeros((2,)))
    with pytest.raises(ValueError, match="'data_format' must be 'channels_last' or"):
        img_to_array(np.zeros((2, 2)), data_format="nhwc")
    with pytest.raises(TypeError, match="load_img: argument 'path' must be a path"):
        load_img(3)
    with pytest.raises(ValueError, match="load_img: argument 'color_mode' must be one of"):
        load_img(small_png, color_mode="cmyk")
    with pytest.raises(ValueError, match="load_img: argument 'interpolation' must be one"):
        load_img(small_png, target_size=(2, 2), interpolation="cubic")
    with pytest.raises(TypeError, match=r"smart_resize: unexpected keyword arguments \['x2'"):
        smart_resize(np.zeros((4, 4, 1)), (2, 2), x2=1)
    with pytest.raises(ValueError, match="smart_resize: argument 'size' must be"):
        smart_resize(np.zeros((4, 4, 1)), (2, 2, 2))
    with pytest.raises(ValueError, match="smart_resize: expected an image"):
        smart_resize(np.zeros((4, 4)), (2, 2))
    with pytest.warns(UserWarning, match="'backend_module'"):
        smart_resize(np.zeros((4, 4, 1)), (2, 2), backend_module="numpy")


def test_missing_pillow_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "PIL", None)        # import PIL now raises ImportError
    monkeypatch.setitem(sys.modules, "PIL.Image", None)
    with pytest.raises(ImportError, match=r"load_img needs .*'PIL'.*pip install "
                                          r"lamina\[images\]"):
        load_img("anything.png")
    with pytest.raises(ImportError, match=r"array_to_img needs .*lamina\[images\]"):
        array_to_img(np.zeros((2, 2, 3)))
