import numpy as np
import pytest

from lamina import layers
from tests.layers.harness import LayerCase, case_id, run_layer_case

CASES = [
    LayerCase(layers.Conv3D, dict(filters=4, kernel_size=3), (2, 5, 6, 7, 3), (2, 3, 4, 5, 4),
              trainable_weights=2, weight_shapes={"kernel": (3, 3, 3, 3, 4), "bias": (4,)},
              params=328, rtol=1e-4, atol=1e-5),
    LayerCase(layers.Conv3D, dict(filters=6, kernel_size=(2, 3, 1), strides=2, padding="same",
                                  groups=2, use_bias=False, activation="relu"),
              (2, 5, 4, 3, 4), (2, 3, 2, 2, 6), trainable_weights=1,
              weight_shapes={"kernel": (2, 3, 1, 2, 6)}, params=72, rtol=1e-4, atol=1e-5),
    LayerCase(layers.Conv3D, dict(filters=2, kernel_size=2, data_format="channels_first"),
              (2, 3, 4, 4, 4), (2, 2, 3, 3, 3), trainable_weights=2, params=50,
              rtol=1e-4, atol=1e-5),
]


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_conv3d_harness(case, backend):
    run_layer_case(case)


def conv3d_reference(x, k, strides, pads, dilation=(1, 1, 1), groups=1):
    """Cross-correlation of x (n, d, h, w, c) with k (kd, kh, kw, c // groups, f)."""
    x = np.pad(x.astype(np.float64), ((0, 0), *pads, (0, 0)))
    kd, kh, kw, cg, f = k.shape
    out = [(x.shape[1 + a] - (k.shape[a] - 1) * dilation[a] - 1) // strides[a] + 1
           for a in range(3)]
    fg = f // groups
    y = np.zeros((x.shape[0], *out, f))
    for od in range(out[0]):
        for oh in range(out[1]):
            for ow in range(out[2]):
                for g in range(groups):
                    for a in range(kd):
                        for b in range(kh):
                            for c in range(kw):
                                v = x[:, od * strides[0] + a * dilation[0],
                                      oh * strides[1] + b * dilation[1],
                                      ow * strides[2] + c * dilation[2],
                                      g * cg:(g + 1) * cg]
                                y[:, od, oh, ow, g * fg:(g + 1) * fg] += \
                                    v @ k[a, b, c, :, g * fg:(g + 1) * fg]
    return y


@pytest.mark.parametrize("kwargs,shape,pads", [
    (dict(kernel_size=3), (2, 4, 5, 6, 3), ((0, 0), (0, 0), (0, 0))),
    # 'same', stride 2: depth 5 -> 3 needs 2 pads (1, 1); height 6 -> 3 and width 4 -> 2
    # need 1 each, which goes after (0, 1).
    (dict(kernel_size=3, strides=2, padding="same"), (1, 5, 6, 4, 2),
     ((1, 1), (0, 1), (0, 1))),
    (dict(kernel_size=(2, 2, 3), dilation_rate=(2, 1, 1)), (1, 5, 4, 5, 2),
     ((0, 0), (0, 0), (0, 0))),
    (dict(kernel_size=2, groups=2), (1, 3, 3, 3, 4), ((0, 0), (0, 0), (0, 0))),
])
def test_conv3d_matches_numpy(backend, kwargs, shape, pads):
    layer = layers.Conv3D(4, bias_initializer="random_normal", **kwargs)
    x = np.random.default_rng(0).standard_normal(shape).astype("float32")
    y = layer(x).numpy()
    k, b = layer.get_weights()
    strides = layer.strides
    want = conv3d_reference(x, k, strides, pads, layer.dilation_rate, layer.groups) + b
    np.testing.assert_allclose(y, want, rtol=1e-4, atol=1e-5)


def test_conv3d_channels_first_matches_channels_last(backend):
    x = np.random.default_rng(1).standard_normal((2, 4, 5, 5, 3)).astype("float32")
    last = layers.Conv3D(2, 2, padding="same")
    first = layers.Conv3D(2, 2, padding="same", data_format="channels_first")
    y_last = last(x).numpy()
    first(np.transpose(x, (0, 4, 1, 2, 3)))
    first.set_weights(last.get_weights())
    y_first = first(np.transpose(x, (0, 4, 1, 2, 3))).numpy()
    np.testing.assert_allclose(np.transpose(y_first, (0, 2, 3, 4, 1)), y_last, rtol=1e-5,
                               atol=1e-5)


def test_conv3d_rejects_rank4_input():
    with pytest.raises(ValueError, match=r"c3 expects input of rank 5 \(batch, depth, height, "
                                         r"width, channels\); received shape \(2, 4, 4, 3\)"):
        layers.Conv3D(2, 2, name="c3")(np.ones((2, 4, 4, 3), "float32"))


def test_conv3d_rejects_bad_kernel_size():
    with pytest.raises(ValueError, match=r"argument 'kernel_size' must be an int or a tuple of "
                                         r"3 ints, all positive; received \(2, 2\)"):
        layers.Conv3D(2, (2, 2))


def test_conv3d_rejects_kernel_larger_than_input():
    with pytest.raises(ValueError, match=r"c3: the dilated kernel \(3, 3, 3\) is larger than "
                                         r"the input's spatial size \(2, 4, 4\)"):
        layers.Conv3D(2, 3, name="c3")(np.ones((1, 2, 4, 4, 1), "float32"))
