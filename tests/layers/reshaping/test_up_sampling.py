"""UpSampling1D, UpSampling2D (nearest and bilinear) and UpSampling3D."""
import numpy as np
import pytest

import lamina
from lamina import layers, ops
from tests.layers.harness import LayerCase, case_id, run_layer_case

CASES = [
    LayerCase(layers.UpSampling1D, {}, (2, 3, 4), (2, 6, 4), trainable_weights=0, params=0,
              weight_shapes={}),
    LayerCase(layers.UpSampling2D, {}, (2, 3, 4, 2), (2, 6, 8, 2), trainable_weights=0,
              params=0, weight_shapes={}),
    LayerCase(layers.UpSampling2D, dict(size=(3, 2), interpolation="bilinear"), (2, 3, 4, 2),
              (2, 9, 8, 2), trainable_weights=0, params=0),
    LayerCase(layers.UpSampling2D, dict(size=2, data_format="channels_first",
                                        interpolation="bilinear"),
              (1, 2, 3, 4), (1, 2, 6, 8), trainable_weights=0, params=0),
    LayerCase(layers.UpSampling2D, dict(size=(2, 1), interpolation="bicubic"), (2, 3, 4, 2),
              (2, 6, 4, 2), trainable_weights=0, params=0),
    LayerCase(layers.UpSampling3D, dict(size=(1, 2, 3)), (1, 2, 3, 2, 2), (1, 2, 6, 6, 2),
              trainable_weights=0, params=0, weight_shapes={}),
]


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_up_sampling_harness(case, backend):
    run_layer_case(case)


def _x(shape):
    return np.random.default_rng(0).standard_normal(shape).astype("float32")


def test_up_sampling1d_matches_numpy(backend):
    x = _x((2, 3, 4))
    np.testing.assert_array_equal(layers.UpSampling1D(3)(x).numpy(), np.repeat(x, 3, axis=1))


def test_up_sampling2d_nearest_matches_numpy(backend):
    x = _x((2, 3, 4, 2))
    y = layers.UpSampling2D((2, 3))(x).numpy()
    np.testing.assert_array_equal(y, np.repeat(np.repeat(x, 2, axis=1), 3, axis=2))
    y = layers.UpSampling2D((2, 3), data_format="channels_first")(x).numpy()
    np.testing.assert_array_equal(y, np.repeat(np.repeat(x, 2, axis=2), 3, axis=3))


def _bilinear_reference(x, sh, sw):
    """TensorFlow's resize_bilinear with half_pixel_centers=True, written as loops over
    output pixels: source coordinate (o + 0.5) / s - 0.5, clamped to [0, n - 1]."""
    b, h, w, c = x.shape
    out = np.zeros((b, h * sh, w * sw, c), np.float64)

    def sample(o, s, n):
        src = min(max((o + 0.5) / s - 0.5, 0.0), n - 1.0)
        i0 = int(np.floor(src))
        return i0, min(i0 + 1, n - 1), src - i0

    for i in range(h * sh):
        r0, r1, fr = sample(i, sh, h)
        for j in range(w * sw):
            c0, c1, fc = sample(j, sw, w)
            top = x[:, r0, c0] * (1 - fc) + x[:, r0, c1] * fc
            bottom = x[:, r1, c0] * (1 - fc) + x[:, r1, c1] * fc
            out[:, i, j] = top * (1 - fr) + bottom * fr
    return out


@pytest.mark.parametrize("size", [(2, 2), (3, 2), (1, 4)])
def test_up_sampling2d_bilinear_matches_half_pixel_reference(size, backend):
    x = _x((2, 3, 5, 2))
    y = layers.UpSampling2D(size, interpolation="bilinear")(x).numpy()
    np.testing.assert_allclose(y, _bilinear_reference(x.astype("float64"), *size),
                               rtol=1e-5, atol=1e-6)


def test_up_sampling2d_bilinear_known_values(backend):
    # the values Keras gives on every backend (checked against jax.image.resize, which
    # Keras's jax backend calls): rows and columns sample at 0, 0.25, 0.75 and 1
    x = np.array([[0.0, 1.0], [2.0, 3.0]], "float32").reshape(1, 2, 2, 1)
    y = layers.UpSampling2D(interpolation="BILINEAR")(x).numpy()[0, :, :, 0]
    steps = np.array([0.0, 0.25, 0.75, 1.0])
    np.testing.assert_allclose(y, 2 * steps[:, None] + steps[None, :], atol=1e-6)


