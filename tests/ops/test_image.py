"""keras.ops.image: every call of image_calls.CALLS against Keras 3.15.1's numbers
(image_reference.npz), harness cases (float64 numpy references, numeric gradients where
Keras's backends have them, graph == eager) and the error cases."""
import os

import numpy as np
import pytest

from lamina import ops
from lamina.errors import ShapeError
from lamina.ops import image
from tests.harness import case, check_forward, check_gradient, check_graph, rand
from tests.ops.image_calls import CALLS, IMG

REFERENCE = np.load(os.path.join(os.path.dirname(__file__), "image_reference.npz"))


@pytest.mark.parametrize("call", CALLS, ids=[c[0] for c in CALLS])
def test_matches_keras(call):
    label, name, args, kwargs = call
    got = getattr(image, name)(*args, **kwargs)
    want = REFERENCE[label]
    assert got.shape == want.shape
    assert got.dtype == "float32"
    np.testing.assert_allclose(got.numpy(), want, rtol=2e-5, atol=2e-5, err_msg=label)


def test_every_keras_name_is_called():
    assert {c[1] for c in CALLS} | {"elastic_transform"} == set(image.__all__)


# --------------------------------------------------------------------------- harness
def np_gray(x):
    return np.tensordot(x, np.array([0.2989, 0.587, 0.114]), axes=([-1], [0]))[..., None]


def np_hsv(x):
    import colorsys
    flat = x.reshape(-1, 3)
    return np.array([colorsys.rgb_to_hsv(*p) for p in flat]).reshape(x.shape)


def np_rgb(x):
    import colorsys
    flat = x.reshape(-1, 3)
    return np.array([colorsys.hsv_to_rgb(*p) for p in flat]).reshape(x.shape)


def np_bilinear_axis(x, axis, out):
    size = x.shape[axis]
    c = np.clip((np.arange(out) + 0.5) * size / out - 0.5, 0, size - 1)
    lo = np.floor(c).astype(int)
    hi = np.minimum(lo + 1, size - 1)
    w = (c - lo).reshape((out,) + (1,) * (x.ndim - axis - 1))
    return np.take(x, lo, axis) * (1 - w) + np.take(x, hi, axis) * w


def np_resize(x, h, w):
    return np_bilinear_axis(np_bilinear_axis(x, 1, h), 2, w)


def np_affine(x, t):
    """Bilinear, constant 0 fill, one transform for the batch (no channel terms)."""
    n, h, w, c = x.shape
    out = np.zeros_like(x)
    for i in range(h):
        for j in range(w):
            xs, ys = t[0] * j + t[1] * i + t[2], t[3] * j + t[4] * i + t[5]
            y0, x0 = int(np.floor(ys)), int(np.floor(xs))
            for yy, wy in ((y0, 1 - (ys - y0)), (y0 + 1, ys - y0)):
                for xx, wx in ((x0, 1 - (xs - x0)), (x0 + 1, xs - x0)):
                    if 0 <= yy < h and 0 <= xx < w:
                        out[:, i, j] += wy * wx * x[:, yy, xx]
    return out


def np_blur(x, sigma):
    g = np.exp(-0.5 * ((np.arange(3) - 1) / sigma) ** 2)
    k = np.outer(g, g) / g.sum() ** 2
    p = np.pad(x, ((0, 0), (1, 1), (1, 1), (0, 0)))
    return sum(k[a, b] * p[:, a:a + x.shape[1], b:b + x.shape[2]]
               for a in range(3) for b in range(3))


T = np.array([0.9, 0.15, 0.4, -0.1, 1.05, 0.3, 0.0, 0.0])
HSV_IN = rand(1, 3, 4, 3, low=0.05, high=0.95)

