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
    with pytest.raises(ValueError, match=r"argument 'interpolation' must be 'nearest' or "
                                         r"'bilinear' \(Keras's 'bicubic', 'lanczos3', "
                                         r"'lanczos5' and 'area' are not supported\); "
                                         r"received 'bicubic'"):
        layers.UpSampling2D(interpolation="bicubic")


def test_up_sampling2d_bilinear_needs_known_sizes():
    with pytest.raises(ValueError, match=r"up: interpolation 'bilinear' needs known spatial "
                                         r"sizes; received shape \(None, None, 4, 3\)"):
        layers.UpSampling2D(interpolation="bilinear", name="up")(
            lamina.layers.Input(shape=(None, 4, 3)))


@pytest.mark.parametrize("bad", [0, -2, 1.5, True])
def test_up_sampling1d_rejects_bad_size(bad):
    with pytest.raises(ValueError, match=r"argument 'size' must be a positive int"):
        layers.UpSampling1D(bad)


@pytest.mark.parametrize("bad", [0, (2, 0), (2, 2, 2)])
def test_up_sampling2d_rejects_bad_size(bad):
    with pytest.raises(ValueError, match=r"argument 'size' must be a positive int or a tuple "
                                         r"of 2 positive ints; received"):
        layers.UpSampling2D(bad)
