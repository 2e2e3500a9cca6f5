import numpy as np
import pytest

from lamina import ops
from lamina.errors import DTypeError, ShapeError
from lamina.ops.conv import Conv2D, Conv2DBackpropFilter, Conv2DBackpropInput
from tests.harness import case, rand, run_case

NO_PADS = ((0, 0), (0, 0))


# --------------------------------------------------------------------------- references
# Direct loops over output positions, one small tensordot per window: slow and obvious.
def tf_same_pads(size, k, stride, dilation=1):
    out = -(-size // stride)
    total = max((out - 1) * stride + (k - 1) * dilation + 1 - size, 0)
    return (total // 2, total - total // 2)


def pads_for(padding, in_hw, kernel_hw, strides=(1, 1), dilation=(1, 1)):
    if padding == "valid":
        return NO_PADS
    return tuple(tf_same_pads(*a) for a in zip(in_hw, kernel_hw, strides, dilation))


def _window(p, q, kernel_hw, strides, dilation):
    (kh, kw), (sh, sw), (dh, dw) = kernel_hw, strides, dilation
    return (slice(p * sh, p * sh + (kh - 1) * dh + 1, dh),
            slice(q * sw, q * sw + (kw - 1) * dw + 1, dw))


def _out_hw(padded_hw, kernel_hw, strides, dilation):
    return tuple((p - (k - 1) * d - 1) // s + 1
                 for p, k, s, d in zip(padded_hw, kernel_hw, strides, dilation))


def ref_conv2d(x, w, strides=(1, 1), pads=NO_PADS, dilation=(1, 1), groups=1):
    xpad = np.pad(x, ((0, 0),) + tuple(pads) + ((0, 0),))
    kh, kw, cg, cout = w.shape
    og = cout // groups
    oh, ow = _out_hw(xpad.shape[1:3], (kh, kw), strides, dilation)
    y = np.zeros((x.shape[0], oh, ow, cout), dtype=np.result_type(x, w))
    for p in range(oh):
        for q in range(ow):
            rows, cols = _window(p, q, (kh, kw), strides, dilation)
            win = xpad[:, rows, cols]                               # (n, kh, kw, c)
            for g in range(groups):
                y[:, p, q, g * og:(g + 1) * og] = np.tensordot(
                    win[..., g * cg:(g + 1) * cg], w[..., g * og:(g + 1) * og], 3)
    return y


def ref_backprop_input(dy, w, input_shape, strides=(1, 1), pads=NO_PADS, dilation=(1, 1),
                       groups=1):
    n, h, wd, c = input_shape
    (t, b), (l, r) = pads
    kh, kw, cg, cout = w.shape
    og = cout // groups
    dxpad = np.zeros((n, h + t + b, wd + l + r, c), dtype=np.result_type(dy, w))
    for p in range(dy.shape[1]):
        for q in range(dy.shape[2]):
            rows, cols = _window(p, q, (kh, kw), strides, dilation)
            for g in range(groups):
                dxpad[:, rows, cols, g * cg:(g + 1) * cg] += np.einsum(
                    "no,ijco->nijc", dy[:, p, q, g * og:(g + 1) * og],
                    w[..., g * og:(g + 1) * og])
    return dxpad[:, t:t + h, l:l + wd]


def ref_backprop_filter(x, dy, filter_shape, strides=(1, 1), pads=NO_PADS, dilation=(1, 1),
                        groups=1):
    xpad = np.pad(x, ((0, 0),) + tuple(pads) + ((0, 0),))
    kh, kw, cg, cout = filter_shape
    og = cout // groups
    dw = np.zeros(filter_shape, dtype=np.result_type(x, dy))
    for p in range(dy.shape[1]):
        for q in range(dy.shape[2]):
            rows, cols = _window(p, q, (kh, kw), strides, dilation)
            win = xpad[:, rows, cols]
            for g in range(groups):
                dw[..., g * og:(g + 1) * og] += np.einsum(
                    "nijc,no->ijco", win[..., g * cg:(g + 1) * cg],
                    dy[:, p, q, g * og:(g + 1) * og])
    return dw


def ref_conv(x, w, strides=1, padding="valid", dilation=1, groups=1):
    """Keras-level reference: ints -> pairs, 'same'/'valid' -> TensorFlow's pads."""
    strides = (strides, strides) if isinstance(strides, int) else strides
    dilation = (dilation, dilation) if isinstance(dilation, int) else dilation
    pads = pads_for(padding, x.shape[1:3], w.shape[:2], strides, dilation)
    return ref_conv2d(x, w, strides, pads, dilation, groups)


def ref_depthwise(x, w, strides=1, padding="valid", dilation=1):
    kh, kw, c, m = w.shape
    return ref_conv(x, w.reshape(kh, kw, 1, c * m), strides, padding, dilation, groups=c)


def ref_conv1d(x, w, strides=1, padding="valid", dilation=1, groups=1):
    x4, w4 = x[:, None], w[None]
    if padding == "causal":
        x4 = np.pad(x4, ((0, 0), (0, 0), ((w.shape[0] - 1) * dilation, 0), (0, 0)))
        padding = "valid"
    y = ref_conv(x4, w4, (1, strides), padding, (1, dilation), groups)
    return y[:, 0]


def ref_transpose(x, kernel, strides, padding, out_hw, dilation=(1, 1)):
    """The transposed convolution as the input gradient of TensorFlow's forward conv."""
    pads = pads_for(padding, out_hw, kernel.shape[:2], strides, dilation)
    shape = (x.shape[0],) + tuple(out_hw) + (kernel.shape[2],)
    return ref_backprop_input(x, kernel, shape, strides, pads, dilation)


# --------------------------------------------------------------------------- primitives, direct
def bpi(input_shape, strides=(1, 1), padding="valid", dilation=(1, 1), groups=1):
    def fn(dy, w):
        return Conv2DBackpropInput(dy, w, input_shape=input_shape, strides=strides,
                                   padding=padding, dilation=dilation, groups=groups)
    return fn


def bpf(filter_shape, strides=(1, 1), padding="valid", dilation=(1, 1), groups=1):
    def fn(x, dy):
        return Conv2DBackpropFilter(x, dy, filter_shape=filter_shape, strides=strides,
                                    padding=padding, dilation=dilation, groups=groups)
    return fn


SAME_5x6_S2 = pads_for("same", (5, 6), (3, 3), (2, 2))           # ((1, 1), (0, 1))

CASES = [
    # conv2d: valid/same, strides 1/2/(2,1), dilation, groups, pointwise, asymmetric 'same'
    case("conv2d", lambda x, w: ops.conv2d(x, w), lambda x, w: ref_conv(x, w),
         [rand(2, 5, 5, 3), rand(3, 3, 3, 2)], second_order=True, label="valid"),
    case("conv2d", lambda x, w: ops.conv2d(x, w, padding="same"),
         lambda x, w: ref_conv(x, w, padding="same"),
         [rand(2, 5, 5, 3), rand(3, 3, 3, 2)], second_order=True, label="same"),
    case("conv2d", lambda x, w: ops.conv2d(x, w, strides=2, padding="same"),
         lambda x, w: ref_conv(x, w, 2, "same"),
         [rand(2, 5, 6, 3), rand(3, 3, 3, 2)], label="same-stride2-asymmetric"),
    case("conv2d", lambda x, w: ops.conv2d(x, w, strides=(2, 1), padding="same"),
         lambda x, w: ref_conv(x, w, (2, 1), "same"),
         [rand(2, 6, 5, 2), rand(2, 3, 2, 3)], label="same-stride21"),
    case("conv2d", lambda x, w: ops.conv2d(x, w, strides=2),
         lambda x, w: ref_conv(x, w, 2), [rand(2, 7, 6, 2), rand(3, 2, 2, 3)],
         label="valid-stride2"),
    case("conv2d", lambda x, w: ops.conv2d(x, w, padding="same", dilation_rate=2),
         lambda x, w: ref_conv(x, w, 1, "same", 2),
         [rand(2, 6, 5, 2), rand(3, 3, 2, 2)], label="dilation2"),
    case("conv2d", lambda x, w: ops.conv2d(x, w, padding="same", groups=2),
         lambda x, w: ref_conv(x, w, padding="same", groups=2),
         [rand(2, 4, 5, 4), rand(3, 3, 2, 4)], second_order=True, label="groups2"),
    case("conv2d", lambda x, w: ops.conv2d(x, w), lambda x, w: ref_conv(x, w),
         [rand(2, 4, 3, 3), rand(1, 1, 3, 4)], label="pointwise"),
    case("conv2d", lambda x, w: ops.conv2d(x, w, strides=2, groups=3),
         lambda x, w: ref_conv(x, w, 2, groups=3),
         [rand(2, 5, 5, 3), rand(2, 2, 1, 3)], label="groups3-stride2"),
    # the backprops as ops of their own, with their second derivatives
    case("conv2d_backprop_input", bpi((2, 5, 5, 3), padding="same"),
         lambda dy, w: ref_backprop_input(dy, w, (2, 5, 5, 3), pads=((1, 1), (1, 1))),
         [rand(2, 5, 5, 2), rand(3, 3, 3, 2)], second_order=True, label="same"),
    case("conv2d_backprop_input", bpi((2, 5, 6, 3), (2, 2), "same"),
         lambda dy, w: ref_backprop_input(dy, w, (2, 5, 6, 3), (2, 2), SAME_5x6_S2),
         [rand(2, 3, 3, 2), rand(3, 3, 3, 2)], second_order=True, label="stride2"),
    case("conv2d_backprop_input", bpi((2, 5, 4, 4), (1, 2), "valid", (2, 1), groups=2),
         lambda dy, w: ref_backprop_input(dy, w, (2, 5, 4, 4), (1, 2), NO_PADS, (2, 1), 2),
         [rand(2, 1, 2, 4), rand(3, 2, 2, 4)], label="groups-dilation"),
    case("conv2d_backprop_filter", bpf((3, 3, 3, 2), padding="same"),
         lambda x, dy: ref_backprop_filter(x, dy, (3, 3, 3, 2), pads=((1, 1), (1, 1))),
         [rand(2, 5, 5, 3), rand(2, 5, 5, 2)], second_order=True, label="same"),
    case("conv2d_backprop_filter", bpf((3, 3, 3, 2), (2, 2), "same"),
         lambda x, dy: ref_backprop_filter(x, dy, (3, 3, 3, 2), (2, 2), SAME_5x6_S2),
         [rand(2, 5, 6, 3), rand(2, 3, 3, 2)], second_order=True, label="stride2"),
    case("conv2d_backprop_filter", bpf((2, 2, 2, 4), (1, 1), "valid", (1, 2), groups=2),
         lambda x, dy: ref_backprop_filter(x, dy, (2, 2, 2, 4), (1, 1), NO_PADS, (1, 2), 2),
         [rand(2, 4, 5, 4), rand(2, 3, 3, 4)], label="groups-dilation"),
    # depthwise, 1-D, transposed, Keras 3 names
    case("depthwise_conv2d", lambda x, w: ops.depthwise_conv2d(x, w, padding="same"),
         lambda x, w: ref_depthwise(x, w, padding="same"),
         [rand(2, 5, 4, 3), rand(3, 3, 3, 2)], label="multiplier2"),
    case("depthwise_conv2d", lambda x, w: ops.depthwise_conv2d(x, w, padding="same"),
         lambda x, w: ref_depthwise(x, w, padding="same"),
         [rand(2, 5, 4, 3), rand(3, 3, 3, 1)], second_order=True, label="multiplier1"),
    case("depthwise_conv2d", lambda x, w: ops.depthwise_conv2d(x, w, strides=2),
         lambda x, w: ref_depthwise(x, w, 2), [rand(2, 5, 5, 3), rand(3, 3, 3, 1)],
         label="stride2"),
    case("conv1d", lambda x, w: ops.conv1d(x, w, padding="same"),
         lambda x, w: ref_conv1d(x, w, padding="same"), [rand(2, 7, 3), rand(3, 3, 2)],
         label="same"),
    case("conv1d", lambda x, w: ops.conv1d(x, w, padding="causal", dilation_rate=2),
         lambda x, w: ref_conv1d(x, w, padding="causal", dilation=2),
         [rand(2, 7, 3), rand(3, 3, 2)], label="causal"),
    case("conv1d", lambda x, w: ops.conv1d(x, w, strides=2, groups=2),
         lambda x, w: ref_conv1d(x, w, 2, groups=2), [rand(2, 8, 4), rand(2, 2, 4)],
         label="stride2-groups2"),
    case("conv2d_transpose", lambda x, w: ops.conv2d_transpose(x, w, 2, "same"),
         lambda x, w: ref_transpose(x, w, (2, 2), "same", (6, 4)),
         [rand(2, 3, 2, 3), rand(3, 3, 2, 3)], second_order=True, label="same-stride2"),
    case("conv2d_transpose", lambda x, w: ops.conv2d_transpose(x, w, (2, 1)),
         lambda x, w: ref_transpose(x, w, (2, 1), "valid", (7, 4)),
         [rand(2, 3, 2, 3), rand(3, 3, 2, 3)], label="valid-stride21"),
    case("conv", lambda x, w: ops.conv(x, w, 1, "same"), lambda x, w: ref_conv(x, w, 1, "same"),
         [rand(2, 4, 4, 3), rand(3, 3, 3, 2)], label="2d"),
    case("conv", lambda x, w: ops.conv(x, w, 1, "same", dilation_rate=2),
         lambda x, w: ref_conv(x, w, 1, "same", 2, groups=2),
         [rand(2, 5, 5, 4), rand(3, 3, 2, 2)], label="2d-inferred-groups"),
    case("conv", lambda x, w: ops.conv(x, w, 2), lambda x, w: ref_conv1d(x, w, 2),
         [rand(2, 7, 3), rand(3, 3, 2)], label="1d"),
    case("depthwise_conv", lambda x, w: ops.depthwise_conv(x, w, 1, "same"),
         lambda x, w: ref_depthwise(x, w, 1, "same"), [rand(2, 4, 4, 2), rand(3, 3, 2, 2)],
         label="2d"),
    case("depthwise_conv", lambda x, w: ops.depthwise_conv(x, w),
         lambda x, w: ref_depthwise(x[:, None], w[None])[:, 0],
         [rand(2, 6, 2), rand(3, 2, 2)], label="1d"),
    case("conv_transpose", lambda x, w: ops.conv_transpose(x, w, 2, "same"),
         lambda x, w: ref_transpose(x, w, (2, 2), "same", (6, 6)),
         [rand(2, 3, 3, 2), rand(3, 3, 2, 2)], label="2d"),
    case("conv_transpose", lambda x, w: ops.conv_transpose(x, w, 2),
         lambda x, w: ref_transpose(x[:, None], w[None], (1, 2), "valid", (1, 7))[:, 0],
         [rand(2, 3, 2), rand(3, 2, 2)], label="1d"),
]


@pytest.mark.parametrize("c", CASES, ids=str)
def test_forward_and_gradient(c, backend):
    run_case(c)


# --------------------------------------------------------------------------- transposed conv
# (input size, kernel, stride, padding, output_padding, dilation) -> Keras's output size.
TRANSPOSE_SHAPES = [
    (5, 3, 2, "valid", None, 1, 11),        # in * s + max(k - s, 0)
    (5, 3, 2, "same", None, 1, 10),         # in * s
    (5, 3, 1, "valid", None, 1, 7),
    (5, 2, 3, "valid", None, 1, 15),        # kernel smaller than the stride
    (4, 4, 2, "same", None, 1, 8),
    (5, 1, 2, "same", None, 1, 10),
    (5, 3, 2, "valid", 1, 1, 12),           # (in - 1) * s + k + output_padding
    (5, 3, 2, "same", 1, 1, 10),            # (in - 1) * s + k - 2 * (k // 2) + op
    (5, 3, 2, "same", 0, 1, 9),
    (4, 4, 2, "same", 1, 1, 7),
    (5, 3, 1, "valid", None, 2, 9),         # dilated kernel of span 5
    (5, 3, 1, "same", None, 2, 5),
]


@pytest.mark.parametrize("size,k,stride,padding,output_padding,dilation,expected",
                         TRANSPOSE_SHAPES)
def test_conv2d_transpose_shape_and_adjoint(backend, size, k, stride, padding, output_padding,
                                            dilation, expected):
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, size, 3, 3))
    kernel = rng.standard_normal((k, 3, 2, 3))
    y = ops.conv2d_transpose(ops.convert_to_tensor(x), ops.convert_to_tensor(kernel),
                             strides=(stride, 1), padding=padding,
                             output_padding=None if output_padding is None
                             else (output_padding, 0),
                             dilation_rate=(dilation, 1))
    assert y.shape[1] == expected
    # <conv2d(z), x> == <z, conv2d_transpose(x)>: the transposed conv is conv2d's adjoint.
    z = rng.standard_normal(y.shape)
    forward = ops.conv2d(ops.convert_to_tensor(z), ops.convert_to_tensor(kernel),
                         strides=(stride, 1), padding=padding, dilation_rate=(dilation, 1))
    assert forward.shape == x.shape
    np.testing.assert_allclose(np.sum(forward.numpy() * x), np.sum(z * y.numpy()), rtol=1e-10)


