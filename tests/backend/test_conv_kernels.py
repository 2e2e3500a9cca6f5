"""The convolution and pooling kernels against loop references, across the block boundaries.

The kernels cut the batch into blocks of samples (or of output rows) sized by
``lamina.backend.conv._BLOCK_BYTES``; these tests shrink that budget so that blocks end
mid-batch and mid-image, where an off-by-one would hide at the default size.
"""
import numpy as np
import pytest

import lamina.backend.conv as conv_module
from tests.ops.test_conv import ref_backprop_filter, ref_backprop_input, ref_conv2d
from tests.ops.test_pooling import (ref_avg_backprop, ref_max_backprop, ref_max_select,
                                    ref_pool)

rng = np.random.default_rng(42)

# (x shape, w shape, strides, pads, dilation, groups)
GEOMETRIES = [
    ((5, 7, 6, 4), (3, 3, 4, 3), (1, 1), ((1, 1), (1, 1)), (1, 1), 1),
    ((5, 7, 6, 4), (3, 2, 4, 6), (2, 1), ((1, 0), (0, 1)), (1, 1), 1),
    ((3, 8, 7, 4), (3, 3, 2, 6), (2, 2), ((1, 1), (1, 1)), (1, 2), 2),
    ((3, 6, 6, 4), (3, 3, 1, 8), (1, 1), ((1, 1), (1, 1)), (1, 1), 4),      # depthwise x2
    ((3, 6, 7, 4), (3, 3, 1, 4), (2, 1), ((2, 2), (1, 1)), (2, 1), 4),      # depthwise x1
    ((5, 7, 6, 4), (1, 1, 4, 3), (1, 1), ((0, 0), (0, 0)), (1, 1), 1),      # pointwise
    ((5, 7, 6, 4), (1, 1, 4, 3), (2, 3), ((0, 0), (0, 0)), (1, 1), 1),
    ((2, 9, 8, 3), (3, 3, 3, 2), (3, 2), ((0, 0), (0, 0)), (2, 2), 1),
    ((2, 5, 5, 3), (3, 3, 3, 2), (1, 1), ((3, 0), (0, 3)), (1, 1), 1),      # pad > k - 1
]
IDS = ["same", "stride21", "groups-dilation", "depthwise", "depthwise-flat", "pointwise",
       "pointwise-stride", "stride32-dilated", "big-pads"]


