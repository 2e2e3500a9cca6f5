"""depth_to_space, space_to_depth, unfold, fold, separable_conv and conv_transpose's
defaults: numpy references through the op harness, plus Keras 3's own numbers."""
import numpy as np
import pytest

from lamina import ops
from lamina.errors import ShapeError
from tests.harness import case, rand, run_case


def np_unfold(x, k, d=(1, 1), p=(0, 0), s=(1, 1)):
    x = np.pad(x, ((0, 0), (0, 0), (p[0], p[0]), (p[1], p[1])))
    n, c, h, w = x.shape
    nh, nw = (h - d[0] * (k[0] - 1) - 1) // s[0] + 1, (w - d[1] * (k[1] - 1) - 1) // s[1] + 1
    cols = np.zeros((n, c, k[0], k[1], nh, nw))
    for i in range(k[0]):
        for j in range(k[1]):
            cols[:, :, i, j] = x[:, :, i * d[0]:i * d[0] + s[0] * nh:s[0],
                                 j * d[1]:j * d[1] + s[1] * nw:s[1]]
    return cols.reshape(n, c * k[0] * k[1], nh * nw)


def np_fold(cols, size, k, d=(1, 1), p=(0, 0), s=(1, 1)):
    h, w = size[0] + 2 * p[0], size[1] + 2 * p[1]
    nh, nw = (h - d[0] * (k[0] - 1) - 1) // s[0] + 1, (w - d[1] * (k[1] - 1) - 1) // s[1] + 1
    n = cols.shape[0]
    c = cols.shape[1] // (k[0] * k[1])
    cols = cols.reshape(n, c, k[0], k[1], nh, nw)
    out = np.zeros((n, c, h, w))
    for i in range(k[0]):
        for j in range(k[1]):
            out[:, :, i * d[0]:i * d[0] + s[0] * nh:s[0],
                j * d[1]:j * d[1] + s[1] * nw:s[1]] += cols[:, :, i, j]
    return out[:, :, p[0]:h - p[0], p[1]:w - p[1]]