def test_second_order_of_conv2d_through_a_nonlinearity(backend):
    # d/dw of |grad_x sum(tanh(conv(x, w)))|^2 exercises every backprop's own gradient.
    import lamina
    rng = np.random.default_rng(5)
    x0, w0 = rng.standard_normal((1, 4, 4, 2)), rng.standard_normal((3, 3, 2, 2)) * 0.5

    def penalty(w_array):
        x = ops.convert_to_tensor(x0)
        w = ops.convert_to_tensor(w_array)
        with lamina.GradientTape() as outer:
            outer.watch(w)
            with lamina.GradientTape() as inner:
                inner.watch(x)
                y = ops.sum(_tanh(ops.conv2d(x, w, strides=2, padding="same")))
            gx = inner.gradient(y, x)
            z = ops.sum(ops.multiply(gx, gx))
        return float(z.numpy()), outer.gradient(z, w).numpy()

    value, grad = penalty(w0)
    numeric = np.zeros_like(w0)
    for i in np.ndindex(w0.shape):
        up, down = w0.copy(), w0.copy()
        up[i] += 1e-6
        down[i] -= 1e-6
        numeric[i] = (penalty(up)[0] - penalty(down)[0]) / 2e-6
    np.testing.assert_allclose(grad, numeric, rtol=1e-5, atol=1e-8)