def test_up_sampling2d_bilinear_gradient(backend):
    # each input pixel's gradient is the sum of its interpolation weights
    x = ops.convert_to_tensor(_x((1, 3, 4, 1)))
    with lamina.GradientTape() as tape:
        tape.watch(x)
        y = ops.sum(layers.UpSampling2D(interpolation="bilinear")(x))
    grad = tape.gradient(y, x).numpy()
    eye = np.eye(12).reshape(12, 1, 3, 4, 1)
    expected = np.array([_bilinear_reference(e, 2, 2).sum() for e in eye]).reshape(grad.shape)
    np.testing.assert_allclose(grad, expected, rtol=1e-5)


def test_up_sampling3d_matches_numpy(backend):
    x = _x((1, 2, 3, 2, 2))
    y = layers.UpSampling3D((2, 1, 3))(x).numpy()
    np.testing.assert_array_equal(y, np.repeat(np.repeat(x, 2, axis=1), 3, axis=3))


def test_up_sampling2d_rejects_unknown_interpolation():
    # Keras 3.15.1's ops.image.resize has no 'area' either.
    with pytest.raises(ValueError, match=r"argument 'interpolation' must be 'nearest', "
                                         r"'bilinear', 'bicubic', 'lanczos3' or 'lanczos5'; "
                                         r"received 'area' \(Invalid value for argument "
                                         r"`interpolation`"):
        layers.UpSampling2D(interpolation="area")


# Keras 3.15.1 (JAX): UpSampling2D(size=(2, 3), interpolation=m) of
# np.random.RandomState(0).rand(1, 3, 4, 2), channel 1, output rows 0-1, columns 0-3.
KERAS_KERNEL_METHODS = {
    "bicubic": [[0.765321, 0.744461, 0.687211, 0.604639],
                [0.653764, 0.642394, 0.606826, 0.557143]],
    "lanczos3": [[0.813233, 0.775662, 0.718918, 0.643619],
                 [0.65145, 0.625854, 0.58396, 0.538059]],
    "lanczos5": [[0.815363, 0.792251, 0.752747, 0.682971],
                 [0.650628, 0.615187, 0.57116, 0.527807]],
}


@pytest.mark.parametrize("method", sorted(KERAS_KERNEL_METHODS))
def test_up_sampling2d_kernel_methods_match_keras(method, backend):
    x = np.random.RandomState(0).rand(1, 3, 4, 2).astype("float32")
    y = layers.UpSampling2D((2, 3), interpolation=method)(x).numpy()
    assert y.shape == (1, 6, 12, 2)
    np.testing.assert_allclose(y[0, :2, :4, 1], KERAS_KERNEL_METHODS[method], atol=2e-6)
    first = layers.UpSampling2D((2, 3), data_format="channels_first", interpolation=method)
    np.testing.assert_allclose(first(x.transpose(0, 3, 1, 2)).numpy().transpose(0, 2, 3, 1),
                               y, atol=1e-6)


def test_up_sampling2d_kernel_method_of_ints_is_float():
    # Keras's test feeds integers; they are interpolated in the compute dtype.
    x = np.arange(12).reshape((2, 2, 1, 3))
    y = layers.UpSampling2D((1, 2), interpolation="lanczos3")(x)
    assert y.dtype == "float32"
    np.testing.assert_allclose(y.numpy()[0, :, :, 0], [[0.0, 0.0], [3.0, 3.0]], atol=1e-6)


def test_up_sampling2d_bilinear_needs_known_sizes():
    with pytest.raises(ValueError, match=r"up: interpolation 'bilinear' needs known spatial "
                                         r"sizes; received shape \(None, None, 4, 3\)"):
        layers.UpSampling2D(interpolation="bilinear", name="up")(
            lamina.layers.Input(shape=(None, 4, 3)))


@pytest.mark.parametrize("bad", [0, -2, 1.5, True])
def test_up_sampling1d_rejects_bad_size(bad):
    with pytest.raises(ValueError, match=r"argument 'size' must be a positive int"):
        layers.UpSampling1D(bad)


@pytest.mark.parametrize("bad", [1.5, "2", True])
def test_up_sampling1d_non_int_size_is_a_type_error_as_in_keras(bad):
    with pytest.raises(TypeError, match=r"Expected an integer value for `size`"):
        layers.UpSampling1D(bad)
    with pytest.raises(ValueError, match=r"should be a positive integer"):
        layers.UpSampling1D(0)


@pytest.mark.parametrize("bad", [0, (2, 0), (2, 2, 2)])
def test_up_sampling2d_rejects_bad_size(bad):
    with pytest.raises(ValueError, match=r"argument 'size' must be a positive int or a tuple "
                                         r"of 2 positive ints; received"):
        layers.UpSampling2D(bad)
