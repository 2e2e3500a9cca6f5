"""conv3d and its two backprops (NDHWC volumes, DHWIO kernels) against a reference built
from test_conv.py's direct-loop 2-D references summed over the depth taps: forward in
float64 and float32 (oneDNN's 3-D convolution where it loads), gradients against central
differences, eager == graph; the numpy kernels (depth taps through the 2-D kernels) the
same way; ``ops.conv`` on rank-5 inputs and the Conv3D layer go through it."""
import numpy as np
import pytest

import lamina
from lamina import ops
from lamina.backend import dnnl_lib
from lamina.errors import ShapeError
from lamina.ops.conv import Conv3DBackpropFilter, Conv3DBackpropInput
from tests.harness import case, rand, run_case
from tests.ops.test_conv import (ref_backprop_filter, ref_backprop_input, ref_conv2d,
                                 tf_same_pads)


def _pads(padding, spatial, window, strides, dilation):
    if padding == "valid":
        return ((0, 0),) * 3
    return tuple(tf_same_pads(*a) for a in zip(spatial, window, strides, dilation))


def _depth_slices(volume, i, out_depth, stride, dilation):
    start = i * dilation
    return volume[:, start:start + (out_depth - 1) * stride + 1:stride]


def ref_conv3d(x, w, strides=(1, 1, 1), padding="valid", dilation=(1, 1, 1), groups=1):
    pads = _pads(padding, x.shape[1:4], w.shape[:3], strides, dilation)
    xpad = np.pad(x, ((0, 0), pads[0], (0, 0), (0, 0), (0, 0)))
    od = (xpad.shape[1] - (w.shape[0] - 1) * dilation[0] - 1) // strides[0] + 1
    total = 0
    for i in range(w.shape[0]):
        taps = _depth_slices(xpad, i, od, strides[0], dilation[0])
        images = taps.reshape(-1, *taps.shape[2:])
        total = total + ref_conv2d(images, w[i], strides[1:], pads[1:], dilation[1:], groups)
    return total.reshape(x.shape[0], od, *total.shape[1:])


def ref_bpi3d(input_shape, strides, padding, dilation, groups):
    def ref(dy, w):
        pads = _pads(padding, input_shape[1:4], w.shape[:3], strides, dilation)
        n, depth = input_shape[:2]
        od = dy.shape[1]
        dxpad = np.zeros((n, depth + sum(pads[0])) + tuple(input_shape[2:]))
        images = dy.reshape(-1, *dy.shape[2:])
        for i in range(w.shape[0]):
            part = ref_backprop_input(images, w[i], (n * od,) + tuple(input_shape[2:]),
                                      strides[1:], pads[1:], dilation[1:], groups)
            _depth_slices(dxpad, i, od, strides[0], dilation[0])[...] += part.reshape(
                n, od, *part.shape[1:])
        return dxpad[:, pads[0][0]:pads[0][0] + depth]
    return ref


def ref_bpf3d(filter_shape, strides, padding, dilation, groups):
    def ref(x, dy):
        pads = _pads(padding, x.shape[1:4], filter_shape[:3], strides, dilation)
        xpad = np.pad(x, ((0, 0), pads[0], (0, 0), (0, 0), (0, 0)))
        od = dy.shape[1]
        images = dy.reshape(-1, *dy.shape[2:])
        return np.stack([ref_backprop_filter(
            _depth_slices(xpad, i, od, strides[0], dilation[0]).reshape(-1, *x.shape[2:]),
            images, filter_shape[1:], strides[1:], pads[1:], dilation[1:], groups)
            for i in range(filter_shape[0])])
    return ref


def conv3d(strides=(1, 1, 1), padding="valid", dilation=(1, 1, 1), groups=1):
    return (lambda x, w: ops.conv3d(x, w, strides, padding, dilation, groups),
            lambda x, w: ref_conv3d(x, w, strides, padding, dilation, groups))