def _tanh(t):
    # tanh(t) = 1 - 2 / (exp(2t) + 1), from ops that exist in every build of this package.
    e = ops.exp(ops.multiply(t, 2.0))
    return ops.subtract(1.0, ops.divide(2.0, ops.add(e, 1.0)))


# --------------------------------------------------------------------------- errors
def _t(*shape, dtype="float32"):
    return ops.convert_to_tensor(np.zeros(shape, dtype=dtype))


def test_wrong_rank_names_the_layout():
    with pytest.raises(ShapeError, match=r"conv2d: argument 'x' must have rank 4 \(batch, "
                       r"height, width, channels\); received shape \(32, 28, 28\)"):
        ops.conv2d(_t(32, 28, 28), _t(3, 3, 1, 8))
    with pytest.raises(ShapeError, match=r"conv2d: argument 'kernel' must have rank 4"):
        ops.conv2d(_t(2, 5, 5, 1), _t(3, 3, 8))
    with pytest.raises(ShapeError, match=r"conv1d: argument 'x' must have rank 3 \(batch, "
                       r"steps, channels\); received shape \(2, 5, 5, 1\)"):
        ops.conv1d(_t(2, 5, 5, 1), _t(3, 1, 8))


def test_channel_mismatch():
    with pytest.raises(ShapeError, match=r"conv2d: the input has 3 channels but the kernel "
                       r"expects 4 \(1 group\(s\) of 4\): input channels must match the "
                       r"kernel's; received 'x' of shape "
                       r"\(2, 5, 5, 3\) and 'kernel' of shape \(3, 3, 4, 2\)"):
        ops.conv2d(_t(2, 5, 5, 3), _t(3, 3, 4, 2))
    with pytest.raises(ShapeError, match=r"depthwise_conv2d: the input has 3 channels but "
                       r"the kernel expects 2"):
        ops.depthwise_conv2d(_t(2, 5, 5, 3), _t(3, 3, 2, 1))
    with pytest.raises(ShapeError, match=r"conv2d_transpose: the input has 3 channels but "
                       r"the kernel expects 2 \(its last axis\)"):
        ops.conv2d_transpose(_t(2, 5, 5, 3), _t(3, 3, 4, 2))
    with pytest.raises(ShapeError, match=r"conv: the input's channels must be a multiple "
                       r"of the kernel's in_channels 4"):
        ops.conv(_t(2, 5, 5, 6), _t(3, 3, 4, 2))