CASES = [
    case("rgb_to_grayscale", image.rgb_to_grayscale, np_gray, [rand(2, 3, 4, 3)]),
    case("rgb_to_hsv", image.rgb_to_hsv, np_hsv, [HSV_IN], eps=1e-7, rtol=1e-5),
    case("hsv_to_rgb", image.hsv_to_rgb, np_rgb, [HSV_IN], rtol=1e-5),
    case("resize", lambda x: image.resize(x, (5, 3)), lambda x: np_resize(x, 5, 3),
         [rand(2, 4, 6, 2)]),
    case("affine_transform", lambda x: image.affine_transform(x, T),
         lambda x: np_affine(x, T), [rand(2, 5, 4, 2)]),
    case("gaussian_blur", lambda x: image.gaussian_blur(x, (3, 3), (0.8, 0.8)),
         lambda x: np_blur(x, 0.8), [rand(1, 4, 5, 2)]),
    case("ssim", lambda a, b: image.ssim(a, b, filter_size=3), None,
         [rand(2, 4, 4, 2, low=0, high=1), rand(2, 4, 4, 2, low=0, high=1)], rtol=1e-5),
    case("map_coordinates", lambda x, c: image.map_coordinates(x, c, 1), None,
         [rand(4, 5), rand(2, 3, 2, low=0.1, high=2.9)], rtol=1e-5),
    case("crop_images", lambda x: image.crop_images(x, 1, 0, target_height=2, target_width=3),
         lambda x: x[:, 1:3, 0:3], [rand(2, 4, 4, 1)]),
    case("pad_images", lambda x: image.pad_images(x, 1, 2, 0, 1),
         lambda x: np.pad(x, ((0, 0), (1, 0), (2, 1), (0, 0))), [rand(1, 2, 3, 2)]),
    case("extract_patches", lambda x: image.extract_patches(x, 2),
         lambda x: x.reshape(1, 2, 2, 2, 2, 1).transpose(0, 1, 3, 2, 4, 5).reshape(
             1, 2, 2, 4), [rand(1, 4, 4, 1)]),
    case("sobel_edges", image.sobel_edges, None, [rand(1, 4, 4, 1)]),
    case("perspective_transform", lambda x: image.perspective_transform(
        x, [[0, 0], [3, 0], [0, 3], [3, 3]], [[0.2, 0.1], [3, 0.3], [0.1, 2.8], [2.9, 3]]),
        None, [rand(1, 4, 4, 1)]),
]


@pytest.mark.parametrize("c", CASES, ids=str)
def test_harness(c):
    assert callable(getattr(image, c.op))
    check_forward(c)
    if c.grad:
        check_gradient(c)
    check_graph(c)


# --------------------------------------------------------------------------- behaviour
def test_elastic_transform_seeded_and_identity_without_displacement():
    x = IMG[:1]
    a = image.elastic_transform(x, seed=3).numpy()
    b = image.elastic_transform(x, seed=3).numpy()
    np.testing.assert_array_equal(a, b)
    assert not np.allclose(a, x)
    still = image.elastic_transform(x, alpha=0.0, seed=3).numpy()
    np.testing.assert_allclose(still, x, atol=1e-6)


def test_uint8_grayscale_keeps_dtype():
    x = (IMG[:1] * 255).astype("uint8")
    got = image.rgb_to_grayscale(x)
    assert got.dtype == "uint8"
    want = (np.tensordot(x.astype("float32"), [0.2989, 0.587, 0.114], ([-1], [0])))
    np.testing.assert_array_equal(got.numpy()[..., 0], want.astype("uint8"))


