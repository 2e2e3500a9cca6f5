import numpy as np
import pytest

import lamina
from lamina import ops
from lamina.errors import DTypeError, ShapeError
from lamina.ops.pooling import AvgPool2DBackprop, MaxPool2DBackprop, MaxPool2DSelect
from tests.harness import case, distinct, rand, run_case

NO_PADS = ((0, 0), (0, 0))


# --------------------------------------------------------------------------- references
# One window at a time, clipped to the real (unpadded) input: obviously right, slow.
def tf_same_pads(size, k, stride):
    out = -(-size // stride)
    total = max((out - 1) * stride + k - size, 0)
    return (total // 2, total - total // 2)


def pool_pads(padding, in_hw, pool, strides):
    if padding == "valid":
        return NO_PADS
    return tuple(tf_same_pads(*a) for a in zip(in_hw, pool, strides))


def windows(in_hw, pool, strides, pads):
    """Yield ((p, q), row slice, column slice) of every window, clipped to the input."""
    (h, w), (kh, kw), (sh, sw), ((t, b), (l, r)) = in_hw, pool, strides, pads
    oh, ow = (h + t + b - kh) // sh + 1, (w + l + r - kw) // sw + 1
    for p in range(oh):
        for q in range(ow):
            r0, c0 = p * sh - t, q * sw - l
            yield ((p, q), slice(max(r0, 0), min(r0 + kh, h)),
                   slice(max(c0, 0), min(c0 + kw, w)))


def _out_shape(x_shape, pool, strides, pads):
    (h, w), ((t, b), (l, r)) = x_shape[1:3], pads
    return (x_shape[0], (h + t + b - pool[0]) // strides[0] + 1,
            (w + l + r - pool[1]) // strides[1] + 1, x_shape[3])


def ref_pool(x, fn, pool, strides=None, padding="valid"):
    strides = strides or pool
    pads = pool_pads(padding, x.shape[1:3], pool, strides)
    y = np.zeros(_out_shape(x.shape, pool, strides, pads))
    for (p, q), rows, cols in windows(x.shape[1:3], pool, strides, pads):
        win = x[:, rows, cols]
        y[:, p, q] = win.max(axis=(1, 2)) if fn == "max" else win.mean(axis=(1, 2))
    return y


def ref_max_backprop(x, dy, pool, strides=None, padding="valid"):
    """dy of each window goes to the window's first maximum (row-major order)."""
    strides = strides or pool
    pads = pool_pads(padding, x.shape[1:3], pool, strides)
    dx = np.zeros(x.shape)
    for (p, q), rows, cols in windows(x.shape[1:3], pool, strides, pads):
        win = x[:, rows, cols]
        flat = win.reshape(win.shape[0], -1, win.shape[3]).argmax(axis=1)   # first max
        width = win.shape[2]
        for n in range(x.shape[0]):
            for c in range(x.shape[3]):
                i, j = divmod(int(flat[n, c]), width)
                dx[n, rows.start + i, cols.start + j, c] += dy[n, p, q, c]
    return dx


def ref_max_select(x, g, pool, strides=None, padding="valid"):
    strides = strides or pool
    pads = pool_pads(padding, x.shape[1:3], pool, strides)
    out = np.zeros(_out_shape(x.shape, pool, strides, pads))
    for (p, q), rows, cols in windows(x.shape[1:3], pool, strides, pads):
        win = x[:, rows, cols]
        flat = win.reshape(win.shape[0], -1, win.shape[3]).argmax(axis=1)
        gwin = g[:, rows, cols].reshape(flat.shape[0], -1, flat.shape[1])
        out[:, p, q] = np.take_along_axis(gwin, flat[:, None], axis=1)[:, 0]
    return out


def ref_avg_backprop(dy, input_shape, pool, strides=None, padding="valid"):
    strides = strides or pool
    pads = pool_pads(padding, input_shape[1:3], pool, strides)
    dx = np.zeros(input_shape)
    for (p, q), rows, cols in windows(input_shape[1:3], pool, strides, pads):
        count = (rows.stop - rows.start) * (cols.stop - cols.start)
        dx[:, rows, cols] += dy[:, p, q][:, None, None] / count
    return dx


# --------------------------------------------------------------------------- cases
def attrs(pool, strides=None, padding="valid"):
    return dict(pool_size=pool, strides=strides or pool, padding=padding)


def max_backprop(pool, strides=None, padding="valid"):
    def fn(x, dy):
        y = ops.max_pool2d(x, pool, strides, padding)
        return MaxPool2DBackprop(x, y, dy, **attrs(pool, strides, padding))
    return fn


def max_select(pool, strides=None, padding="valid"):
    def fn(x, g):
        y = ops.max_pool2d(x, pool, strides, padding)
        return MaxPool2DSelect(x, y, g, **attrs(pool, strides, padding))
    return fn


def avg_backprop(input_shape, pool, strides=None, padding="valid"):
    def fn(dy):
        return AvgPool2DBackprop(dy, input_shape=input_shape, **attrs(pool, strides, padding))
    return fn


CASES = [
    case("max_pool2d", lambda x: ops.max_pool2d(x, 2), lambda x: ref_pool(x, "max", (2, 2)),
         [distinct(2, 4, 4, 3)], second_order=True, label="2x2"),
    case("max_pool2d", lambda x: ops.max_pool2d(x, 3, 2, "same"),
         lambda x: ref_pool(x, "max", (3, 3), (2, 2), "same"), [distinct(2, 5, 6, 2)],
         second_order=True, label="3x3-stride2-same"),
    case("max_pool2d", lambda x: ops.max_pool2d(x, (2, 3), (1, 2)),
         lambda x: ref_pool(x, "max", (2, 3), (1, 2)), [distinct(1, 4, 7, 2)],
         label="overlapping-valid"),
    case("avg_pool2d", lambda x: ops.avg_pool2d(x, 2), lambda x: ref_pool(x, "avg", (2, 2)),
         [rand(2, 5, 4, 3)], second_order=True, label="2x2-leftover-row"),
    case("avg_pool2d", lambda x: ops.avg_pool2d(x, 3, 2, "same"),
         lambda x: ref_pool(x, "avg", (3, 3), (2, 2), "same"), [rand(2, 5, 6, 2)],
         second_order=True, label="same-excludes-padding"),
    case("max_pool2d_backprop", max_backprop((2, 2)),
         lambda x, dy: ref_max_backprop(x, dy, (2, 2)),
         [distinct(2, 4, 4, 2), rand(2, 2, 2, 2)], second_order=True, label="2x2"),
    case("max_pool2d_backprop", max_backprop((3, 3), (2, 2), "same"),
         lambda x, dy: ref_max_backprop(x, dy, (3, 3), (2, 2), "same"),
         [distinct(2, 5, 4, 2), rand(2, 3, 2, 2)], second_order=True, label="overlap-same"),
    case("max_pool2d_select", max_select((2, 2)),
         lambda x, g: ref_max_select(x, g, (2, 2)),
         [distinct(2, 4, 5, 2), rand(2, 4, 5, 2)], second_order=True, label="2x2"),
    case("max_pool2d_select", max_select((3, 3), (2, 2), "same"),
         lambda x, g: ref_max_select(x, g, (3, 3), (2, 2), "same"),
         [distinct(2, 5, 4, 2), rand(2, 5, 4, 2)], label="overlap-same"),
    case("avg_pool2d_backprop", avg_backprop((2, 5, 4, 2), (2, 2)),
         lambda dy: ref_avg_backprop(dy, (2, 5, 4, 2), (2, 2)), [rand(2, 2, 2, 2)],
         second_order=True, label="2x2"),
    case("avg_pool2d_backprop", avg_backprop((2, 5, 4, 2), (3, 3), (2, 2), "same"),
         lambda dy: ref_avg_backprop(dy, (2, 5, 4, 2), (3, 3), (2, 2), "same"),
         [rand(2, 3, 2, 2)], label="overlap-same"),
    case("max_pool1d", lambda x: ops.max_pool1d(x, 3, 2, "same"),
         lambda x: ref_pool(x[:, None], "max", (1, 3), (1, 2), "same")[:, 0],
         [distinct(2, 7, 3)]),
    case("avg_pool1d", lambda x: ops.avg_pool1d(x, 2),
         lambda x: ref_pool(x[:, None], "avg", (1, 2))[:, 0], [rand(2, 7, 3)]),
    case("max_pool", lambda x: ops.max_pool(x, (2, 2), padding="same"),
         lambda x: ref_pool(x, "max", (2, 2), padding="same"), [distinct(2, 5, 5, 2)],
         label="2d"),
    case("max_pool", lambda x: ops.max_pool(x, 2), lambda x: ref_pool(x[:, None], "max",
                                                                     (1, 2))[:, 0],
         [distinct(2, 6, 2)], label="1d"),
    case("average_pool", lambda x: ops.average_pool(x, 3, 1, "same"),
         lambda x: ref_pool(x, "avg", (3, 3), (1, 1), "same"), [rand(2, 4, 4, 2)],
         label="2d"),
    case("average_pool", lambda x: ops.average_pool(x, 2, 1),
         lambda x: ref_pool(x[:, None], "avg", (1, 2), (1, 1))[:, 0], [rand(2, 5, 2)],
         label="1d"),
]


@pytest.mark.parametrize("c", CASES, ids=str)
def test_forward_and_gradient(c, backend):
    run_case(c)


# --------------------------------------------------------------------------- behaviour
def test_max_pool_gradient_goes_to_the_first_of_tied_maxima(backend):
    # After a ReLU whole windows are 0: the gradient must not be counted once per tie.
    x = ops.convert_to_tensor(np.array([[[[0.0], [0.0]], [[0.0], [0.0]]]]))
    with lamina.GradientTape() as tape:
        tape.watch(x)
        y = ops.sum(ops.max_pool2d(x, 2))
    np.testing.assert_array_equal(tape.gradient(y, x).numpy().ravel(), [1.0, 0.0, 0.0, 0.0])


def test_same_max_pool_never_picks_padding(backend):
    x = -np.arange(1, 10, dtype="float64").reshape(1, 3, 3, 1)       # all negative
    y = ops.max_pool2d(ops.convert_to_tensor(x), 2, padding="same").numpy()
    np.testing.assert_array_equal(y[0, :, :, 0], [[-1.0, -3.0], [-7.0, -9.0]])


# --------------------------------------------------------------------------- errors
def _t(*shape, dtype="float32"):
    return ops.convert_to_tensor(np.zeros(shape, dtype=dtype))


def test_pool_larger_than_a_valid_input():
    with pytest.raises(ShapeError, match=r"max_pool2d: the pool_size \(3, 3\) is larger than "
                       r"the input's spatial size \(2, 2\) with padding 'valid'"):
        ops.max_pool2d(_t(1, 2, 2, 1), 3)
    with pytest.raises(ShapeError, match=r"avg_pool1d: the pool_size \(4,\) is larger than "
                       r"the input's spatial size \(3,\) with padding 'valid'"):
        ops.avg_pool1d(_t(1, 3, 1), 4)
    assert ops.max_pool2d(_t(1, 2, 2, 1), 3, padding="same").shape == (1, 1, 1, 1)


def test_pool_argument_errors():
    with pytest.raises(ShapeError, match=r"max_pool2d: argument 'x' must have rank 4 "
                       r"\(batch, height, width, channels\); received shape \(2, 8, 8\)"):
        ops.max_pool2d(_t(2, 8, 8), 2)
    with pytest.raises(ShapeError, match=r"max_pool1d: argument 'x' must have rank 3 "
                       r"\(batch, steps, channels\); received shape \(2, 8, 8, 1\)"):
        ops.max_pool1d(_t(2, 8, 8, 1), 2)
    with pytest.raises(ValueError, match=r"avg_pool2d: argument 'padding' must be 'valid' or "
                       r"'same'; received 'causal'"):
        ops.avg_pool2d(_t(1, 4, 4, 1), 2, padding="causal")
    with pytest.raises(ValueError, match=r"max_pool2d: argument 'pool_size' must be an int or "
                       r"a tuple of 2 ints, all positive; received \(2, 0\)"):
        ops.max_pool2d(_t(1, 4, 4, 1), (2, 0))
    with pytest.raises(ValueError, match=r"max_pool2d: argument 'strides' must be an int or "
                       r"a tuple of 2 ints, all positive; received -1"):
        ops.max_pool2d(_t(1, 4, 4, 1), 2, strides=-1)
    with pytest.raises(DTypeError, match=r"max_pool2d: argument 'x' must be a floating-point "
                       r"tensor; received dtype int32"):
        ops.max_pool2d(_t(1, 4, 4, 1, dtype="int32"), 2)


def test_keras_pool_names_reject_other_layouts_and_ranks():
    with pytest.raises(ValueError, match=r"max_pool: argument 'data_format' must be None or "
                       r"'channels_last'"):
        ops.max_pool(_t(1, 4, 4, 1), 2, data_format="NCHW")
    with pytest.raises(ValueError, match=r"average_pool: 3-D operations \(rank-5 inputs\) are "
                       r"not supported"):
        ops.average_pool(_t(1, 4, 4, 4, 1), 2)


def test_backprop_ops_check_their_shapes():
    x = _t(2, 4, 4, 2)
    y = ops.max_pool2d(x, 2)
    with pytest.raises(ShapeError, match=r"max_pool2d_backprop: argument 'dy' must have shape "
                       r"\(2, 2, 2, 2\) \(the pooled shape\); received \(2, 4, 4, 2\)"):
        MaxPool2DBackprop(x, y, x, **attrs((2, 2)))
    with pytest.raises(ShapeError, match=r"max_pool2d_select: argument 'g' must have the shape "
                       r"of 'x' \(2, 4, 4, 2\); received \(2, 2, 2, 2\)"):
        MaxPool2DSelect(x, y, y, **attrs((2, 2)))
    with pytest.raises(ShapeError, match=r"avg_pool2d_backprop: argument 'dy' must have shape "
                       r"\(2, 2, 2, 2\) \(the pooled shape\); received \(2, 3, 3, 2\)"):
        AvgPool2DBackprop(_t(2, 3, 3, 2), input_shape=(2, 4, 4, 2), **attrs((2, 2)))