def test_groups_must_divide_channels():
    with pytest.raises(ShapeError, match=r"conv2d: argument 'groups' \(2\) must divide the "
                       r"input's 3 channels"):
        ops.conv2d(_t(2, 5, 5, 3), _t(3, 3, 1, 2), groups=2)
    with pytest.raises(ShapeError, match=r"conv2d: argument 'groups' \(2\) must divide the "
                       r"kernel's 3 output channels"):
        ops.conv2d(_t(2, 5, 5, 4), _t(3, 3, 2, 3), groups=2)
    with pytest.raises(ValueError, match=r"conv2d: argument 'groups' must be a positive int; "
                       r"received 0"):
        ops.conv2d(_t(2, 5, 5, 4), _t(3, 3, 2, 3), groups=0)


def test_bad_padding_and_strides():
    with pytest.raises(ValueError, match=r"conv2d: argument 'padding' must be 'valid' or "
                       r"'same'; received 'full'"):
        ops.conv2d(_t(2, 5, 5, 1), _t(3, 3, 1, 2), padding="full")
    with pytest.raises(ValueError, match=r"conv2d: argument 'padding' must be 'valid' or "
                       r"'same'; received 'causal'"):
        ops.conv2d(_t(2, 5, 5, 1), _t(3, 3, 1, 2), padding="causal")
    with pytest.raises(ValueError, match=r"conv1d: argument 'padding' must be 'valid' or "
                       r"'same' or 'causal'; received 'full'"):
        ops.conv1d(_t(2, 5, 1), _t(3, 1, 2), padding="full")
    with pytest.raises(ValueError, match=r"conv2d: argument 'strides' must be an int or a "
                       r"tuple of 2 ints, all positive; received 0"):
        ops.conv2d(_t(2, 5, 5, 1), _t(3, 3, 1, 2), strides=0)
    with pytest.raises(ValueError, match=r"conv2d: argument 'strides' must be an int or a "
                       r"tuple of 2 ints, all positive; received \(1, 2, 3\)"):
        ops.conv2d(_t(2, 5, 5, 1), _t(3, 3, 1, 2), strides=(1, 2, 3))
    with pytest.raises(ValueError, match=r"conv2d: argument 'dilation_rate' must be an int "
                       r"or a tuple of 2 ints, all positive; received 1.5"):
        ops.conv2d(_t(2, 5, 5, 1), _t(3, 3, 1, 2), dilation_rate=1.5)