def np_d2s(x, b):
    n, h, w, c = x.shape
    return x.reshape(n, h, w, b, b, c // b // b).transpose(0, 1, 3, 2, 4, 5).reshape(
        n, h * b, w * b, c // b // b)


def np_s2d(x, b):
    n, h, w, c = x.shape
    return x.reshape(n, h // b, b, w // b, b, c).transpose(0, 1, 3, 2, 4, 5).reshape(
        n, h // b, w // b, c * b * b)


def np_d2s_first(x, b):
    n, c, h, w = x.shape
    out = np.zeros((n, c // b // b, h * b, w * b))
    for k in range(c // b // b):
        for i in range(b):
            for j in range(b):
                out[:, k, i::b, j::b] = x[:, k * b * b + i * b + j]
    return out


def np_s2d_first(x, b):
    n, c, h, w = x.shape
    out = np.zeros((n, c * b * b, h // b, w // b))
    for k in range(c):
        for i in range(b):
            for j in range(b):
                out[:, k * b * b + i * b + j] = x[:, k, i::b, j::b]
    return out


def np_separable(x, dk, pk):
    kh, kw, cin, m = dk.shape
    n, h, w, _ = x.shape
    oh, ow = h - kh + 1, w - kw + 1
    depth = np.zeros((n, oh, ow, cin, m))
    for i in range(kh):
        for j in range(kw):
            depth += x[:, i:i + oh, j:j + ow, :, None] * dk[i, j]
    return depth.reshape(n, oh, ow, cin * m) @ pk[0, 0]


CASES = [
    case("depth_to_space", lambda x: ops.depth_to_space(x, 2), lambda x: np_d2s(x, 2),
         [rand(2, 2, 3, 8)]),
    case("depth_to_space", lambda x: ops.depth_to_space(x, 2, data_format="channels_first"),
         lambda x: np_d2s_first(x, 2),
         [rand(1, 8, 2, 3)], label="channels_first"),
    case("space_to_depth", lambda x: ops.space_to_depth(x, 2), lambda x: np_s2d(x, 2),
         [rand(2, 4, 6, 3)]),
    case("space_to_depth", lambda x: ops.space_to_depth(x, 3, data_format="channels_first"),
         lambda x: np_s2d_first(x, 3),
         [rand(1, 2, 3, 6)], label="channels_first"),
    case("unfold", lambda x: ops.unfold(x, (2, 3), dilation=(1, 2), padding=1, stride=(2, 1)),
         lambda x: np_unfold(x, (2, 3), (1, 2), (1, 1), (2, 1)), [rand(2, 3, 5, 6)]),
    case("unfold", lambda x: ops.unfold(x, 2), lambda x: np_unfold(x, (2, 2)),
         [rand(1, 2, 3, 3)], label="defaults"),
    case("fold", lambda x: ops.fold(x, (5, 6), (2, 3), dilation=(1, 2), padding=1,
                                    stride=(2, 1)),
         lambda x: np_fold(x, (5, 6), (2, 3), (1, 2), (1, 1), (2, 1)), [rand(2, 18, 12)]),
    case("scatter_add", lambda x: ops.fold(x, 3, 2), lambda x: np_fold(x, (3, 3), (2, 2)),
         [rand(1, 4, 4)], label="fold"),
    case("separable_conv", ops.separable_conv, np_separable,
         [rand(2, 5, 4, 3), rand(2, 3, 3, 2), rand(1, 1, 6, 4)]),
]


@pytest.mark.parametrize("c", CASES, ids=str)
def test_forward_and_gradient(c, backend):
    run_case(c)


def t(x):
    return ops.convert_to_tensor(np.asarray(x, dtype="float64"))


def test_match_keras_numbers(backend):
    # keras.ops (Keras 3.15.1, numpy backend) on these inputs
    x = t((np.arange(64) % 7 - 3.0).reshape(2, 2, 4, 4) / 4)
    u = ops.unfold(x, 2, dilation=1, padding=1, stride=2)
    assert u.shape == (2, 8, 9)
    np.testing.assert_allclose(u.numpy()[1, :, :3], [
        [0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.5, -0.75], [0.25, 0.75, 0.0],
        [0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, -0.75, -0.25], [0.75, -0.5, 0.0]])
    np.testing.assert_allclose(ops.fold(u, (4, 4), 2, padding=1, stride=2).numpy(), x.numpy())
    u2 = ops.unfold(x, (2, 3), dilation=(2, 1), padding=(1, 0), stride=1)
    f2 = ops.fold(u2, (4, 4), (2, 3), dilation=(2, 1), padding=(1, 0), stride=1)
    np.testing.assert_allclose(f2.numpy()[0, 1], [
        [-0.25, 0.0, 0.5, 0.5], [1.5, -3.0, -2.0, -0.5], [0.0, 1.0, 2.0, 1.5],
        [-0.75, -1.0, -0.5, 0.0]])
    y = t((np.arange(32) % 5 - 2.0).reshape(1, 2, 2, 8))
    np.testing.assert_allclose(ops.depth_to_space(y, 2).numpy()[0, :, :, 1], [
        [-1.0, 1.0, 2.0, -1.0], [-2.0, 0.0, 1.0, -2.0], [0.0, 2.0, -2.0, 0.0],
        [-1.0, 1.0, 2.0, -1.0]])


def test_conv_transpose_strides_default_to_one(backend):
    x, k = t(rand(1, 4, 4, 2)), t(rand(3, 3, 5, 2))
    np.testing.assert_allclose(ops.conv_transpose(x, k).numpy(),
                               ops.conv_transpose(x, k, strides=1).numpy())
    assert ops.conv_transpose(x, k).shape == (1, 6, 6, 5)


def test_patch_errors(backend):
    with pytest.raises(ShapeError, match=r"depth_to_space: the channels \(3\) must be "
                                         r"divisible by block_size\*\*2 \(4\)"):
        ops.depth_to_space(t(rand(1, 2, 2, 3)), 2)
    with pytest.raises(ShapeError, match=r"space_to_depth: the height and width must be "
                                         r"divisible by block_size \(2\)"):
        ops.space_to_depth(t(rand(1, 3, 2, 1)), 2)
    for op in (ops.depth_to_space, ops.space_to_depth):       # Keras: at least 2
        for bad in (0, 1, -1):
            with pytest.raises(ValueError, match=rf"{op.__name__}: argument `block_size` must "
                                                 rf"be at least 2 \(an int\); received {bad}"):
                op(t(rand(1, 2, 2, 4)), bad)
    with pytest.raises(ValueError, match=r"space_to_depth: argument 'data_format' must be "
                                         r"'channels_last' or 'channels_first'"):
        ops.space_to_depth(t(rand(1, 2, 2, 4)), 2, data_format="nhwc")
    with pytest.raises(ShapeError, match=r"depth_to_space: argument 'x' must have rank 4"):
        ops.depth_to_space(t(rand(2, 2, 4)), 2)
    with pytest.raises(ShapeError, match=r"unfold: argument 'x' must have rank 4"):
        ops.unfold(t(rand(2, 3, 4)), 2)
    with pytest.raises(ShapeError, match=r"unfold: the kernel \(5, 5\) \(dilation \(1, 1\)\) "
                                         r"does not fit the padded image \(3, 3\)"):
        ops.unfold(t(rand(1, 1, 3, 3)), 5)
    with pytest.raises(ValueError, match=r"unfold: argument 'stride' must be an int or a pair "
                                         r"of ints >= 1; received 0"):
        ops.unfold(t(rand(1, 1, 3, 3)), 2, stride=0)
    with pytest.raises(ShapeError, match=r"fold: argument 'x' must be 3D"):
        ops.fold(t(rand(1, 4)), 3, 2)
    with pytest.raises(ShapeError, match=r"fold: argument 'x' must have shape \(N, C\*4, 4\)"):
        ops.fold(t(rand(1, 4, 5)), 3, 2)
