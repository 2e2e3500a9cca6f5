"""keras.ops.image: every call of image_calls.CALLS against Keras 3.15.1's numbers
(image_reference.npz), harness cases (float64 numpy references, numeric gradients where
Keras's backends have them, graph == eager) and the error cases."""
import os

import numpy as np
import pytest

from lamina import ops
import lamina
from lamina import backend
from lamina.errors import DTypeArgumentError, ShapeError
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
    with pytest.raises(ShapeError, match=r"rgb_to_grayscale: Invalid images rank: expected "
                                         r"rank 3 \(single image\) or rank 4 \(batch of "
                                         r"images\) for argument 'images'; received shape "
                                         r"\(3, 3\)"):
        image.rgb_to_grayscale(np.zeros((3, 3), "float32"))
    with pytest.raises(ShapeError, match=r"rgb_to_grayscale: Invalid channel size: expected 3 "
                                         r"\(RGB\) or 1 \(Grayscale\)\. The channel axis"):
        image.rgb_to_grayscale(np.zeros((2, 2, 2), "float32"))
    for fn in (image.rgb_to_hsv, image.hsv_to_rgb):    # Keras raises ValueError
        with pytest.raises(DTypeArgumentError, match=r"_(hsv|rgb): Invalid images dtype: "
                                                     r"expected float dtype\. Argument "
                                                     r"'images' must have a float dtype; "
                                                     r"received int32"):
            fn(np.zeros((2, 2, 3), "int32"))
        with pytest.raises(ShapeError, match=r"Input images must have 3 channels, but "
                                             r"received images with 4 channels\."):
            fn(np.zeros((2, 2, 4), "float32"))
    with pytest.raises(ValueError, match="resize: argument 'interpolation' must be one of"):
        image.resize(IMG, (2, 2), interpolation="cubic")
    with pytest.raises(ValueError, match="resize: argument 'fill_mode' must be 'constant'"):
        image.resize(IMG, (2, 2), fill_mode="reflect")
    with pytest.raises(ValueError, match="resize: only one of 'pad_to_aspect_ratio'"):
        image.resize(IMG, (2, 2), pad_to_aspect_ratio=True, crop_to_aspect_ratio=True)
    with pytest.raises(ValueError, match="resize: argument 'size' must be a tuple of two"):
        image.resize(IMG, (2,))
    with pytest.raises(ValueError, match=r"resize: `size` must have positive height and "
                                         r"width: argument 'size' must be a tuple of two "
                                         r"positive ints \(height, width\); received \(0, 3\)"):
        image.resize(IMG, (0, 3))
    with pytest.raises(DTypeArgumentError, match="resize: interpolation 'bilinear' needs "
                                                 "numeric images; received dtype bool"):
        image.resize(np.zeros((2, 2, 1), "bool"), (3, 3))
    with pytest.raises(ShapeError, match="affine_transform: argument 'transform' must have"):
        image.affine_transform(IMG, np.zeros((2, 6), "float32"))
    with pytest.raises(ShapeError, match=r"affine_transform: Invalid transform rank: expected "
                                         r"rank 1 \(single transform\) or rank 2"):
        image.affine_transform(IMG, np.zeros((2, 3, 8), "float32"))
    with pytest.raises(ValueError, match="affine_transform: argument 'fill_mode' must be"):
        image.affine_transform(IMG, np.zeros((2, 8), "float32"), fill_mode="zero")
    with pytest.raises(ShapeError, match=r"map_coordinates: Invalid coordinates rank: "
                                         r"expected at least rank 2 for argument "
                                         r"'coordinates'; received shape \(2,\)"):
        image.map_coordinates(IMG[0, :, :, 0], np.zeros((2,), "float32"), 1)
    with pytest.raises(ShapeError, match=r"map_coordinates: the first dim of 'coordinates' "
                                         r"\(3\) must be the same as the rank of `inputs` "
                                         r"\(2\)"):
        image.map_coordinates(IMG[0, :, :, 0], np.zeros((3, 2), "float32"), 1)
    with pytest.raises(ValueError, match="map_coordinates: argument 'order' must be one of"):
        image.map_coordinates(IMG[0, :, :, 0], np.zeros((2, 2), "float32"), 3)
    with pytest.raises(ShapeError, match=r"perspective_transform: Invalid start_points shape: "
                                         r"expected \(4, 2\) or \(batch, 4, 2\)"):
        image.perspective_transform(IMG, np.zeros((3, 2)), np.zeros((3, 2)))
    with pytest.raises(ShapeError, match="perspective_transform: 'start_points' and"):
        image.perspective_transform(IMG, np.zeros((4, 2)), np.zeros((2, 4, 2)))
    with pytest.raises(ValueError, match=r"pad_images: Must specify exactly two of "
                                         r"top_padding, bottom_padding, target_height "
                                         r"\(exactly one must be None\)"):
        image.pad_images(IMG, 1, 1, 1, 1, 10, None)
    with pytest.raises(ValueError, match="pad_images: top_padding must be >= 0"):
        image.pad_images(IMG, None, 0, 1, 0, 3, None)
    with pytest.raises(ValueError, match=r"pad_images: left_padding must be >= 0: argument "
                                         r"'left_padding' must be a non-negative int; "
                                         r"received -1"):
        image.pad_images(IMG, 1, -1, 1, 1)
    with pytest.raises(ValueError, match=r"crop_images: target_height must be >= 0"):
        image.crop_images(IMG, 0, 0, None, None, -1, 3)
    with pytest.raises(ValueError, match="crop_images: top_cropping must be >= 0"):
        image.crop_images(IMG, None, 0, 1, 0, 9, None)
    with pytest.raises(ValueError, match="crop_images: the window"):
        image.crop_images(IMG, 5, 0, target_height=4, target_width=2)
    with pytest.raises(ValueError, match="gaussian_blur: argument 'kernel_size' must be"):
        image.gaussian_blur(IMG, (3, 3, 3))
    with pytest.raises(ValueError, match=r"extract_patches: Invalid `size` argument\. "
                                         r"Expected a tuple of length 2 or 3; received "
                                         r"size=\(2, 2, 2, 2\) with length 4"):
        image.extract_patches(IMG, (2, 2, 2, 2))
    with pytest.raises(TypeError, match=r"extract_patches: Invalid `size` argument\. "
                                        r"Expected an int or a tuple of 2 or 3 ints; "
                                        r"received size='5' of type str"):
        image.extract_patches(IMG, "5")
    with pytest.raises(ValueError, match=r"extract_patches_3d: Invalid `strides` argument: "
                                         r"expected an int or a tuple of 3 ints; received "
                                         r"strides=\(2, 2\)"):
        image.extract_patches_3d(np.zeros((1, 8, 8, 8, 1), "float32"), (4, 4, 4), (2, 2))
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