def test_kernel_larger_than_valid_input():
    with pytest.raises(ShapeError, match=r"conv2d: the dilated kernel \(5, 5\) is larger than "
                       r"the input's spatial size \(4, 4\) with padding 'valid'"):
        ops.conv2d(_t(1, 4, 4, 1), _t(3, 3, 1, 1), dilation_rate=2)
    with pytest.raises(ShapeError, match=r"conv1d: the dilated kernel \(4,\) is larger "
                       r"than the input's spatial size \(3,\) with padding 'valid'"):
        ops.conv1d(_t(1, 3, 1), _t(4, 1, 1))


def test_keras_names_reject_other_layouts_and_ranks():
    with pytest.raises(ValueError, match=r"conv: argument 'data_format' must be None or "
                       r"'channels_last' or 'channels_first'; received 'nhwc'"):
        ops.conv(_t(2, 5, 5, 1), _t(3, 3, 1, 2), data_format="nhwc")
    # (ops.conv takes rank-5 volumes: test_conv3d.py)
    with pytest.raises(ValueError, match=r"depthwise_conv: 3-D operations \(rank-5 inputs\) "
                       r"are not supported; Lamina supports 1-D \(rank 3\) and 2-D \(rank 4\)"):
        ops.depthwise_conv(_t(1, 4, 4, 4, 1), _t(3, 3, 3, 1, 2))
    with pytest.raises(ShapeError, match=r"depthwise_conv: argument 'inputs' must have rank 3"
                       r" \(batch, steps, channels\) or 4"):
        ops.depthwise_conv(_t(4, 4), _t(3, 3, 1, 2))
    with pytest.raises(ValueError, match=r"conv_transpose: argument 'data_format' must be "
                       r"None or 'channels_last'"):
        ops.conv_transpose(_t(2, 5, 5, 1), _t(3, 3, 1, 1), 1, data_format="NCHW")