def test_errors():
    with pytest.raises(ShapeError, match="rgb_to_grayscale: argument 'images' must have rank 3"):
        image.rgb_to_grayscale(np.zeros((3, 3), "float32"))
    with pytest.raises(ShapeError, match="rgb_to_grayscale: the channel axis must have size 3"):
        image.rgb_to_grayscale(np.zeros((2, 2, 2), "float32"))
    with pytest.raises(TypeError, match="rgb_to_hsv: argument 'images' must have a float"):
        image.rgb_to_hsv(np.zeros((2, 2, 3), "int32"))
    with pytest.raises(ValueError, match="resize: argument 'interpolation' must be one of"):
        image.resize(IMG, (2, 2), interpolation="cubic")
    with pytest.raises(ValueError, match="resize: argument 'fill_mode' must be 'constant'"):
        image.resize(IMG, (2, 2), fill_mode="reflect")
    with pytest.raises(ValueError, match="resize: only one of 'pad_to_aspect_ratio'"):
        image.resize(IMG, (2, 2), pad_to_aspect_ratio=True, crop_to_aspect_ratio=True)
    with pytest.raises(ValueError, match="resize: argument 'size' must be a tuple of two"):
        image.resize(IMG, (2,))
    with pytest.raises(TypeError, match="resize: interpolation 'bilinear' needs float"):
        image.resize(np.zeros((2, 2, 1), "int32"), (3, 3))
    with pytest.raises(ShapeError, match="affine_transform: argument 'transform' must have"):
        image.affine_transform(IMG, np.zeros((2, 6), "float32"))
    with pytest.raises(ValueError, match="affine_transform: argument 'fill_mode' must be"):
        image.affine_transform(IMG, np.zeros((2, 8), "float32"), fill_mode="zero")
    with pytest.raises(ShapeError, match="map_coordinates: argument 'coordinates' must have"):
        image.map_coordinates(IMG[0, :, :, 0], np.zeros((2,), "float32"), 1)
    with pytest.raises(ShapeError, match="map_coordinates: the first axis of 'coordinates'"):
        image.map_coordinates(IMG[0, :, :, 0], np.zeros((3, 2), "float32"), 1)
    with pytest.raises(ValueError, match="map_coordinates: argument 'order' must be one of"):
        image.map_coordinates(IMG[0, :, :, 0], np.zeros((2, 2), "float32"), 3)
    with pytest.raises(ShapeError, match="perspective_transform: argument 'start_points'"):
        image.perspective_transform(IMG, np.zeros((3, 2)), np.zeros((3, 2)))
    with pytest.raises(ShapeError, match="perspective_transform: 'start_points' and"):
        image.perspective_transform(IMG, np.zeros((4, 2)), np.zeros((2, 4, 2)))
    with pytest.raises(ValueError, match="pad_images: exactly one of top_padding"):
        image.pad_images(IMG, 1, 1, 1, 1, 10, None)
    with pytest.raises(ValueError, match="pad_images: top_padding must be >= 0"):
        image.pad_images(IMG, None, 0, 1, 0, 3, None)
    with pytest.raises(ValueError, match="pad_images: argument 'left_padding' must be a non"):
        image.pad_images(IMG, 1, -1, 1, 1)
    with pytest.raises(ValueError, match="crop_images: top_cropping must be >= 0"):
        image.crop_images(IMG, None, 0, 1, 0, 9, None)
    with pytest.raises(ValueError, match="crop_images: the window"):
        image.crop_images(IMG, 5, 0, target_height=4, target_width=2)
    with pytest.raises(ValueError, match="gaussian_blur: argument 'kernel_size' must be"):
        image.gaussian_blur(IMG, (3, 3, 3))
    with pytest.raises(TypeError, match="extract_patches: argument 'size' must be an int"):
        image.extract_patches(IMG, (2, 2, 2, 2))
    with pytest.raises(ValueError, match="extract_patches: argument 'padding' must be one"):
        image.extract_patches(IMG, 2, padding="full")
    with pytest.raises(ShapeError, match="extract_patches_3d: argument 'volumes' must have"):
        image.extract_patches_3d(IMG[0], 2)
    with pytest.raises(ValueError, match="scale_and_translate: argument 'method' must be"):
        image.scale_and_translate(IMG, (2, 3, 3, 3), [1, 1], [0, 0], (1, 2), "area")
    with pytest.raises(ValueError, match="data_format' must be 'channels_last'"):
        image.rgb_to_hsv(IMG, data_format="NHWC")


def test_namespace():
    assert ops.image is image