def bpi3d(input_shape, strides=(1, 1, 1), padding="valid", dilation=(1, 1, 1), groups=1):
    return (lambda dy, w: Conv3DBackpropInput(dy, w, input_shape=input_shape, strides=strides,
                                              padding=padding, dilation=dilation,
                                              groups=groups),
            ref_bpi3d(input_shape, strides, padding, dilation, groups))


def bpf3d(filter_shape, strides=(1, 1, 1), padding="valid", dilation=(1, 1, 1), groups=1):
    return (lambda x, dy: Conv3DBackpropFilter(x, dy, filter_shape=filter_shape,
                                               strides=strides, padding=padding,
                                               dilation=dilation, groups=groups),
            ref_bpf3d(filter_shape, strides, padding, dilation, groups))


TOL = dict(fwd_rtol32=1e-5, fwd_atol32=1e-5)
CASES = [
    case("conv3d", *conv3d(), [rand(2, 4, 4, 3, 2), rand(2, 2, 2, 2, 3)], label="valid",
         **TOL),
    case("conv3d", *conv3d(padding="same"), [rand(1, 3, 4, 4, 2), rand(3, 3, 2, 2, 2)],
         label="same", **TOL),
    case("conv3d", *conv3d((2, 1, 2), "same"), [rand(2, 5, 4, 5, 2), rand(3, 2, 3, 2, 3)],
         label="strided-same", **TOL),
    case("conv3d", *conv3d(dilation=(2, 1, 1), groups=2),
         [rand(1, 5, 3, 3, 4), rand(2, 2, 2, 2, 4)], label="dilated-grouped", **TOL),
    case("conv3d_backprop_input", *bpi3d((2, 5, 4, 5, 2), (2, 1, 2), "same"),
         [rand(2, 3, 4, 3, 3), rand(3, 2, 3, 2, 3)], **TOL),
    case("conv3d_backprop_input", *bpi3d((1, 5, 3, 3, 4), dilation=(2, 1, 1), groups=2),
         [rand(1, 3, 2, 2, 4), rand(2, 2, 2, 2, 4)], label="dilated-grouped", **TOL),
    case("conv3d_backprop_filter", *bpf3d((3, 2, 3, 2, 3), (2, 1, 2), "same"),
         [rand(2, 5, 4, 5, 2), rand(2, 3, 4, 3, 3)], **TOL),
    case("conv3d_backprop_filter", *bpf3d((2, 2, 2, 2, 4), dilation=(2, 1, 1), groups=2),
         [rand(1, 5, 3, 3, 4), rand(1, 3, 2, 2, 4)], label="dilated-grouped", **TOL),
    # 'valid', stride 1: the input gradient of a valid convolution of a (d+kd-1, ...) volume
    case("conv3d_transpose", lambda x, k: ops.conv3d_transpose(x, k),
         lambda x, k: ref_bpi3d((1, 4, 4, 4, 3), (1, 1, 1), "valid", (1, 1, 1), 1)(x, k),
         [rand(1, 3, 2, 3, 2), rand(2, 3, 2, 3, 2)], **TOL),
]


@pytest.mark.parametrize("c", CASES, ids=str)
def test_forward_and_gradient(c, backend):
    run_case(c)


@pytest.mark.parametrize("c", CASES, ids=str)
def test_numpy_kernels_forward_and_gradient(c, numpy_kernels):
    run_case(c)


@pytest.mark.skipif(dnnl_lib.runtime() is None, reason="oneDNN's library is not loaded")
def test_one_oneDNN_primitive_per_3d_kernel():
    dnnl_lib.clear_cache()
    x = ops.convert_to_tensor(rand(2, 4, 5, 5, 3), dtype="float32")
    w = ops.convert_to_tensor(rand(2, 3, 3, 3, 4), dtype="float32")
    with lamina.GradientTape() as tape:
        tape.watch(x)
        tape.watch(w)
        loss = ops.sum(ops.conv3d(x, w, padding="same"))
    tape.gradient(loss, [x, w])
    volumes = {key[0] for key, value in dnnl_lib.CACHE.items()
               if value is not None and len(key[1]) == 5}
    assert volumes == {"conv", "conv_bwd_data", "conv_bwd_weights"}