def test_transpose_output_padding_must_be_below_stride():
    with pytest.raises(ValueError, match=r"conv2d_transpose: argument 'output_padding' must "
                       r"be smaller than the strides; received output_padding \(2, 0\) and "
                       r"strides \(2, 2\)"):
        ops.conv2d_transpose(_t(1, 3, 3, 1), _t(3, 3, 1, 1), 2, output_padding=(2, 0))
    with pytest.raises(ValueError, match=r"conv2d_transpose: argument 'output_padding' must "
                       r"be an int or a tuple of 2 ints, all >= 0; received -1"):
        ops.conv2d_transpose(_t(1, 3, 3, 1), _t(3, 3, 1, 1), 2, output_padding=-1)


def test_dtypes():
    with pytest.raises(DTypeError, match=r"conv2d: argument 'x' must be a floating-point "
                       r"tensor; received dtype int32"):
        ops.conv2d(_t(1, 3, 3, 1, dtype="int32"), _t(1, 1, 1, 1, dtype="int32"))
    with pytest.raises(DTypeError, match=r"conv2d: arguments 'x' and 'kernel' must have one "
                       r"dtype; received float32 and float64"):
        Conv2D(_t(1, 3, 3, 1), _t(1, 1, 1, 1, dtype="float64"), strides=(1, 1),
               padding="valid", dilation=(1, 1), groups=1)
    # Mixed float dtypes through the public function are promoted, as elsewhere in ops.
    y = ops.conv2d(_t(1, 3, 3, 1), _t(1, 1, 1, 1, dtype="float64"))
    assert y.dtype == "float64"