def _out_hw(x_shape, w_shape, strides, pads, dilation):
    return tuple((x_shape[1 + a] + sum(pads[a]) - (w_shape[a] - 1) * dilation[a] - 1)
                 // strides[a] + 1 for a in range(2))


def _budgets(x_shape, w_shape, strides, pads, dilation):
    """Block budgets: whole batch, 2 samples (batch not a multiple), 3 rows, 1 row."""
    oh, ow = _out_hw(x_shape, w_shape, strides, pads, dilation)
    row = ow * w_shape[0] * w_shape[1] * x_shape[3] * 8
    return [1 << 30, 2 * oh * row + 1, 3 * row, 1]


@pytest.mark.parametrize("geometry", GEOMETRIES, ids=IDS)
def test_conv_kernels_match_references_across_blocks(backend, monkeypatch, geometry):
    x_shape, w_shape, strides, pads, dilation, groups = geometry
    x, w = rng.standard_normal(x_shape), rng.standard_normal(w_shape)
    y_ref = ref_conv2d(x, w, strides, pads, dilation, groups)
    dy = rng.standard_normal(y_ref.shape)
    dx_ref = ref_backprop_input(dy, w, x_shape, strides, pads, dilation, groups)
    dw_ref = ref_backprop_filter(x, dy, w_shape, strides, pads, dilation, groups)
    bx, bw, bdy = backend.asarray(x), backend.asarray(w), backend.asarray(dy)
    for budget in _budgets(x_shape, w_shape, strides, pads, dilation):
        monkeypatch.setattr(conv_module, "_BLOCK_BYTES", budget)
        y = backend.conv2d(bx, bw, strides, pads, dilation, groups)
        dx = backend.conv2d_backprop_input(bdy, bw, x_shape, strides, pads, dilation, groups)
        dw = backend.conv2d_backprop_filter(bx, bdy, w_shape, strides, pads, dilation, groups)
        for got, ref in ((y, y_ref), (dx, dx_ref), (dw, dw_ref)):
            np.testing.assert_allclose(backend.to_host(got), ref, rtol=1e-11, atol=1e-12,
                                       err_msg=f"block budget {budget}")


@pytest.mark.parametrize("geometry", GEOMETRIES[:3], ids=IDS[:3])
def test_conv_kernels_float32(backend, geometry):
    x_shape, w_shape, strides, pads, dilation, groups = geometry
    x, w = rng.standard_normal(x_shape), rng.standard_normal(w_shape)
    y_ref = ref_conv2d(x, w, strides, pads, dilation, groups)
    dy = rng.standard_normal(y_ref.shape)
    f32 = [backend.asarray(a, dtype="float32") for a in (x, w, dy)]
    y = backend.conv2d(f32[0], f32[1], strides, pads, dilation, groups)
    dx = backend.conv2d_backprop_input(f32[2], f32[1], x_shape, strides, pads, dilation, groups)
    dw = backend.conv2d_backprop_filter(f32[0], f32[2], w_shape, strides, pads, dilation,
                                        groups)
    for got, ref in ((y, y_ref),
                     (dx, ref_backprop_input(dy, w, x_shape, strides, pads, dilation, groups)),
                     (dw, ref_backprop_filter(x, dy, w_shape, strides, pads, dilation,
                                              groups))):
        assert got.dtype == np.float32
        np.testing.assert_allclose(backend.to_host(got), ref, rtol=1e-4, atol=1e-4)


def test_conv_kernels_write_into_out(backend):
    x_shape, w_shape, strides, pads, dilation, groups = GEOMETRIES[1]
    x, w = rng.standard_normal(x_shape), rng.standard_normal(w_shape)
    y_ref = ref_conv2d(x, w, strides, pads, dilation, groups)
    dy = rng.standard_normal(y_ref.shape)
    bx, bw, bdy = backend.asarray(x), backend.asarray(w), backend.asarray(dy)
    calls = [
        (lambda out: backend.conv2d(bx, bw, strides, pads, dilation, groups, out=out), y_ref),
        (lambda out: backend.conv2d_backprop_input(bdy, bw, x_shape, strides, pads, dilation,
                                                   groups, out=out),
         ref_backprop_input(dy, w, x_shape, strides, pads, dilation, groups)),
        (lambda out: backend.conv2d_backprop_filter(bx, bdy, w_shape, strides, pads, dilation,
                                                    groups, out=out),
         ref_backprop_filter(x, dy, w_shape, strides, pads, dilation, groups)),
    ]
    for call, ref in calls:
        out = backend.full(ref.shape, np.nan, "float64")
        assert call(out) is out
        np.testing.assert_allclose(backend.to_host(out), ref, rtol=1e-11, atol=1e-12)
        # A strided (non-contiguous) destination is filled too.
        wide = backend.full(ref.shape[:-1] + (2 * ref.shape[-1],), np.nan, "float64")
        assert call(wide[..., ::2]) is not None
        np.testing.assert_allclose(backend.to_host(wide[..., ::2]), ref, rtol=1e-11,
                                   atol=1e-12)


def test_negative_pads_crop(backend):
    # A negative pad drops input rows: the same as convolving the cropped input.
    x, w = rng.standard_normal((2, 6, 5, 3)), rng.standard_normal((2, 2, 3, 2))
    bx, bw = backend.asarray(x), backend.asarray(w)
    y = backend.conv2d(bx, bw, (1, 1), ((-1, 2), (0, -1)), (1, 1), 1)
    cropped = backend.conv2d(backend.asarray(x[:, 1:, :4]), bw, (1, 1), ((0, 2), (0, 0)),
                             (1, 1), 1)
    np.testing.assert_allclose(backend.to_host(y), backend.to_host(cropped), rtol=1e-12)
    dy = rng.standard_normal(y.shape)
    dx = backend.to_host(backend.conv2d_backprop_input(
        backend.asarray(dy), bw, x.shape, (1, 1), ((-1, 2), (0, -1)), (1, 1), 1))
    expected = np.zeros_like(x)
    expected[:, 1:, :4] = ref_backprop_input(dy, w, (2, 5, 4, 3), pads=((0, 2), (0, 0)))
    np.testing.assert_allclose(dx, expected, rtol=1e-11, atol=1e-12)


# --------------------------------------------------------------------------- pooling
POOLS = [  # (x shape, pool, strides, padding)
    ((3, 8, 8, 4), (2, 2), (2, 2), "valid"),       # exact tiling: the fast path
    ((3, 7, 9, 2), (2, 2), (2, 2), "valid"),       # leftover row and column
    ((2, 7, 6, 3), (3, 3), (2, 2), "same"),        # overlapping windows, padding
    ((2, 5, 6, 2), (2, 3), (1, 2), "same"),
    ((2, 6, 6, 2), (1, 1), (1, 1), "valid"),
]


def _pads(padding, in_hw, pool, strides):
    if padding == "valid":
        return ((0, 0), (0, 0))
    pads = []
    for size, k, s in zip(in_hw, pool, strides):
        total = max((-(-size // s) - 1) * s + k - size, 0)
        pads.append((total // 2, total - total // 2))
    return tuple(pads)


@pytest.mark.parametrize("x_shape,pool,strides,padding", POOLS)
def test_pool_kernels_match_references(backend, x_shape, pool, strides, padding):
    x = rng.permutation(np.arange(np.prod(x_shape), dtype="float64")).reshape(x_shape) - 50
    pads = _pads(padding, x_shape[1:3], pool, strides)
    bx = backend.asarray(x)
    for fn in ("max", "avg"):
        y = backend.pool2d(bx, fn, pool, strides, pads)
        np.testing.assert_allclose(backend.to_host(y), ref_pool(x, fn, pool, strides, padding),
                                   rtol=1e-12)
    y = backend.pool2d(bx, "max", pool, strides, pads)
    dy = rng.standard_normal(y.shape)
    g = rng.standard_normal(x_shape)
    by, bdy = y, backend.asarray(dy)
    np.testing.assert_allclose(
        backend.to_host(backend.max_pool2d_backprop(bx, by, bdy, pool, strides, pads)),
        ref_max_backprop(x, dy, pool, strides, padding), rtol=1e-12)
    np.testing.assert_allclose(
        backend.to_host(backend.max_pool2d_select(bx, by, backend.asarray(g), pool, strides,
                                                  pads)),
        ref_max_select(x, g, pool, strides, padding), rtol=1e-12)
    np.testing.assert_allclose(
        backend.to_host(backend.avg_pool2d_backprop(bdy, x_shape, pool, strides, pads)),
        ref_avg_backprop(dy, x_shape, pool, strides, padding), rtol=1e-12)


def test_max_pool_ties_route_to_the_first_maximum(backend):
    # Windows of equal values (a ReLU's zeros) and partial ties, in overlapping windows too.
    x = np.zeros((1, 4, 4, 2))
    x[0, 1, 1, 1] = x[0, 2, 3, 1] = 1.0
    for pool, strides in (((2, 2), (2, 2)), ((3, 3), (1, 1))):
        bx = backend.asarray(x)
        y = backend.pool2d(bx, "max", pool, strides, ((0, 0), (0, 0)))
        dy = rng.standard_normal(y.shape)
        dx = backend.max_pool2d_backprop(bx, y, backend.asarray(dy), pool, strides,
                                         ((0, 0), (0, 0)))
        np.testing.assert_allclose(backend.to_host(dx),
                                   ref_max_backprop(x, dy, pool, strides), rtol=1e-12)


def test_pool2d_writes_into_out(backend):
    x = rng.standard_normal((2, 6, 6, 3))
    for fn in ("max", "avg"):
        out = backend.full((2, 3, 3, 3), np.nan, "float64")
        got = backend.pool2d(backend.asarray(x), fn, (2, 2), (2, 2), ((0, 0), (0, 0)), out=out)
        assert got is out
        np.testing.assert_allclose(backend.to_host(out), ref_pool(x, fn, (2, 2)), rtol=1e-12)


def test_max_pool_of_integers_pads_with_the_smallest_integer(backend):
    x = -np.arange(1, 10, dtype="int32").reshape(1, 3, 3, 1)
    y = backend.pool2d(backend.asarray(x), "max", (2, 2), (2, 2), ((0, 1), (0, 1)))
    np.testing.assert_array_equal(backend.to_host(y)[0, :, :, 0], [[-1, -3], [-7, -9]])


def test_empty_batch(backend):
    pads = ((1, 1), (1, 1))
    x = backend.asarray(np.zeros((0, 5, 5, 4)))
    for w_shape, groups in (((3, 3, 4, 2), 1), ((3, 3, 1, 8), 4)):
        w = backend.asarray(np.ones(w_shape))
        y = backend.conv2d(x, w, (1, 1), pads, (1, 1), groups)
        assert y.shape == (0, 5, 5, w_shape[3])
        for strides in ((1, 1), (2, 2)):
            out = (5 - 3) // strides[0] + 1                     # 'valid' 3x3 on 5x5
            dy = backend.asarray(np.zeros((0, out, out, w_shape[3])))
            dx = backend.conv2d_backprop_input(dy, w, (0, 5, 5, 4), strides, ((0, 0), (0, 0)),
                                               (1, 1), groups)
            assert dx.shape == (0, 5, 5, 4)
        dw = backend.conv2d_backprop_filter(x, y, w_shape, (1, 1), pads, (1, 1), groups)
        np.testing.assert_array_equal(backend.to_host(dw), np.zeros(w_shape))
    assert backend.pool2d(x, "max", (2, 2), (2, 2), ((0, 0), (0, 0))).shape == (0, 2, 2, 4)


def test_pool2d_rejects_an_unknown_function(backend):
    with pytest.raises(ValueError, match=r"pool2d: expected fn 'max' or 'avg'; received 'min'"):
        backend.pool2d(backend.asarray(np.zeros((1, 2, 2, 1))), "min", (2, 2), (2, 2),
                       ((0, 0), (0, 0)))