def test_keras_conv_on_volumes_and_the_layer_use_conv3d():
    x = rand(2, 3, 4, 4, 2).astype("float32")
    w = rand(2, 2, 2, 2, 3).astype("float32")
    np.testing.assert_allclose(ops.conv(x, w, strides=(1, 2, 1), padding="same").numpy(),
                               ref_conv3d(x, w, (1, 2, 1), "same"), rtol=1e-5, atol=1e-5)
    layer = lamina.layers.Conv3D(3, 2, use_bias=False)
    layer.build(x.shape)
    layer.kernel.assign(w)
    np.testing.assert_allclose(layer(x).numpy(), ref_conv3d(x, w), rtol=1e-5, atol=1e-5)


def test_errors_name_the_op_and_argument():
    x = ops.zeros((1, 3, 3, 3, 2))
    with pytest.raises(ShapeError, match="conv3d: argument 'kernel' must have rank 5"):
        ops.conv3d(x, ops.zeros((2, 2, 2, 3)))
    with pytest.raises(ShapeError, match="conv3d: the input has 2 channels but the kernel"):
        ops.conv3d(x, ops.zeros((2, 2, 2, 3, 4)))
    with pytest.raises(ShapeError, match="conv3d: the dilated kernel"):
        ops.conv3d(x, ops.zeros((4, 2, 2, 2, 4)))
    with pytest.raises(ValueError, match="conv3d: argument 'strides' must be an int or a "
                                         "tuple of 3 ints"):
        ops.conv3d(x, ops.zeros((2, 2, 2, 2, 4)), strides=(1, 1))
    with pytest.raises(ShapeError, match="conv3d_backprop_input: argument 'dy' must have "
                                         "shape"):
        Conv3DBackpropInput(ops.zeros((1, 3, 2, 2, 4)), ops.zeros((2, 2, 2, 2, 4)),
                            input_shape=(1, 3, 3, 3, 2), strides=(1, 1, 1), padding="valid",
                            dilation=(1, 1, 1), groups=1)


@pytest.mark.parametrize("strides,padding,output_padding", [
    ((1, 1, 1), "valid", None), ((2, 1, 2), "same", None), ((2, 2, 1), "valid", (1, 0, 0))])
def test_transposed_3d_convolution_is_the_input_gradient(strides, padding, output_padding):
    """conv3d_transpose (and ops.conv_transpose on volumes, and the Conv3DTranspose layer)
    against the per-axis geometry of conv2d_transpose: its depth slices of height 1."""
    x = rand(2, 3, 4, 3, 2).astype("float32")
    kernel = rand(2, 3, 2, 4, 2).astype("float32")
    y = ops.conv3d_transpose(x, kernel, strides, padding, output_padding).numpy()
    np.testing.assert_allclose(
        ops.conv_transpose(x, kernel, strides, padding, output_padding).numpy(), y)
    # the same geometry, axis by axis: with the kernel's depth 1 and depth-1 strides, a
    # 3-D transposed convolution is the 2-D one of every depth slice
    flat = ops.conv3d_transpose(x, kernel[:1], (1,) + strides[1:], padding,
                                None if output_padding is None else (0,) + output_padding[1:])
    image = ops.conv2d_transpose(x.reshape(-1, 4, 3, 2), kernel[0], strides[1:], padding,
                                 None if output_padding is None else output_padding[1:])
    np.testing.assert_allclose(flat.numpy().reshape(image.shape), image.numpy(), rtol=1e-5,
                               atol=1e-6)
    layer = lamina.layers.Conv3DTranspose(4, (2, 3, 2), strides, padding,
                                          output_padding=output_padding, use_bias=False)
    layer.build(x.shape)
    layer.kernel.assign(kernel)
    np.testing.assert_allclose(layer(x).numpy(), y, rtol=1e-6, atol=1e-6)
    assert y.shape[1:] == layer.compute_output_shape(x.shape)[1:]