def test_integer_resize_rounds_and_saturates_as_keras():
    # Keras 3.15.1's own expectations (jax.image.resize: float32 math, round half to
    # even, clamp to the dtype's range)
    x = np.array([0, 1, 254, 255], dtype="uint8").reshape(1, 2, 2, 1)
    bilinear = image.resize(x, (4, 4))
    assert bilinear.dtype == "uint8"
    np.testing.assert_array_equal(bilinear.numpy()[0, :, :, 0], [
        [0, 0, 1, 1], [64, 64, 64, 64], [190, 191, 191, 192], [254, 254, 255, 255]])
    bicubic = image.resize(x, (4, 4), interpolation="bicubic")
    np.testing.assert_array_equal(bicubic.numpy()[0, :, :, 0], [
        [0, 0, 0, 0], [53, 53, 53, 54], [201, 202, 202, 202], [255, 255, 255, 255]])


def test_bfloat16_resize_keeps_dtype():
    x = np.linspace(0, 1, 4 * 4 * 1, dtype="float32").reshape(4, 4, 1)
    got = image.resize(ops.cast(x, "bfloat16"), (2, 2))
    assert got.dtype == "bfloat16"
    np.testing.assert_allclose(ops.cast(got, "float32").numpy(),
                               image.resize(x, (2, 2)).numpy(), atol=1e-2)


def test_integer_map_coordinates_round_half_away_from_zero():
    # Keras 3.15.1 (JAX): map_coordinates of arange(5) (uint8) and arange(5) - 2 (int32)
    coords = np.array([[0.5, 1.5, 2.4, 3.6, -0.7]], "float32")
    got = image.map_coordinates(np.arange(5, dtype="uint8"), coords, 1)
    assert got.dtype == "uint8"
    np.testing.assert_array_equal(got.numpy(), [1, 2, 2, 4, 0])
    got = image.map_coordinates(np.arange(5, dtype="int32") - 2, coords, 1)
    np.testing.assert_array_equal(got.numpy(), [-2, -1, 0, 2, -1])


def test_ops_follow_the_global_channels_first_format():
    img = np.arange(2 * 4 * 4, dtype="float32").reshape(2, 4, 4)
    try:
        backend.set_image_data_format("channels_first")
        got = image.resize(img, (2, 2)).numpy()
    finally:
        backend.set_image_data_format("channels_last")
    # Keras 3.15.1 with keras.config.set_image_data_format("channels_first")
    np.testing.assert_allclose(got, [[[2.5, 4.5], [10.5, 12.5]],
                                     [[18.5, 20.5], [26.5, 28.5]]])


@pytest.mark.parametrize("fn", [
    lambda x, c: image.resize(x, (3, 5)),
    lambda x, c: image.resize(x, (3, 5), interpolation="lanczos3", antialias=True),
    lambda x, c: image.map_coordinates(x[0, :, :, 0], c, 1, fill_mode="reflect"),
], ids=["bilinear", "lanczos3_antialias", "map_coordinates"])
def test_integer_images_graph_equals_eager(fn):
    x = ops.convert_to_tensor((np.arange(2 * 4 * 6) * 37 % 256).astype("uint8").reshape(
        2, 4, 6, 1))
    c = ops.convert_to_tensor(np.array([[0.5, 2.5, -1.5], [1.5, 4.4, 6.6]], "float32"))
    eager = fn(x, c)
    graph = lamina.jit(fn)(x, c)
    assert eager.dtype == graph.dtype == "uint8"
    np.testing.assert_array_equal(eager.numpy(), graph.numpy())