def test_backprop_checks_dy_shape():
    with pytest.raises(ShapeError, match=r"conv2d_backprop_input: argument 'dy' must have "
                       r"shape \(2, 3, 3, 2\) \(the convolution's output\); received "
                       r"\(2, 4, 4, 2\)"):
        bpi((2, 5, 5, 3))(_t(2, 4, 4, 2), _t(3, 3, 3, 2))
    with pytest.raises(ShapeError, match=r"conv2d_backprop_filter: argument 'dy' must have "
                       r"shape \(2, 3, 3, 2\)"):
        bpf((3, 3, 3, 2))(_t(2, 5, 5, 3), _t(2, 5, 5, 2))
    with pytest.raises(ShapeError, match=r"conv2d_backprop_input: 'input_shape' "
                       r"\(2, 5, 5, 4\) has 4 channels, the kernel expects 3"):
        bpi((2, 5, 5, 4))(_t(2, 3, 3, 2), _t(3, 3, 3, 2))
    with pytest.raises(ShapeError, match=r"conv2d_backprop_filter: 'filter_shape' "
                       r"\(3, 3, 2, 2\) expects 2 input channels; received 'x' of shape "
                       r"\(2, 5, 5, 3\)"):
        bpf((3, 3, 2, 2))(_t(2, 5, 5, 3), _t(2, 3, 3, 2))


