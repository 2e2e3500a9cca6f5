"""The fused ops of lamina/ops/fused.py: forward against numpy, gradients by differences."""
import numpy as np
import pytest

from lamina import ops
from lamina.errors import DTypeError, ShapeError
from lamina.ops import fused
from tests.harness import case, run_case
from tests.ops.test_conv import pads_for, ref_conv2d

_rng = np.random.default_rng(42)


def _data(*shape):
    return _rng.uniform(-1, 1, size=shape)


def _act(name, a):
    return {"linear": lambda: a, "relu": lambda: np.maximum(a, 0),
            "sigmoid": lambda: 1 / (1 + np.exp(-a)), "tanh": lambda: np.tanh(a)}[name]()


def ref_dense(activation, save_mask=False):
    def ref(x, w, b=None):
        a = x @ w + (0 if b is None else b)
        y = _act(activation, a)
        return (y, (a > 0).astype(a.dtype)) if save_mask else y
    return ref


def ref_conv(activation, padding="same", strides=(1, 1), save_mask=False):
    def ref(x, w, b=None):
        pads = pads_for(padding, x.shape[1:3], w.shape[:2], strides)
        a = ref_conv2d(x, w, strides, pads) + (0 if b is None else b)
        y = _act(activation, a)
        return (y, (a > 0).astype(a.dtype)) if save_mask else y
    return ref


def _dense(activation):
    return lambda x, w, b: fused.dense_bias_act(x, w, b, activation=activation)


def _conv(activation):
    return lambda x, w, b: fused.conv2d_bias_act(x, w, b, padding="same",
                                                 activation=activation)


X2, W2, B2 = _data(5, 4), _data(4, 3), _data(3)
X3 = _data(2, 3, 4)
XI, WI, BI = _data(2, 5, 5, 2), _data(3, 3, 2, 3), _data(3)

CASES = [
    case("dense_bias_act", _dense(act), ref_dense(act), [X2, W2, B2],
         second_order=act != "relu", label=act)
    for act in fused.ACTIVATIONS
] + [
    case("dense_bias_act",
         lambda x, w, b: fused.dense_bias_act(x, w, b, activation="relu", save_mask=True),
         ref_dense("relu", save_mask=True), [X2, W2, B2], label="relu-mask"),
    case("dense_bias_act", lambda x, w: fused.dense_bias_act(x, w, activation="tanh"),
         ref_dense("tanh"), [X3, W2], label="no-bias-3d"),
] + [
    case("conv2d_bias_act", _conv(act), ref_conv(act), [XI, WI, BI], label=act)
    for act in ("linear", "relu", "sigmoid")
] + [
    case("conv2d_bias_act",
         lambda x, w, b: fused.conv2d_bias_act(x, w, b, padding="valid", strides=(2, 2),
                                               activation="relu", save_mask=True),
         ref_conv("relu", padding="valid", strides=(2, 2), save_mask=True),
         [XI, WI, BI], label="relu-mask-strided"),
    case("conv2d_bias_act",
         lambda x, w: fused.conv2d_bias_act(x, w, padding="same", activation="tanh"),
         ref_conv("tanh"), [XI, WI], label="no-bias"),
]


@pytest.mark.parametrize("c", CASES, ids=str)
def test_forward_and_gradient(c, backend):
    run_case(c)


def test_the_epilogue_runs_in_place_on_a_given_output_buffer(backend):
    x, w, b = (ops.convert_to_tensor(a, dtype="float32") for a in (X2, W2, B2))
    out = backend.empty((5, 3), "float32")
    mask = backend.empty((5, 3), "float32")
    y, m = fused.DenseBiasAct.forward(backend, x.data, w.data, b.data, out=(out, mask),
                                      activation="relu", save_mask=True)
    assert y is out and m is mask
    expected = ref_dense("relu", save_mask=True)(X2, W2, B2)
    np.testing.assert_allclose(backend.to_host(out), expected[0], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(backend.to_host(mask), expected[1])
    out3 = backend.empty((2, 3, 3), "float32")
    x3 = ops.convert_to_tensor(X3, dtype="float32")
    y3 = fused.DenseBiasAct.forward(backend, x3.data, w.data, b.data, out=out3,
                                    activation="sigmoid")
    assert y3 is out3
    np.testing.assert_allclose(backend.to_host(out3), ref_dense("sigmoid")(X3, W2, B2),
                               rtol=1e-5, atol=1e-6)


def test_fused_ops_give_exactly_the_unfused_numbers(backend):
    x, w, b = (ops.convert_to_tensor(a, dtype="float32") for a in (XI, WI, BI))
    fused_y = fused.conv2d_bias_act(x, w, b, padding="same", activation="relu")
    plain = ops.relu(ops.add(ops.conv2d(x, w, padding="same"), b))
    np.testing.assert_array_equal(fused_y.numpy(), plain.numpy())


def test_fused_op_errors_name_the_argument():
    x, w, b = (ops.convert_to_tensor(a, dtype="float32") for a in (X2, W2, B2))
    with pytest.raises(ValueError, match=r"dense_bias_act: argument 'activation' must be one"):
        fused.dense_bias_act(x, w, b, activation="gelu")
    with pytest.raises(ValueError, match=r"save_mask=True is only for activation='relu'"):
        fused.dense_bias_act(x, w, b, activation="tanh", save_mask=True)
    with pytest.raises(ShapeError, match=r"argument 'bias' must have shape \(3,\)"):
        fused.dense_bias_act(x, w, ops.convert_to_tensor(_data(4), dtype="float32"))
    with pytest.raises(DTypeError, match=r"argument 'bias' must have the output's dtype"):
        fused.DenseBiasAct(x, w, ops.convert_to_tensor(B2, dtype="float64"))
    with pytest.raises(ShapeError, match=r"dense_bias_act: 'x' must have rank >= 2"):
        fused.dense_bias_act(ops.convert_to_tensor(_data(4), dtype="float32"), w)
    with pytest.raises(ShapeError, match=r"conv2d"):
        fused.conv2d_bias_act(x, w)