def test_keras_conv_accepts_lists_and_uppercase_padding():
    x = np.arange(2 * 5 * 5 * 2, dtype="float64").reshape(2, 5, 5, 2) / 50
    w = np.linspace(-1, 1, 3 * 3 * 2 * 2).reshape(3, 3, 2, 2)
    y = ops.conv(ops.convert_to_tensor(x), ops.convert_to_tensor(w), [2, 1], "SAME")
    np.testing.assert_allclose(y.numpy(), ref_conv(x, w, (2, 1), "same"), rtol=1e-12)


def test_conv1d_groups_must_be_positive():
    with pytest.raises(ValueError, match=r"conv1d: argument 'groups' must be a positive int; "
                       r"received 0"):
        ops.conv1d(_t(2, 5, 2), _t(3, 2, 2), groups=0)


class _SpecOnly:
    """Shape and dtype only, as a traced (symbolic) tensor has."""

    def __init__(self, shape, dtype="float32"):
        self.shape, self.dtype = shape, dtype


@pytest.mark.parametrize("padding, output_padding, width", [
    ("valid", None, 9), ("same", None, 8), ("valid", 1, 10), ("same", 1, 8)])
def test_transpose_of_an_unknown_spatial_size_is_unknown(padding, output_padding, width):
    # Keras 3.15.1: Conv2DTranspose(2, 3, strides=2) of (None, None, 4, 3) gives
    # (None, None, width, 2); the known width follows Keras's formula.
    from lamina.core.symbolic import SymbolicTensor
    y = ops.conv2d_transpose(SymbolicTensor((None, None, 4, 3), "float32"),
                             SymbolicTensor((3, 3, 2, 3), "float32"), strides=2,
                             padding=padding, output_padding=output_padding)
    assert tuple(y.shape) == (None, None, width, 2)


def test_backprop_input_runs_only_with_known_sizes():
    # A symbolic transposed convolution may leave 'input_shape' sizes unknown; running
    # such a node is refused with the op's name rather than failing inside a kernel.
    from lamina.backend import get_backend
    with pytest.raises(ShapeError, match=r"conv2d_backprop_input: attribute 'input_shape' "
                       r"must give every size but the batch to run; received "
                       r"\(None, None, 9, 2\)"):
        Conv2DBackpropInput.forward(get_backend(), np.zeros((1, 4, 4, 3), "float32"),
                                      np.zeros((3, 3, 2, 3), "float32"),
                                      input_shape=(None, None, 9, 2), strides=(2, 2),
                                      padding=((0, 0), (0, 0)), dilation=(1, 1), groups=1)


def test_unknown_batch_and_size_propagate_through_output_specs():
    spec = Conv2D.output_spec(_SpecOnly((None, None, 8, 3)), _SpecOnly((3, 3, 3, 4)),
                              strides=(2, 2), padding="same", dilation=(1, 1), groups=1)
    assert spec.shape == (None, None, 4, 4)
    spec = Conv2DBackpropInput.output_spec(_SpecOnly((None, 4, 4, 4)), _SpecOnly((3, 3, 3, 4)),
                                           input_shape=(None, 8, 8, 3), strides=(2, 2),
                                           padding="same", dilation=(1, 1), groups=1)
    assert spec.shape == (None, 8, 8, 3)
